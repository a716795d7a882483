#!/bin/sh
# Runs as root while the base image builds. Idempotent over both base sources: a debootstrap rootfs
# already carries every package; a registry image gets what is missing from apt.
set -eu
here=$(dirname "$0")
wanted=$(grep -v '^\s*#' "$here/rootfs-packages.txt" | tr '\n' ' ')
missing=""
for pkg in $wanted; do dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"; done
if [ -n "$missing" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
  rm -rf /var/lib/apt/lists/*
fi
# One interpreter on both base sources: a registry python image shadows Debian's python3 (which
# owns pytest and the task packages) from /usr/local/bin; drop the shadow so results do not differ.
rm -f /usr/local/bin/python3 /usr/local/bin/python
# No sudo, ever: the agent must not have a legitimate way to become root.
if command -v sudo >/dev/null 2>&1; then echo "sudo must not be in the base image" >&2; exit 1; fi
id -u agent >/dev/null 2>&1 || useradd -u 1000 -m -s /bin/bash agent
mkdir -p /workspace /opt/impasse && chown agent:agent /workspace
git config --system --add safe.directory /workspace
git config --system user.name "agent"
git config --system user.email "agent@impasse.invalid"
git config --system init.defaultBranch main
git config --system advice.detachedHead false
ln -sf /usr/share/zoneinfo/UTC /etc/localtime
