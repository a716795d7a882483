# The base every task image stands on: a Debian bookworm rootfs (debootstrap + docker import, or a
# registry image), a user `agent` (uid 1000) with a home, /workspace, and the in-container harness.
ARG ROOTFS
FROM ${ROOTFS}
ENV TZ=UTC PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 LANG=C.UTF-8 PAGER=cat GIT_PAGER=cat
COPY base-setup.sh make-pki.sh rootfs-packages.txt /tmp/impasse-setup/
RUN sh /tmp/impasse-setup/base-setup.sh && sh /tmp/impasse-setup/make-pki.sh && rm -rf /tmp/impasse-setup
COPY harness/ /opt/impasse/
RUN chmod -R a+rX,go-w /opt/impasse && chown -R 0:0 /opt/impasse
WORKDIR /workspace
