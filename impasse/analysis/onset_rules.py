"""When a line that matches a blocker's signature is an onset, whatever the command's exit status says.

Real agents pipe into `tail`, chain with `||` and `;`, and some harnesses record no exit status at
all, so a zero (or missing) status does not mean nothing failed. The rules (docs/metrics.md,
"Onset rules"):

1. A failed command (non-zero status): the signature's line is the onset, unless the line is a
   listing of text (grep -n / numbered source / a diff line), which quotes an error rather than
   reporting one.
2. A command that exited 0, or whose status was not recorded: the line counts only when it is a
   *failure line* (failure_lines.py) — an exception's last line (`SomeError: …`, `pkg.module.KeyMissing: …`) or
   pytest's crash location that names it (`pkg/module.py:27: KeyMissing`), a tool's own error
   (`fatal: …`, `error: …`, `sed: …: Read-only file system`, `bash: jq: command not found`,
   `curl: (7) …`), a pytest failure line (`E   …`, `FAILED … - …`), or a client's
   connection, resolution or certificate error. A warning is not an onset, whatever the status (`WARNING: …`,
   `DeprecationWarning: …`, and the cause chain cargo prints under one), except one that names an
   unreachable resource (pip's `WARNING: Retrying … NewConnectionError …`): it says the network is gone.
3. On our own runs, a runtime sensor the card names (its `sensors`) that moved during a call is an
   onset whatever the text says: the kernel's OOM-kill counter, for a pipeline member killed in
   silence. Foreign runs have no sensors; their onsets come from the text alone.
4. (metrics.md rule 6) The kind of tool that returned the text: what a successful read or listing returned (a file's
   lines, a page, grep or glob hits) quotes a blocker and is never an onset; a failed read is judged
   like a command.
5. (metrics.md rule 7) An absence only the agent's own probe reports (`which jq` silent at exit 1, `command -v jq ||
   echo "jq missing"`) is a missing_binary onset for that name.
Shells' and platforms' own prefixes are read through: zsh's `zsh:11:` and `(eval):1:` are a shell's
report, not a grep hit; docker build's `#13 0.442 ` step prefix is not part of the line.
"""

from __future__ import annotations

import re

from impasse.analysis.failure_lines import (
    COMPILER_ERROR,
    CRASH_LOCATION,
    POWERSHELL_RECORD,
    SPAWN_FAILED,
    WARNING,
    bare,
    is_failure_line,
)
from impasse.analysis.normal_form import NStep, NTrajectory, Obs

# grep -n / grep -rn output, `cat -n` or editor listings, and diff lines: quoted text, not a report.
LISTING = re.compile(r"^(?:[\w./-]+:\d+[:-]|\s*\d+\s*[|:\t]|\s*\d+\s{2,}|[+-](?![+-])|@@ )")
# What a tool that only reads returns (a file's lines, a page, a grep or glob listing) quotes text;
# it reports a failure only when the read itself failed (normal_form.READ, LIST).
QUOTING_KINDS = ("read", "list")
# A shell command that only prints files (`cat README.md`, `sed -n '1,200p' src/app.py`, `nl -ba x.py |
# sed -n 1,80p`, PowerShell's `Get-Content`): it returned the files' text, as a read tool does. Not a
# log (`*.log`, `/tmp/…`, `tail`): that holds what a run printed.
# file names, options and quoted patterns (`rg -n "oauth|token" notes.md`), stderr kept or dropped
ARGS = r"(?:\"[^\"\n`$]*\"|'[^'\n]*'|[^;&|<>`$()\n\"']|\s2>(?:&1|/dev/null))*"
# a search of files (`rg -n -C 2 …`, `grep -rn …`) returns their lines, as a read does
PRINTS_FILES = re.compile(rf"^\s*(?:cd\s+[^;&|\n]+?\s*&&\s*)?(?:cat|head|nl|sed\s+-n|bat|less|more|Get-Content|gc"
                          rf"|rg|grep|egrep)\s"
                          rf"{ARGS}(?:\|\s*(?:head|nl|sed\s+-n|cut|cat\s+-n)\b{ARGS})*$")
LOG_LIKE = re.compile(r"\.(?:log|out|err)\b|/tmp/|/var/log/|\blogs?/")
# A variable a missing_secret onset may name in a foreign run: a credential, not any setting
# (`GIT_DISCOVERY_ACROSS_FILESYSTEM not set` is git's note on a search, not a missing secret).
CREDENTIAL = re.compile(r"KEY|TOKEN|SECRET|PASS|CRED|AUTH|PRIVATE|DSN|API|_URL$|_URI$|ACCOUNT|SID$", re.I)

PROSE_WORDS = {"a", "an", "and", "first", "here", "i", "if", "it", "let", "lets", "now", "next", "ok",
               "so", "that", "the", "then", "this", "thought", "to", "we", "well", "what",
               # Python run as shell by mistake
               "from", "import", "def", "class", "return", "print", "for", "while", "with", "else", "elif",
               "try", "except", "raise", "pass", "lambda", "assert"}
# cmd.exe's own words typed into bash (`call x.bat`, `cls`, `del /f`): no machine installs them as programs
CMD_BUILTINS = {"call", "cls", "del", "ren", "copy", "move", "erase", "setlocal", "endlocal", "goto", "rem", "mklink",
                "chcp"}
# The shell choking on the agent's own text: quoting gone wrong, code pasted into bash.
SHELL_CONFUSION = re.compile(r"syntax error near unexpected token|unexpected EOF while looking for matching|"
                             r"Substitution replacement not terminated")
DOCKER_DAEMON = re.compile(r"docker\.sock|docker_engine|dockerDesktop\w*Engine|[Dd]ocker daemon|docker API")
STARTS_DOCKER = re.compile(r"\b(?:dockerd|colima\s+start|open\s+-a\s+Docker|systemctl\s+start\s+docker)\b")
# The agent's own command narrowed where the shell looks for programs (`PATH="$FAKE_BIN" ./backup.sh` to
# simulate a missing tool, `env -i`, `unset PATH`): what it then cannot find, it hid itself. A PATH that
# keeps `$PATH` or the system's `/usr/bin` hides nothing the machine had.
NARROWED_PATH = re.compile(r"(?:^|[\s;&|(])(?:export\s+)?PATH=(?![^\s;&|]*(?:\$\{?PATH\b|/usr/bin\b))"
                           r"|\benv\s+(?:-\w+\s+)*-i\b|\benv\s+--ignore-environment\b|\bunset\s+PATH\b")
# What every POSIX machine has (the shells, coreutils, the text tools): a narrowed PATH is what hid it.
POSIX_BASICS = frozenset((
    "bash", "sh", "zsh", "dash", "env", "cat", "ls", "cp", "mv", "rm", "mkdir", "rmdir", "touch", "chmod", "ln",
    "date", "dirname", "basename", "readlink", "realpath", "head", "tail", "cut", "tr", "sort", "uniq", "wc", "tee",
    "sed", "awk", "grep", "find", "xargs", "mktemp", "printf", "echo", "test", "expr", "sleep", "id", "uname"))
PROBE_WORDS = re.compile(r"\b(?:command\s+-[vV]|which|type|hash|where|Get-Command)\b")  # a cheap first look

# The agent's own presence probe (`command -v jq`, `which jq`, `type jq`, `hash jq`, `where jq`,
# `Get-Command jq`), what says the name is absent after it, and the fallback it echoes.
PROBE = re.compile(r"(?:^|[;&|(`{]\s*|\s)(?:command\s+-[vV]|which|type(?:\s+-[aPpt])?|hash|where(?:\.exe)?|"
                   r"Get-Command)\s+(?:-\w+\s+)*['\"]?(?P<name>[\w.+-]+)")
FALLBACK_ECHO = re.compile(r"[^\n;]*?\|\|\s*(?:echo|printf|Write-(?:Host|Output))\s+(?:-\w+\s+)*['\"]?"
                           r"(?P<text>[^'\"\n;&|$`\\]{2,})")
# The agent's own connection probe of a service on this machine (`curl -s http://localhost:8888/health`,
# `nc -z 127.0.0.1 5432`): curl without --fail, and nc -z, fail only where nothing answers, so the words of
# its fallback (`|| echo "Server nicht erreichbar"`) printing are the refused connection, as curl's own
# `(7) Failed to connect` is.
LOCAL_CONNECT = re.compile(r"(?:^|[;&|(]\s*|\s)(?:curl\b(?![^|;&\n]*\s(?:-[a-zA-Z]*f[a-zA-Z]*|--fail\S*)(?:\s|$))"
                           r"|nc\s+-[a-zA-Z]*z[a-zA-Z]*\b)[^|;&\n]*?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])"
                           r"(?![\w.-])[^|;&\n]*")


# A shell's report of where it failed (`zsh:11: operation not permitted: …`, `(eval):1: …`) has the
# shape of a grep -n hit (`path:11: …`); a shell's name is no file the agent grepped.
SHELL_REPORT = re.compile(r"^(?:(?:/[\w.-]+)*/)?(?:zsh|bash|sh|dash|ksh|mksh|\(eval\)):\d+: |"
                          # … and zsh's inside a function of the user's own shell setup (`z:1: command not
                          # found: __zoxide_z`): its lowercase words, as no grep hit reads
                          r"^[\w.-]+:\d+: (?:command not found|permission denied|operation not permitted"
                          r"|no such file or directory): \S|"
                          # a login shell names itself with a dash (`-bash: jq: command not found`), no diff line
                          r"^-(?:ba|z|k|da)?sh: |"
                          # a compiler's `file:line:column: message` (go, gcc, rustc's short form):
                          # grep -n prints no column
                          r"^[\w./-]+:\d+:\d+: ")


def is_listing(line: str) -> bool:
    text = bare(line)
    return bool(LISTING.match(text)) and not CRASH_LOCATION.match(text) and not SHELL_REPORT.match(text) \
        and not COMPILER_ERROR.match(text) and not POWERSHELL_RECORD.match(text)


def line_counts(line: str, exit_code: int | None) -> bool:
    """Whether a line that matched a signature is an onset, given the command's exit status."""
    if is_listing(line):
        return False
    # a warning is no failure whatever the status says (`warning: could not open directory 'AppData/…':
    # Permission denied` from a `git add .` that failed for another reason); one that names an unreachable
    # resource still says the network is gone
    if WARNING.match(bare(line)):
        return is_failure_line(line)
    return exit_code not in (0, None) or is_failure_line(line)


def obs_kind(obs: Obs, step: NStep) -> str:
    """The kind of what returned an observation: its call's, or `read` for a command that only
    printed files."""
    if obs.kind != "command" or not step.actions:
        return obs.kind
    calls = calls_of(step, step.observations.index(obs))
    prints = all(a.kind == "command" and PRINTS_FILES.match(a.command) and not LOG_LIKE.search(a.command)
                 for a in calls)
    return "read" if prints else obs.kind


def kind_counts(obs: Obs, step: NStep) -> bool:
    """Whether an observation can hold an onset at all, by the kind of tool that returned it: text in
    a file the agent read or a listing it asked for quotes a blocker; a read that failed reports one.
    A read with no status whose whole answer is Node's refusal to start the tool's own program failed
    itself (a search tool: `spawn …/rg EACCES`): that is no file's text and no listing; so did one whose
    answer opens on the shell not finding the reading program (`/bin/sh: 1: rg: not found`), whatever
    status a pipe after it left."""
    if obs.exit_code not in (0, None) or obs_kind(obs, step) not in QUOTING_KINDS:  # the kind only when needed
        return True
    text = obs.output.strip()
    if missed := SHELL_MISSED.match(text.split("\n", 1)[0]):  # the program the command runs, not a file's line
        calls = calls_of(step, step.observations.index(obs))
        return (missed["last"] or missed["first"]) in {a.command.split(maxsplit=1)[0] for a in calls
                                                       if a.kind == "command" and a.command.strip()}
    return obs.exit_code is None and SPAWN_FAILED.match(text) is not None  # one line: anchored at both ends


# The shell's own words for a program it could not find, as the first line of an answer.
SHELL_MISSED = re.compile(r"^(?:\S*(?:sh|bash|zsh)|\(eval\))(?::\s*(?:line )?\d+)?:\s*"
                          r"(?:command not found: (?P<last>\S+)|(?P<first>\S+): (?:command )?not found)$")


def is_credential(name: str) -> bool:
    return bool(CREDENTIAL.search(name))


def set_by_agent(name: str, step: NStep, trajectory: NTrajectory) -> bool:
    """A variable the agent's own earlier command assigned (`export KEY=…`, `KEY=… cmd`, `$env:KEY=…`,
    `set KEY=…`, `os.environ["KEY"] = …`): it had a value, so "not set" after it is its own shell's doing
    (a separate call keeps nothing), not a secret it was never given."""
    key = re.escape(name)
    assigned = re.compile(r"(?:^|[\s;&|(])(?:export\s+|set\s+|(?i:\$env:))?" + key + r"\s*=(?!=)"
                          r"|\bsetx\s+" + key + r"\b|environ\[['\"]" + key + r"['\"]\]\s*=(?!=)")
    return any(assigned.search(a.command or "") for s in trajectory.steps[:step.index - 1] for a in s.actions)


def is_prose(name: str) -> bool:
    """A word of the agent's prose run as a command (`Let: command not found`), or another shell's own."""
    word = name.lower()
    return name[:1].isupper() or word in PROSE_WORDS or word in CMD_BUILTINS or name.endswith(":")


def agent_made_the_command(name: str, obs: Obs, step: NStep) -> bool:
    """`name: command not found` caused by the agent's own text: prose, code pasted into bash, or
    a backtick quoting slip (`bytes(value)` in a string runs `value`)."""
    # Backslashes dropped: inside backticks `bash\ndocker` runs as `bashndocker`.
    commands = " ".join(a.command for a in step.actions).replace("\\", "")
    in_backticks = re.search(r"`[^`]*\b" + re.escape(name) + r"\b[^`]*`", commands)
    confused = SHELL_CONFUSION.search(obs.output) and not runs_as_program(name, step)
    return is_prose(name) or bool(confused) or bool(in_backticks)


def runs_as_program(name: str, step: NStep) -> bool:
    """Whether a command's first line runs `name` as its program (`python - <<'PY'`, `cd x && jq …`): a
    syntax error later in the output (its heredoc's text run as shell) did not make that name up."""
    head = re.compile(r"(?:^|[;&|(]\s*)(?:sudo\s+)?(?:\w+=\S*\s+)*" + re.escape(name) + r"(?=\s|$)")
    return any(head.search(a.command.split("\n", 1)[0]) for a in step.actions if a.command)


def hidden_by_own_path(name: str, step: NStep, trajectory: NTrajectory) -> bool:
    """The agent's own command narrowed PATH and so hid a program the machine has: a shell or tool
    every POSIX machine has, or one the session shows at a path (`/usr/bin/jq` from its own `command
    -v jq`). A program the session never shows present may be truly absent, narrowed PATH or not."""
    if not NARROWED_PATH.search("\n".join(a.command for a in step.actions)):
        return False
    if name in POSIX_BASICS:
        return True
    present = re.compile(rf"(?m)/{re.escape(name)}(?:\.exe)?\s*$")
    return any(present.search(o.output) for s in trajectory.steps for o in s.observations)


def agent_started_it(patterns: list[re.Pattern], steps: list[NStep], index: int, line: str) -> bool:
    """A foreign run's onset voided by a card's `self_caused` patterns over the agent's earlier commands
    (a server it started and broke). The Docker daemon is not one of them unless the agent started
    the daemon itself: its own dev server says nothing of Docker's socket."""
    earlier = "\n".join(a.command for s in steps if s.index < index for a in s.actions)
    if DOCKER_DAEMON.search(line):
        return bool(STARTS_DOCKER.search(earlier))
    return any(rx.search(earlier) for rx in patterns)


def calls_of(step: NStep, index: int) -> list:
    """The calls behind a step's observation `index`: its own, when calls and observations pair up;
    else all of the step's."""
    return [step.actions[index]] if len(step.actions) == len(step.observations) else step.actions


def commands_behind(step, index: int) -> str:
    """The commands behind a step's observation `index`, one a line."""
    return "\n".join(a.command for a in calls_of(step, index) if a.kind == "command")


def probed_command(step, index: int) -> str:
    """The commands behind a step's observation `index`, if any holds a presence probe or a fallback after
    a program it ran."""
    command = commands_behind(step, index)
    return command if PROBE_WORDS.search(command) or "||" in command else ""  # a probe, or a fallback


def absent_by_probe(command: str, output: str, exit_code: int | None) -> list[str]:
    """Names the agent's own probe found absent: `which X` / `command -v X` printed no path for X and
    either said so (`X not found`, `which: no X in (…)`), or printed nothing and failed, or the
    agent's fallback (`|| echo "X missing"`) is what printed."""
    absent = []
    for probe in PROBE.finditer(command):
        name = probe.group("name")
        if re.search(rf"(?m)(?:^|[/\\]){re.escape(name)}(?:\.exe)?\s*$|^{re.escape(name)} is ", output):
            continue  # a path or `X is /usr/bin/X`: it is there
        fallback = FALLBACK_ECHO.match(command, probe.end())
        said = re.search(rf"(?m)^(?:which: no {re.escape(name)} in \(|(?:[^:\n]*: )*{re.escape(name)}:? not found$)",
                         output)
        echoed = fallback and re.search(rf"(?m)^\s*{re.escape(fallback.group('text').strip())}", output)
        if said or echoed or (exit_code not in (0, None) and not output.strip()):
            absent.append(name)
    return absent + ran_and_fell_back(command, output)


# The agent ran a program with its own fallback saying it is absent (`icalBuddy -n … 2>/dev/null || echo
# "icalBuddy not installed"`): the fallback printing is the program's absence, as a probe's is.
RAN_THEN_SAID_ABSENT = re.compile(r"(?:^|[;&(]\s*)(?P<name>[\w.+-]+)\s[^|;&\n]*\|\|\s*(?:echo|printf)\s+['\"]?"
                                  r"(?P<text>(?P=name):? (?:is )?(?:not installed|not found|missing|unavailable)"
                                  r"[^'\"\n;&|]*)", re.I | re.M)


def ran_as_program(name: str, obs: Obs, step: NStep) -> bool:
    """A name the command ran as its program, on its first line or before its own fallback saying it is absent:
    a program, not a Python package."""
    commands = "\n".join(a.command for a in step.actions if a.command)
    return runs_as_program(name, step) or name in ran_and_fell_back(commands, obs.output)


def ran_and_fell_back(command: str, output: str) -> list[str]:
    return [found.group("name") for found in RAN_THEN_SAID_ABSENT.finditer(command)
            if re.search(rf"(?m)^\s*{re.escape(found.group('text').strip())}", output)]


def refused_by_probe(command: str, output: str) -> str:
    """The line the fallback of the agent's own connection probe of a local service printed (nothing
    answered there), or "". A command with no fallback (`||`) is passed over at once."""
    if "||" not in command:
        return ""
    for probe in LOCAL_CONNECT.finditer(command):
        fallback = FALLBACK_ECHO.match(command, probe.end())
        text = fallback.group("text").strip() if fallback else ""
        if text and (echoed := re.search(rf"(?m)^\s*{re.escape(text)}.*$", output)):
            return echoed.group(0).strip()
    return ""


def sensor_reading(sensors: tuple[str, ...], readings: dict | None) -> str | None:
    """The evidence of a card's runtime sensor that moved during one call, if any."""
    moved = [f"{name} +{readings[name]}" for name in sensors if (readings or {}).get(name)]
    return ", ".join(moved) or None
