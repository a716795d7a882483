# A task: the project's repository with the bug committed as the only commit, owned by `agent`.
# Root-only under /opt/impasse-task: the services' code and data. Readable under /opt/impasse-state
# (nothing secret, and the harness's own setup runs without capabilities, so it must be readable):
# the pristine tests restored before grading, the starting workspace (seed) and the base commit.
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
 && for f in conftest.py pytest.ini setup.cfg tox.ini pyproject.toml; do \
      if [ -e /workspace/$f ]; then cp -a /workspace/$f /opt/impasse-state/pristine/; fi; done \
 && cp -a /workspace /opt/impasse-state/seed \
 && mv /tmp/base_commit /opt/impasse-state/base_commit && rm /opt/impasse-task/bug.patch \
 && chown -R 0:0 /opt/impasse-task /opt/impasse-state && chmod 700 /opt/impasse-task \
 && chmod -R a+rX,go-w /opt/impasse-state
