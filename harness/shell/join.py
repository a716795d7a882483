"""Run by harness/shell/bash_env.sh in the agent's shell, before its command: asks the host (the
socket in $IMPASSE_COMMANDS_SOCKET) to move this process and its parent, the shell, into the cgroup
of the agent's commands, and waits until they are in. Then one fork, as the shell's first command
would: where the process table is held full the kernel refuses it, and the shell stops with bash's
own words and status for a refused fork (without bash's 15 s of retries). Stdlib only, python3.11."""

import os
import socket
import sys

HARNESS_FAILED = 125  # the harness could not put the command where it belongs: it did not run
FORK_REFUSED = 254  # bash's status when its fork is refused


def main() -> int:
    path = os.environ.get("IMPASSE_COMMANDS_SOCKET", "")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(path)
            answer = conn.makefile("r").readline().strip()
    except OSError as err:
        answer = f"error: {err}"
    if answer != "ok":
        print(f"impasse: the command could not join its cgroup: {answer}", file=sys.stderr)
        return HARNESS_FAILED
    try:
        child = os.fork()
    except OSError as err:
        print(f"bash: fork: {err.strerror}", file=sys.stderr)
        return FORK_REFUSED
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
