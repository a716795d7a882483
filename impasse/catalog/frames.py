"""Text a card's signatures are matched on, with the frames other tools put around a line taken off."""

import re

# A build tool's frame before each line it relays: Docker BuildKit's plain progress puts the build
# step's number and the seconds since it began ("#12 3.456 npm error code EACCES"; the error summary
# keeps the seconds alone). The tool's own line follows unchanged, so the cards' patterns, anchored at
# a line's start, are matched on the line without it.
# A harness that relays a background command's output tags each line with the stream it came on
# ("[stderr] ./scripts/start.sh: line 45: uv: command not found", Claude Code's task output).
FRAME = re.compile(r"(?m)^(?:#\d+ \d+\.\d+|#\d+|\d+\.\d+|\[std(?:err|out)\]) (?=.)")


def unframed(output: str) -> str:
    return FRAME.sub("", output)
