# A real project's environment: its pinned dependencies installed from a host-made wheelhouse with no
# network, its sdist as /workspace (a git repository, one commit, owned by `agent`), installed in
# editable mode so the tests import the work tree. Generated tasks are data applied on top of it when a
# container starts: no image per task.
ARG BASE
FROM ${BASE}
# The build's own containers must not look like impasse's (label impasse=1, inherited from the base):
# a concurrent `impasse gc` or matrix start would reap them mid-build. The finished image gets it back.
LABEL impasse=building
ARG INSTALLS
ARG TESTS
ARG SOURCES
COPY wheels/ /tmp/impasse-wheels/
COPY --chown=1000:1000 src/ /workspace/
RUN install="python3 $(ls /tmp/impasse-wheels/pip-*.whl)/pip install -q --no-index --no-deps \
      --find-links /tmp/impasse-wheels --break-system-packages --root-user-action=ignore \
      --no-warn-script-location --disable-pip-version-check" \
 && $install ${INSTALLS} && cd /workspace && $install -e . \
 && rm -rf /tmp/impasse-wheels /root/.cache && chown -R 1000:1000 /workspace
# No other copy of the project outside the work tree: a distribution's vendored one (pkg_resources
# keeps more_itertools under _vendor) or a system package's would hand the agent a fixed file to copy.
# What imported them falls back to the installed project (pkg_resources' vendor importer does).
RUN for name in ${SOURCES}; do find /usr/lib/python3 /usr/lib/python3.* /usr/local/lib/python3.* -depth \
      \( -path "*/_vendor/$name" -o -path "*/_vendor/$name.py" -o -path "*/dist-packages/$name" \
      -o -path "*/dist-packages/$name.py" -o -path "*/site-packages/$name" -o -path "*/site-packages/$name.py" \) \
      -exec rm -rf {} + 2>/dev/null; done; true
USER agent
RUN export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
 && cd /workspace && git init -q && git add -A && git commit -qm "Current state of the project" \
 && git rev-parse HEAD > /tmp/base_commit
USER root
# The pristine tests and every file that configures them, at the root and in each folder above a
# test folder. The seed is the project before any generated bug, the fix of every task on this
# image: root-only (the harness's root owns it and streams it out; the agent never reads it).
RUN mkdir -p /opt/impasse-state/pristine && cd /workspace \
 && configs="conftest.py pytest.ini .pytest.ini pytest.toml .pytest.toml setup.cfg tox.ini pyproject.toml" \
 && above="" && for t in ${TESTS}; do d=$(dirname "$t"); while [ "$d" != . ]; do \
      for f in $configs; do above="$above $d/$f"; done; d=$(dirname "$d"); done; done \
 && for t in ${TESTS} $configs $above; do \
      if [ -e "$t" ]; then cp -a --parents "$t" /opt/impasse-state/pristine/; fi; done \
 && cp -a /workspace /opt/impasse-state/seed \
 && mv /tmp/base_commit /opt/impasse-state/base_commit \
 && chown -R 0:0 /opt/impasse-state && chmod -R a+rX,go-w /opt/impasse-state && chmod 700 /opt/impasse-state/seed
