"""cecli's tool results read (cecli 1.10; its tools are declared in impasse/agents/specs/cecli.yaml).

cecli answers every tool call with a JSON object (`{"result": [{"content": …}], "errors": […]}`), and a
command's content with its status first: `Shell command completed within 120s timeout (exit code 0).
Output:\\n…`, `… with exit code 1. Output:\\n…`."""

from __future__ import annotations

import json
import re

STATUS = re.compile(r"\A(?:Shell|Interactive) command [^\n]*?(?:\(exit code (?P<ok>-?\d+)\)|exit code (?P<code>-?\d+))"
                    r"\.(?: Output:\n)?")
STILL_RUNNING = "Command exceeded "  # its timeout passed: the command goes on in the background, no status


def content_of(text: str) -> str:
    """The text of cecli's result object (its contents, then its errors), or the text as it came."""
    try:
        answer = json.loads(text)
    except ValueError:
        return text
    if not isinstance(answer, dict) or not isinstance(answer.get("result"), list):
        return text
    parts = [str(r.get("content", "")) for r in answer["result"] if isinstance(r, dict)]
    parts += [str(e) for e in answer.get("errors") or []]
    return "\n".join(parts)


def cecli_output(text: str) -> tuple[str, int | None]:
    """A result as (output, exit code): a command's output after its status line, the terminal's
    line ends made plain; any other result's text with no code."""
    text = content_of(text).replace("\r\n", "\n")
    found = STATUS.match(text)
    if found is None:
        return text, None
    return text[found.end():], int(found["ok"] if found["ok"] is not None else found["code"])
