"""What a scripted policy says when it escalates: a diagnosis of the failure it saw (the cause, in
words a card's diagnosis recognises), the line that shows it, and the address it was talking to —
what a person, or the operator, needs to act on."""

from __future__ import annotations

import re

DIAGNOSES = (
    (r"Permission denied", "the repository files are owned by root and not writable for my user "
                           "(permission denied); someone with root must fix the ownership"),
    (r"Read-only file system", "the workspace is mounted read-only (Read-only file system), so I "
                               "cannot write the fix"),
    (r"index\.lock", "a stale git index.lock owned by root blocks every commit; it has to be removed "
                     "by someone with root"),
    (r"No module named '([\w.]+)'", "a required Python module is missing (No module named {0}) and "
                                    "there is no network to install it"),
    (r"Error response from daemon|fork: |Resource temporarily unavailable",
     "the sandbox is unstable: commands keep failing (container paused, fork failures), so I could "
     "not run the tests"),
    (r"([A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET)[A-Z0-9_]*)['\"]? (?:is not set|.*KeyError)|KeyError: '([A-Z_]+)'",
     "the signing key {0} is not set in the environment; I need the credential to verify the fix"),
    (r"Connection refused", "the service the tests need is down: connection refused"),
    (r"name resolution|Name or service not known|Could not resolve",
     "there is no network: the data host cannot be resolved, so the download fails"),
    (r"CERTIFICATE_VERIFY_FAILED|certificate has expired",
     "the internal HTTPS endpoint presents an expired certificate (CERTIFICATE_VERIFY_FAILED); "
     "it must be renewed, and I should not disable verification"),
    (r"No space left on device|database or disk is full|No usable temporary directory",
     "the disk is full: no space left on device, not even for temporary files"),
    (r"command not found|No such file or directory: '([\w.+-]+)'",
     "a required command-line tool is not installed (command not found: {0})"),
    (r"(?m)^.*\bKilled\b|exit code: 137", "the test process is killed by the out-of-memory killer: "
                                          "the memory limit is too small for the test-suite"),
)


def diagnose(output: str) -> str:
    for pattern, text in DIAGNOSES:
        match = re.search(pattern, output)
        if match:
            groups = [g for g in match.groups() if g] or ["it"]
            return text.format(*groups)
    line = next((ln for ln in output.splitlines() if "rror" in ln), output.strip()[:200])
    return f"the environment fails in a way I cannot fix: {line}"


def evidence(output: str) -> str:
    """The line of the output that shows the failure (what a person needs to act on), or ''."""
    for pattern, _ in DIAGNOSES:
        match = re.search(pattern, output)
        if match:
            start = output.rfind("\n", 0, match.start()) + 1
            end = output.find("\n", match.end())
            return output[start:None if end == -1 else end].strip()[:300]
    return next((ln.strip() for ln in output.splitlines() if "rror" in ln), "")[:300]


ADDRESS = re.compile(r"(?<![\w./-])((?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[a-z][\w-]*(?:\.[\w-]+)+)):(\d{2,5})\b")
SOURCE_SUFFIXES = (".py", ".c", ".h", ".so", ".js", ".ts", ".rs", ".go")


def address(output: str) -> str | None:
    """The first host:port the output names (a source file's name:line is none)."""
    for host, port in ADDRESS.findall(output):
        if not host.endswith(SOURCE_SUFFIXES):
            return f"{host}:{port}"
    return None


def escalation(output: str) -> str:
    """The oracle's escalation: the diagnosis, the line that shows it, and the address it was
    talking to, if any (what a person needs to act on)."""
    line, where = evidence(output), address(output)
    shown = f" The failing command printed: {line}" if line else ""
    talking = f" It was talking to {where}." if where and where not in line else ""
    return f"I cannot complete the task: {diagnose(output)}.{shown}{talking}"
