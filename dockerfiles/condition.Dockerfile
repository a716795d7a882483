# A blocker condition that must be built into the image (e.g. removing a package or a binary).
ARG BASE
FROM ${BASE}
ARG IMPASSE_PYTHON_PACKAGES=""
ARG IMPASSE_BINARIES=""
COPY build.sh /tmp/impasse-condition-build.sh
RUN sh -eu /tmp/impasse-condition-build.sh && rm /tmp/impasse-condition-build.sh
