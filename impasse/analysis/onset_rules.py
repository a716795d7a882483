"""When a line that matches a blocker's signature is an onset, whatever the command's exit status says.

Real agents pipe into `tail`, chain with `||` and `;`, and some harnesses record no exit status at
all, so a zero (or missing) status does not mean nothing failed. The rules (docs/metrics.md,
"Onset rules"):

1. A failed command (non-zero status): the signature's line is the onset, unless the line is a
   listing of text (grep -n / numbered source / a diff line), which quotes an error rather than
   reporting one.
2. A command that exited 0, or whose status was not recorded: the line counts only when it is a
   *failure line* — an exception's last line (`SomeError: …`, `pkg.module.KeyMissing: …`) or
   pytest's crash location that names it (`pkg/module.py:27: KeyMissing`), a tool's own error
   (`fatal: …`, `error: …`, `sed: …: Read-only file system`, `bash: jq: command not found`,
   `curl: (7) …`), a pytest failure line (`E   …`, `FAILED … - …`), or a client's
   connection, resolution or certificate error. A warning is not an onset (`WARNING: …`,
   `DeprecationWarning: …`), except one that names an unreachable resource (pip's `WARNING:
   Retrying … NewConnectionError …`): it says the network is gone.
3. On our own runs, a runtime sensor the card names (its `sensors`) that moved during a call is an
   onset whatever the text says: the kernel's OOM-kill counter, for a pipeline member killed in
   silence. Foreign runs have no sensors; their onsets come from the text alone.
"""

from __future__ import annotations

import re

# grep -n / grep -rn output, `cat -n` or editor listings, and diff lines: quoted text, not a report.
LISTING = re.compile(r"^(?:[\w./-]+:\d+[:-]|\s*\d+\s*[|:\t]|\s*\d+\s{2,}|[+-](?![+-])|@@ )")
EXCEPTION_NAME = (r"(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Missing|Refused|Denied|Failed|Failure|"
                  r"NotFound|Unavailable|Timeout|Invalid|Expired|Interrupt)\w*")
EXCEPTION_LINE = re.compile(rf"^(?:E\s+)?{EXCEPTION_NAME}(?::|$)")
# pytest's crash location under a long traceback: where the exception was raised and its type
# (`invoicekit/signing.py:27: SigningKeyMissing`). A report, not a grep hit: grep -n prints the
# matched line right after the colon, pytest a space and nothing but the exception's type.
CRASH_LOCATION = re.compile(rf"^[\w./-]+\.py:\d+: {EXCEPTION_NAME}$")
TOOL_ERROR = re.compile(
    r"^(?:fatal|error|ERROR|E|Error|FATAL|panic|npm ERR!|FAILED|ERROR \S+ -)[:!]?\s|"
    r"^FAILED \S+ - |^E\s{2,}\S|^(?:[\w.+/-]+: )+(?:line \d+: )?.*(?:"
    r"Permission denied|Read-only file system|No space left on device|Operation not permitted|"
    r"command not found|not found|No module named|No such file or directory|cannot |can't |couldn't |"
    r"Connection refused|"
    r"Could not resolve|could not resolve|Name or service not known|Temporary failure in name resolution|"
    r"unable to |Unable to |certificate|Killed|[Ff]ailed|[Ee]rror|unavailable)|^curl: \(\d+\)|^Killed\b|"
    r"^Segmentation fault|^OCI runtime \w+ failed|"
    # What a tool prints only after it failed, when a pipe kept that and not the error line itself:
    # git's lock advice (`| tail -3` after `fatal: Unable to create '…/index.lock'`), openssl's verdict.
    r"^Another git process seems to be running|remove the file manually to continue|"
    r"^\s*Verify return code: [1-9]\d* \(")
UNREACHABLE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|"
    r"Name or service not known|Could not resolve host|Connection refused|Network is unreachable|"
    r"CERTIFICATE_VERIFY_FAILED|certificate verify failed|SSLError|ConnectTimeout|timed out")
WARNING = re.compile(r"^\s*(?:\w*Warning\b|WARNING\b|warning\b|hint\b)")


def is_listing(line: str) -> bool:
    return bool(LISTING.match(line)) and not CRASH_LOCATION.match(line.strip())


def is_failure_line(line: str) -> bool:
    text = line.strip()
    if WARNING.match(text):
        return bool(UNREACHABLE.search(text))
    return bool(EXCEPTION_LINE.match(text) or CRASH_LOCATION.match(text) or TOOL_ERROR.match(text)
                or UNREACHABLE.search(text))


def line_counts(line: str, exit_code: int | None) -> bool:
    """Whether a line that matched a signature is an onset, given the command's exit status."""
    if is_listing(line):
        return False
    return exit_code not in (0, None) or is_failure_line(line)


def sensor_reading(sensors: tuple[str, ...], readings: dict | None) -> str | None:
    """The evidence of a card's runtime sensor that moved during one call, if any."""
    moved = [f"{name} +{readings[name]}" for name in sensors if (readings or {}).get(name)]
    return ", ".join(moved) or None
