"""How Gemini CLI (0.61.0) and its fork Qwen Code (0.24.4) report a tool's result, read alike by the
runtime (agents/tool_results.py, whose one reader serves both) and the annotator
(analysis/formats/gemini_cli.py, qwen_code.py).

Gemini wraps every result in `<untrusted_context>`; its shell tool says `Output: …` and then, each only
when it applies, `Error:`, `Exit Code:` (only for a status that is not 0), `Signal:`, `Background
PIDs:`, `Process Group PGID:`. Qwen Code writes every line always (`Command:`, `Directory:`, then the
same ones), with `(none)` or `(empty)` where it has nothing."""

from __future__ import annotations

import re

from impasse.dialects.wall import Wall

# Matched leniently (spaces around it, the newlines inside it optional): a relayed request may carry it
# trimmed, and a transcript holds it exact, which this reads the same.
WRAPPER = re.compile(r"\A\s*<untrusted_context>\n?(.*?)\n?</untrusted_context>\s*\Z", re.S)
ESCAPED_CLOSE = ("&lt;/untrusted_context&gt;", "</untrusted_context>")  # how the wrapper escapes its end tag
OUTPUT = "Output: "
SHELL_STARTS = (OUTPUT, "Command: ")  # Gemini's shell result begins with its output, Qwen's with the command
EMPTY, NONE = "(empty)", "(none)"  # the shell tool's words for no output, and for a line with nothing to say
STATUS = re.compile(r"-?\d+")

# Two readings of the trailer lines, on purpose. The runtime takes any of them, by name, in any order
# and with any value: its one reader serves Gemini's optional lines and Qwen's lines that say `(none)`.
TRAILER_LINE = re.compile(r"^(Error|Exit Code|Signal|Background PIDs|Process Group PGID): (.*)$")
# The annotator, held to hand labels, takes Gemini's own lines alone, last first in the order Gemini
# writes them and with the values it writes: a process-level `Error:` stays in the output (no command
# ran, so no status), and a line Gemini would not write (`Exit Code: (none)`) is the output's own.
SHELL_TRAILERS = (re.compile(r"Process Group PGID: \d+"), re.compile(r"Background PIDs: [\d, ]*"),
                  re.compile(r"Signal: .*"), re.compile(r"Exit Code: (-?\d+)"))
PROCESS_ERROR = "Error: "  # the spawn failed: no command ran, so no status

# A command that ended with no status: cancelled, timed out, or moved to the background
TIMED_OUT = "Command was automatically cancelled because it exceeded the timeout"
NO_STATUS = ("Command was cancelled by user", "Command moved to background", TIMED_OUT)
# Their own words for an edit or a write they made (the status they do not give)
DONE = re.compile(r"\A\s*(?:Successfully (?:modified file|created and wrote to new file|overwrote file)"
                  r"|The file: \S.* has been updated\.)")

# Qwen Code's shell result, whole
QWEN_SHELL = re.compile(r"\A(?:Command: .*?\n)?Directory: [^\n]*\nOutput: (?P<output>.*)\nError: (?P<error>[^\n]*)\n"
                        r"Exit Code: (?P<code>[^\n]*)\nSignal: (?P<signal>[^\n]*)\nProcess Group PGID: [^\n]*", re.S)
QWEN_TIMED_OUT = "Command timed out after "
QWEN_NO_STATUS = ("Command was cancelled by user", "Command finished before the background-promote", QWEN_TIMED_OUT)


def unwrap(text: str) -> str:
    """A tool's text without the `<untrusted_context>` wrapper, its escaped end tag given back."""
    found = WRAPPER.match(text)
    return found.group(1).replace(*ESCAPED_CLOSE) if found else text


def status_of(value: str | None) -> int | None:
    """An `Exit Code:` line's value as a number; None for `(none)`, nothing, or anything else."""
    return int(value) if value is not None and STATUS.fullmatch(value) else None


# Headless `--output-format stream-json` keeps, of a tool's result, only what the CLI displays: for the
# shell tool its output, or where there was none, one of these lines (the status no other place keeps)
DISPLAYED_STATUS = re.compile(r"\ACommand exited with code: (-?\d+)\s*\Z")
DISPLAYED_FAILURE = re.compile(r"\ACommand (?:terminated by signal: \S+|failed: .+)\s*\Z", re.S)
DISPLAYED_CANCEL = "Command cancelled by user."
# Its own `info` record when the human pressed Esc on a request still being answered
REQUEST_CANCELLED = "Request cancelled."


# Its own words for a wall: its shell or write tool withheld from the model (an approval mode or excluded
# tools the human set). A tool name the model made up is its own mistake, so only these names count.
WALLS = (
    Wall("chown_root", r'Tool "(?:run_shell_command|write_file|replace)" not found\b',
         "Gemini CLI's own shell or write tool withheld from the model (an approval mode or excluded tools the "
         "human set); a tool name the model made up is its own mistake"),
)
