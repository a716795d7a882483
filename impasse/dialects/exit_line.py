"""A command's exit code on a line of its own, for an agent that shows the model a command's output
and never its code (opencode). A scripted policy reads the code, so its commands run in a subshell
followed by one line that prints it; the relay reads the code from that line and takes the line
away (a provider's model runs its commands as it wrote them, and its results keep no code)."""

from __future__ import annotations

import re

EXIT_LINE = re.compile(r"\n?\[impasse: exit (-?\d+)\]\n?\Z")
WRAPPED = re.compile(r"\A\(\n(.*)\n\)\nprintf '\\n\[impasse: exit %d\]\\n' \$\?\Z", re.S)


def with_exit_line(command: str) -> str:
    return f"(\n{command}\n)\nprintf '\\n[impasse: exit %d]\\n' $?"


def unwrapped(command: str) -> str:
    """A command as the policy wrote it, without the exit line impasse put around it (the agent's
    transcript shows the command as the agent ran it)."""
    found = WRAPPED.match(command)
    return found.group(1) if found else command


def exit_code_of(text: str) -> tuple[str, int] | None:
    """A result's text without impasse's last line, and the code it gives (None: no such line)."""
    found = EXIT_LINE.search(text)
    return (text[:found.start()], int(found.group(1))) if found else None


def without_exit_line(text: str) -> str:
    read = exit_code_of(text)
    return read[0] if read else text
