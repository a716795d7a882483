# A task: the project's repository with the bug committed as the only commit, owned by `agent`.
# Root-only under /opt/impasse-task: the services' code and data. Under /opt/impasse-state: the
# pristine tests restored before grading and the base commit, readable (the agent has both already;
# the harness copies the tests as the workspace's owner), and the starting workspace (seed),
# root-only: the harness's root, which owns it, streams it out when a tmpfs workspace needs it.
ARG BASE
FROM ${BASE}
COPY --chown=1000:1000 repo/ /workspace/
COPY bug.patch /opt/impasse-task/bug.patch
COPY services/ /opt/impasse-task/services/
USER agent
RUN export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
 && cd /workspace && git init -q && git apply /opt/impasse-task/bug.patch \
 && git add -A && git commit -qm "Current state of the project" \
 && git rev-parse HEAD > /tmp/base_commit
USER root
RUN mkdir -p /opt/impasse-state/pristine \
 && cp -a /workspace/tests /opt/impasse-state/pristine/ \
 && for f in conftest.py pytest.ini .pytest.ini pytest.toml .pytest.toml setup.cfg tox.ini pyproject.toml; do \
      if [ -e /workspace/$f ]; then cp -a /workspace/$f /opt/impasse-state/pristine/; fi; done \
 && cp -a /workspace /opt/impasse-state/seed \
 && mv /tmp/base_commit /opt/impasse-state/base_commit && rm /opt/impasse-task/bug.patch \
 && chown -R 0:0 /opt/impasse-task /opt/impasse-state && chmod 700 /opt/impasse-task \
 && chmod -R a+rX,go-w /opt/impasse-state && chmod 700 /opt/impasse-state/seed
