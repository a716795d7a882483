"""How Google Antigravity reports a tool's result: each result record's text starts with when the
step was made and done (`Created At: …`, `Completed At: …`); its run_command tool then says how the
command ended, indented, before the output (`The command failed with exit code: 1`, in later versions
`The command exited with code 127.`, `The command completed successfully.`), or that the command goes
on in the background as a task; a step the agent could not carry out says `Encountered error in step
execution: …`, a person declining among them (`user denied permission for command(…)`)."""

from __future__ import annotations

import re

STAMPS = re.compile(r"\A(?:(?:Created|Completed) At: [^\n]*\n)+")
COMMAND_STATUS = re.compile(r"\A\s*The command (?:(?:failed with exit code: |exited with code )(?P<code>-?\d+)"
                            r"|completed successfully)\.?"
                            r"\s*\n\s*Output:[ \t]*\n?")
BACKGROUND = re.compile(r"\A\s*Tool is running as a background task\b")
STEP_ERROR = re.compile(r"\A\s*Encountered error in step execution:")


def result_text(content: str) -> str:
    """A result record's text without its time stamps."""
    return STAMPS.sub("", content or "", count=1)


def command_result(text: str) -> tuple[str, int | None] | None:
    """A run_command result as (output, exit code); None where it says no status (a background task,
    an error of the step)."""
    found = COMMAND_STATUS.match(text)
    if found is None:
        return None
    output = "\n".join(line.removeprefix("\t\t\t\t") for line in text[found.end():].split("\n"))
    return output.replace("\r\n", "\n"), int(found["code"]) if found["code"] is not None else 0
