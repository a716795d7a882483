"""What a tool prints when it failed: the lines that report a failure whatever the command's exit status
says (onset_rules.py rule 2). An exception's last line, a tool's own error line in each shell's, platform's
and runtime's words, a compiler's diagnostic, a client that cannot reach what it needs; a warning is none,
but for one that names an unreachable resource."""

from __future__ import annotations

import re

from impasse.dialects.harness_walls import ALL_WALLS

EXCEPTION_NAME = (r"(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Missing|Refused|Denied|Failed|Failure|"
                  r"NotFound|Unavailable|Timeout|Invalid|Expired|Interrupt)\w*")
# Java chains the cause under `Caused by: `: the line names the exception all the same.
EXCEPTION_LINE = re.compile(rf"^(?:E\s+|Caused by: )?{EXCEPTION_NAME}(?::|$)")
# pytest's crash location under a long traceback: where the exception was raised and its type
# (`invoicekit/signing.py:27: SigningKeyMissing`). A report, not a grep hit: grep -n prints the
# matched line right after the colon, pytest a space and nothing but the exception's type.
CRASH_LOCATION = re.compile(rf"^[\w./-]+\.py:\d+: {EXCEPTION_NAME}$")
# A shell's own prefix before its message: bash's `bash: line 1: `, dash's `/bin/sh: 1: `, zsh's
# `zsh:11: ` and `(eval):1: ` (Claude Code runs commands through zsh's eval on macOS); a script's path
# before them may hold spaces (`/c/Users/Jo Doe/.claude/status.sh: line 4: `, a Windows or macOS home).
SHELL_PREFIX = r"(?:(?:[\w.+~-][\w.+/~-]*|/[^:\n]+|\(eval\))(?::\d+)?: )+(?:line \d+: )?"  # one reading a segment
# PowerShell's error record under its message, the same in every language of Windows (`+ CategoryInfo
# : ObjectNotFound: (sed:String) [], CommandNotFoundException`): a failure, though a diff's added line looks alike.
POWERSHELL_RECORD = re.compile(r"^\+ (?:CategoryInfo|FullyQualifiedErrorId) +: ")
NODE_SPAWN = r"spawn \S+ E[A-Z]{3,}"  # Node's error when a program cannot be started
TOOL_ERROR = re.compile(
    r"^(?:fatal|error|ERROR|E|Error|FATAL|panic|npm ERR!|npm error|ERR_PNPM_[A-Z_]+|FAILED|ERROR \S+ -)[:!]?\s|"
    rf"^FAILED \S+ - |^E\s{{2,}}\S|^{SHELL_PREFIX}.*(?:"
    r"Permission denied|Read-only file system|No space left on device|Operation not permitted|"
    r"permission denied|read-only file system|operation not permitted|"
    r"command not found|not found|No module named|No such file or directory|[Cc]annot |can't |couldn't |"
    r"Connection refused|"
    r"Could not resolve|could not resolve|Name or service not known|Temporary failure in name resolution|"
    r"unable to |Unable to |certificate|Killed|killed|[Ff]ailed|[Ee]rror|unavailable)|^curl: \(\d+\)|^Killed\b|"
    r"^Segmentation fault|^OCI runtime \w+ failed|"
    # Node's own system errors, libuv's errno code first, the call a tool wrapped before it where it
    # did: `EROFS: read-only file system, open '…'`, `atomicWriteFile("…"): ENOSPC: no space left on
    # device, write` (Qwen Code's and Gemini CLI's edits).
    r"^(?:[\w.$]+\([^\n]*\): )?E[A-Z]{3,}: [a-z][a-z -]+, \w+\b|"
    # Node could not start a program at all (`spawn …/rg EACCES`, `spawn jq ENOENT`).
    rf"^(?:Error: )?{NODE_SPAWN}$|"
    # What a tool prints only after it failed, when a pipe kept that and not the error line itself:
    # git's lock advice (`| tail -3` after `fatal: Unable to create '…/index.lock'`), openssl's verdict.
    r"^Another git process seems to be running|remove the file manually to continue|"
    r"^\s*Verify return code: [1-9]\d* \(|"
    # Other platforms' own failure lines: PowerShell's and cmd's unknown command, Windows' denied
    # access and blocked scripts, an agent's own sandbox and runner (Codex: `execution error: …`,
    # `exec_command failed for …`, `exec_command failed: SandboxDenied { … }`; WSL's relay), a daemon or server
    # that cannot be reached.
    r"^[\w.+-]+ : The term '[^'\n]+' is not recognized as (?:the|a) name of a cmdlet|"
    rf"{POWERSHELL_RECORD.pattern}|"
    r"^'[^'\n]+' is not recognized as an internal or external command|"
    r"^Access is denied|^Access to the path .* is denied|^.*running scripts is disabled on this system|"
    r"^execution error: |^exec_command failed(?: for |: )|^failed in sandbox: |^.*\bSandbox\(Denied\b|"
    r"^(?:<\d>)?WSL \([^)\n]*\) ERROR: |"
    r"^(?:[Ff]ailed to connect to|[Cc]annot connect to|[Cc]ould not connect to|[Uu]nable to connect to|"
    r"error during connect: |permission denied while trying to connect to)|"
    # A tool saying that what it needs is not there (`streamlit not installed`, zsh's `which`:
    # `jq not found`, Prisma's `Please manually install OpenSSL …`).
    r"^[\w.+@/-]+ (?:is )?not (?:installed|found)\b|^Please (?:manually )?install \S|"
    # Build tools' bracketed levels (Maven's `[ERROR] Failed to execute goal …`); a program PowerShell
    # may not start; what was not made (`The virtual environment was not created successfully because
    # ensurepip is not available`).
    r"^\[(?:ERROR|FATAL)\] |^Program '[^'\n]+' failed to run: |"
    # … and in the other languages Windows speaks (French, German, Spanish, Portuguese, Italian)
    r"^(?:Le programme|Das Programm|El programa|O programa|Il programma) [«\"'“]?\s?[^\n]{1,200}?(?:n[’']a pas pu"
    r"|konnte nicht|no se pudo|não pôde|non è stato possibile)|"
    # Rust's error chain (anyhow, uv, cargo): the cause under `error: …`, where the refusal is named
    r"^Caused by: |"
    # GLib's own log line for an error (gsettings, dconf, GTK programs): `(process:2): dconf-CRITICAL **: …`
    r"^\([^()\s]+:\d+\): [\w.-]+-(?:CRITICAL|ERROR) \*\*: |"
    r"^.*\bwas not created successfully\b|"
    # A harness's own policy holding a command for an approval that never came (each agent's own words for
    # its refusals are its dialect's walls, below).
    r"^(?:[Ee]xec|[Cc]ommand|[Tt]ool) approval is required\b|"
    # A login tool's own verdict that there is none (`gh auth status | head` exits 0): `You are not
    # logged into any GitHub hosts`, `Not logged in`.
    r"^(?:You(?: are|'re) )?[Nn]ot (?:currently )?(?:logged|signed) in(?:to)?\b|"
    # … or its instruction to log in first (`To get started with GitHub CLI, please run:  gh auth login`)
    r"^(?:To get started with [^,\n]+, )?[Pp]lease run:?\s+['`\"]?[\w.-]+(?: auth)? login\b|"
    # A check's table row that failed (`FAIL scanpy  ModuleNotFoundError: …`, `✗ jq`, `[MISSING] ffmpeg`).
    # A CLI's own error glyph before its message (Next.js's `⨯ Unable to acquire lock …`, ESLint's `✖`).
    r"^(?:FAIL|MISSING|\u2717|\u2718|\u274c|\u2a2f|\u2716|\[(?:FAIL|FAILED|MISSING|ERROR|X|\u2717|\u2718)\])\s|"
    # A tool's structured result that says it failed (an MCP server's `{"status":"error","error":…}`,
    # `{"ok": false, …}`, `{"error": "…"}`): the call failed, whatever the harness's status.
    r'^\{\s*"(?:status|state)"\s*:\s*"(?:error|failed|failure)"|^\{\s*"(?:ok|success)"\s*:\s*false\b|'
    # … and any key that names an error (`{"network_error": "URLError", "message": …}`, a script's own report)
    # … its key on a line of its own where the object is printed pretty (`  "error": "No API key found …",`)
    r'^(?:\{\s*)?"(?:[a-z]+_)?(?:error|isError)"\s*:(?!\s*(?:null\b|false\b|""|\{\}|\[\]))|'
    # The word for error opening a tool's message in the other languages it prints in (`Erreur lors du
    # chargement …: connect ECONNREFUSED …`, `Fehler: …`, `错误：…`)
    r"^(?:Erreur|Fehler|Errore|Erro|Ошибка|Помилка|Hata|Błąd|Lỗi|错误|錯誤|エラー|오류)\b[^\n]{0,80}?[:：]")
UNREACHABLE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|"
    r"Name or service not known|Could not resolve host|Connection refused|Network is unreachable|"
    r"CERTIFICATE_VERIFY_FAILED|certificate verify failed|SSLError|ConnectTimeout|timed out|"
    # cargo's and npm's own retries: `warning: spurious network error (3 tries remaining): [6] Couldn't
    # resolve host name`, `npm WARN … getaddrinfo EAI_AGAIN registry.npmjs.org`
    r"spurious network error|Couldn't resolve host|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|"
    r"nodename nor servname provided|No such host is known|"
    # … and the same failures as Node's and libc's error codes (`connect ECONNREFUSED 127.0.0.1:3307`)
    r"\b(?:ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOTFOUND)\b|"
    r"temporary error \(try again later\)|DNS lookup error")  # apk: `WARNING: fetching …: temporary error …`
SPAWN_FAILED = re.compile(rf"^(?:Error: )?{NODE_SPAWN}$")  # Node could not start the tool's program
WARNING = re.compile(r"^\s*(?:\w*Warning\b|WARNING\b|warning\b|hint\b)")
# docker build's (BuildKit's) prefix on every line a build step prints: `#13 0.442 `.
BUILD_STEP = re.compile(r"^#\d+ \d+\.\d+ ")


def bare(line: str) -> str:
    return BUILD_STEP.sub("", line.strip(), count=1)


# A compiler's diagnostic, where it says error: tsc's and MSBuild's `file(line,col): error TS2307: …` (tsc's
# pretty `file:line:col - error TS2307: …`), gcc's, clang's and go's `file:line:col: fatal error: …`. A
# build piped into head exits 0.
COMPILER_ERROR = re.compile(r"^[\w./\\:-]+(?:\(\d+,\d+\)|:\d+:\d+)(?::| -) (?:fatal )?error(?: [A-Z]+\d+)?: ")


# An agent's harness refusing a call in its own words (its permission mode, its sandbox: dialects' walls) says
# the call failed, whatever status it recorded.
HARNESS_REFUSALS = tuple(re.compile(wall.pattern, re.M) for wall in ALL_WALLS)


def is_failure_line(line: str) -> bool:
    text = bare(line)
    if WARNING.match(text):
        return bool(UNREACHABLE.search(text))
    return bool(EXCEPTION_LINE.match(text) or CRASH_LOCATION.match(text) or TOOL_ERROR.match(text)
                or COMPILER_ERROR.match(text) or UNREACHABLE.search(text)
                or any(refusal.search(text) for refusal in HARNESS_REFUSALS))


# A cause chain printed under a warning (cargo's and anyhow's: `warning: failed to auto-clean cache data`, a
# context line, then `Caused by:` blocks down to `  Access is denied. (os error 5)`) is the warning's, whatever
# the command's status: the run went on past it.
CAUSED_BY = re.compile(r"^\s*Caused by:\s*$")
HEADER = re.compile(r"^(?:error|fatal|warning)\b", re.I)
CHAIN_REACH = 30  # lines looked back for the chain's head


def in_a_warnings_chain(text: str, start: int) -> bool:
    if "Caused by:" not in text:  # no chain at all: the common case, one search
        return False
    chained = False
    for line in reversed(text[:text.rfind("\n", 0, start) + 1].splitlines()[-CHAIN_REACH:]):
        if CAUSED_BY.match(line):
            chained = True
        elif HEADER.match(line):
            return chained and WARNING.match(line) is not None
    return False
