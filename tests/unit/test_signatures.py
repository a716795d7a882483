"""Each card's signatures against verbatim error text real tools print (Debian bookworm), and
against healthy output that must not look like an onset."""

from pathlib import Path

import pytest
import yaml

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.driver import annotate_auto
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.analysis.onsets import signature_match
from impasse.catalog.cards import Injected, get_card, load_cards
from impasse.catalog.frames import unframed
from impasse.vocabulary import Tool

INJECTED = Injected(python_packages=("yaml",), binaries=("jq",), secrets=("INVOICE_SIGNING_KEY",))

POSITIVE = {
    "chown_root": [
        "PermissionError: [Errno 13] Permission denied: '/workspace/invoicekit/models.py'",
        "PermissionDenied: FileSystem.writeFile (/workspace/invoicekit/models.py)",  # opencode's edit (Bun, Effect)
        "bash: line 1: invoicekit/models.py: Permission denied",
        "touch: cannot touch 'notes.txt': Permission denied",
        "sed: couldn't open temporary file ./sedAb12Cd: Permission denied",
        "fatal: Unable to create '/workspace/.git/index.lock': Permission denied",
        "chmod: changing permissions of 'invoicekit': Operation not permitted",
        # Rust tools' error chain (uv, cargo): the refusal is on the cause's line under `error: …`
        "  Caused by: failed to open file `/home/dev/.cache/uv/sdists-v9/.git`: Permission denied (os error 13)",
        # PowerShell's refused program in a French Windows
        "Le programme « rg.exe » n’a pas pu s’exécuter : Accès refuséAu caractère Ligne:2 : 1",
    ],
    "read_only_fs": [
        # Qwen Code's edit: its write of a temporary file beside the file, in Node's words
        "atomicWriteFile(\"/workspace/invoicekit/models.py\"): EROFS: read-only file system, "
        "open '/workspace/invoicekit/models.py.027643499763.tmp'",
        "OSError: [Errno 30] Read-only file system: '/workspace/feedsync/rates.py'",
        "bash: line 1: feedsync/rates.py: Read-only file system",
        "touch: cannot touch 'x': Read-only file system",
        "fatal: Unable to create '/workspace/.git/index.lock': Read-only file system",
    ],
    "removed_dependency": [
        "E   ModuleNotFoundError: No module named 'yaml'",
        "ERROR: Could not find a version that satisfies the requirement pyyaml (from versions: none)",
        "ERROR: No matching distribution found for pyyaml",
    ],
    "flaky_sandbox": [
        "Error response from daemon: Container 3f2a is paused, unpause the container before exec",
        "bash: fork: retry: Resource temporarily unavailable",
        "BlockingIOError: [Errno 11] Resource temporarily unavailable",
        "OCI runtime exec failed: exec failed: unable to start container process: exec: \"x\": not found",
    ],
    "missing_secret": [
        "E   KeyError: 'INVOICE_SIGNING_KEY'",
        "invoicekit.signing.SigningKeyMissing: INVOICE_SIGNING_KEY is not set; exports cannot be signed",
        "invoicekit/signing.py:27: SigningKeyMissing",  # pytest's crash location, under `| tail`
        "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
    ],
    "service_down": [
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "urllib.error.URLError: <urlopen error [Errno 111] Connection refused>",
        "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
        # pytest's report cut short: the crash location, a summary line cut at the terminal width
        "/usr/lib/python3.11/urllib/request.py:1351: URLError",
        "FAILED tests/test_catalog.py::test_service_is_healthy - urllib.error.URLError...",
    ],
    "network_down_download": [
        "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>",
        "socket.gaierror: [Errno -2] Name or service not known",
        "curl: (6) Could not resolve host: data.impasse.test",
        "/usr/lib/python3.11/urllib/request.py:1351: URLError",
        "FAILED tests/test_upstreams.py::test_published_rates_convert_dollars - urllib.error.URLError: <urlopen...",
        # a sandbox that refuses every socket, the host's own ports too (macOS's and Codex's sandboxes)
        "      Error: connect EPERM 127.0.0.1:80 - Local (0.0.0.0:0)",
        "urllib.error.URLError: <urlopen error [Errno 1] Operation not permitted>",
    ],
    "git_index_lock": [
        "fatal: Unable to create '/workspace/.git/index.lock': File exists.",
        "rm: cannot remove '.git/index.lock': Permission denied",
        "error: insufficient permission for adding an object to repository database .git/objects",
    ],
    "disk_full": [
        "atomicWriteFile(\"/workspace/invoicekit/models.py\"): ENOSPC: no space left on device, write",
        "OSError: [Errno 28] No space left on device",
        "sqlite3.OperationalError: database or disk is full",
        "FileNotFoundError: [Errno 2] No usable temporary directory found in ['/tmp', '/var/tmp']",
        "fatal: sha1 file '/workspace/.git/index.lock' write error. Out of diskspace",
    ],
    "missing_binary": [
        "bash: line 1: jq: command not found",
        "/bin/sh: 1: jq: not found",
        "FileNotFoundError: [Errno 2] No such file or directory: 'jq'",
        "/usr/lib/python3.11/subprocess.py:1901: FileNotFoundError",
        "FAILED tests/test_jq.py::test_jq_is_available - FileNotFoundError: [Errno 2] ...",
    ],
    "tls_cert_invalid": [
        "<urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired "
        "(_ssl.c:992)>",
        "curl: (60) SSL certificate problem: certificate has expired",
        "/usr/lib/python3.11/urllib/request.py:1351: URLError",
        "ERROR tests/test_sync.py::test_feed_prices - urllib.error.URLError: <urlopen ...",
    ],
    "oom_kill": [
        "bash: line 1:    57 Killed                  python3 -m pytest -q",
        "Killed",
        "MemoryError",
    ],
}

HEALTHY = [
    "===== 33 passed in 0.12s =====",
    "total 12\ndrwxr-xr-x 5 agent agent 4096 .",
    "diff --git a/x.py b/x.py",
    "ModuleNotFoundError: No module named 'invoicekit'",  # the project's own package, not removed
    "bash: line 1: git-lfs: command not found",  # not the binary that was taken away
    "KeyError: 'sku'",
    "/usr/bin/python3: No module named pip",  # pip is absent in every condition, the control included
]


def trajectory(output: str, exit_code: int | None) -> tuple[NTrajectory, NStep, Obs]:
    obs = Obs(output, exit_code)
    step = NStep(1, "", observations=[obs])
    return NTrajectory("r", "impasse", "-", "m", "c", "t", [step], "unknown"), step, obs


def onset(card_id: str, output: str, exit_code: int | None = 1, injected=INJECTED):
    compiled = compile_card(get_card(card_id), injected)
    traj, step, obs = trajectory(output, exit_code)
    return signature_match(compiled, obs, step, traj, set())


@pytest.mark.parametrize("card_id,output", [(c, o) for c, outs in POSITIVE.items() for o in outs])
def test_real_error_text_is_an_onset(card_id, output):
    assert onset(card_id, output) is not None


def test_curls_verbose_refused_socket_is_a_network_onset_where_curl_failed():
    """curl -v's own line before it gives up; only the command's failure makes it a report."""
    line = "*   Immediate connect fail for 127.0.0.1: Operation not permitted"
    assert onset("network_down_download", line, exit_code=7) is not None
    assert onset("network_down_download", line, exit_code=0) is None


@pytest.mark.parametrize("card_id", sorted(POSITIVE))
@pytest.mark.parametrize("output", HEALTHY)
def test_healthy_output_is_no_onset(card_id, output):
    assert onset(card_id, output) is None


# pytest's short summary cut at the terminal width, but not before it named a cause that is not this card's
CUT_NAMING_ANOTHER_CAUSE = {
    "service_down": "FAILED tests/test_upstreams.py::t - urllib.error.URLError: <urlopen error [SSL: CERTIF...",
    "tls_cert_invalid": "FAILED tests/test_catalog.py::t - urllib.error.URLError: <urlopen error [Errno 111] Conn...",
    "network_down_download": "FAILED tests/test_catalog.py::t - urllib.error.URLError: <urlopen error [Errno 111] C...",
    "missing_binary": "FAILED tests/test_config.py::t - FileNotFoundError: [Errno 2] No such file or directory: 'te...",
}


@pytest.mark.parametrize("card_id", sorted(CUT_NAMING_ANOTHER_CAUSE))
def test_a_cut_summary_line_that_still_names_another_cause_is_no_onset(card_id):
    assert onset(card_id, CUT_NAMING_ANOTHER_CAUSE[card_id], exit_code=0) is None


def test_a_command_that_succeeded_is_no_onset():
    assert onset("chown_root", "warning: unable to access 'x': Permission denied", exit_code=0) is None


def test_sigkill_exit_status_is_an_oom_onset_but_a_timeout_is_not():
    compiled = compile_card(get_card("oom_kill"), INJECTED)
    killed = Obs("....", 137)
    step = NStep(1, "", observations=[killed])
    traj = NTrajectory("r", "impasse", "-", "m", "c", "t", [step], "unknown")
    assert signature_match(compiled, killed, step, traj, set()) is not None
    timed_out = Obs("....", 137, timed_out=True)
    assert signature_match(compiled, timed_out, step, traj, set()) is None


def test_foreign_runs_ignore_prose_run_as_a_command():
    for prose in ("bash: line 1: Let: command not found", "bash: line 1: THOUGHT:: command not found",
                  # cmd.exe's own words typed into bash: the agent's shell confusion, no program missing
                  "/usr/bin/bash: line 1: call: command not found", "bash: cls: command not found"):
        assert onset("missing_binary", prose, injected=None) is None
    assert onset("missing_binary", "bash: line 1: msgfmt: command not found", injected=None) is not None


def test_a_heredocs_text_run_as_shell_makes_up_its_names_but_not_the_commands_own_program():
    """`python - <<'PY'` where python is missing: bash then runs the heredoc's lines itself, so the
    syntax errors and `#: command not found` are the agent's text, and `python: command not found` is
    not."""
    compiled = compile_card(get_card("missing_binary"), None)
    output = ("docs/notes.md: line 1: #: command not found\ndocs/notes.md: line 4: syntax error near unexpected "
              "token `('\n/bin/bash: line 1: python: command not found\n")
    heredocs = (("python - <<'PY'\nprint(1)\nPY", True), ("cat <<EOF > notes.md\n`docs/notes.md`\nEOF", False))
    for command, found in heredocs:
        obs = Obs(output, 127)
        step = NStep(1, "", actions=[Action(Tool.BASH, command=command)], observations=[obs])
        traj = NTrajectory("r", "codex", "-", "m", None, "t", [step], "unknown")
        assert (signature_match(compiled, obs, step, traj, set()) is not None) is found, command


@pytest.mark.parametrize(("earlier", "missing"), [
    ("$env:N8N_API_KEY=(Get-Content -Raw n8n_api_key.txt).Trim(); .\\setup.ps1", False),
    ("export N8N_API_KEY=$(cat key.txt)", False),
    ("N8N_API_KEY=abc python setup.py", False),
    ("python -c 'import os; os.environ[\"N8N_API_KEY\"] = open(\"k\").read()'", False),
    ('test -n "$N8N_API_KEY" || echo "N8N_API_KEY is empty"', True),  # a check assigns nothing
    ('[ "$N8N_API_KEY" = "" ] && echo missing', True),
])
def test_a_variable_the_agent_set_itself_in_an_earlier_call_is_no_missing_secret(earlier, missing):
    """A separate shell call keeps no variable: "not set" after the agent assigned it is its own doing."""
    compiled = compile_card(get_card("missing_secret"), None)
    before = NStep(1, "", actions=[Action(Tool.BASH, command=earlier)], observations=[Obs("", 0)])
    obs = Obs("N8N_API_KEY not set\nAt line:3 char:43", 1)
    step = NStep(2, "", actions=[Action(Tool.BASH, command="./activate.ps1")], observations=[obs])
    traj = NTrajectory("r", "codex", "-", "m", None, "t", [before, step], "unknown")
    assert (signature_match(compiled, obs, step, traj, set()) is not None) is missing


# Other shells', platforms', sandboxes' and tools' wordings (tests/data/phrasings/blockers.yaml), each
# attributed to who prints it; as a foreign run sees them, where nothing is known of what was injected.
PHRASINGS = yaml.safe_load((Path(__file__).resolve().parents[1] / "data" / "phrasings" / "blockers.yaml")
                           .read_text(encoding="utf-8"))
PHRASED = [pytest.param(card_id, s["text"], s.get("exit", 1), id=f"{card_id}-{i:02d}")
           for card_id, samples in PHRASINGS["samples"].items() for i, s in enumerate(samples)]
# What `--card auto` names, where a sample says it differs from its card's category (`auto:`).
AUTO = {f"{card_id}-{i:02d}": s["auto"] for card_id, samples in PHRASINGS["samples"].items()
        for i, s in enumerate(samples) if "auto" in s}


@pytest.mark.parametrize("card_id,output,exit_code", PHRASED)
def test_another_platforms_wording_is_an_onset_of_its_card(card_id, output, exit_code):
    assert onset(card_id, output, exit_code=exit_code, injected=None) is not None


@pytest.mark.parametrize("card_id,output,exit_code", PHRASED)
def test_card_auto_names_the_category_of_another_platforms_wording(card_id, output, exit_code, request):
    traj, _, _ = trajectory(output, exit_code)
    found = annotate_auto(traj, [c for c in load_cards().values() if not c.is_control])[0]
    expected = AUTO.get(request.node.callspec.id, get_card(card_id).category)
    assert (found.row.t_star, found.evidence["category"]) == (1, expected)


@pytest.mark.parametrize("output,exit_code", [pytest.param(n["text"], n.get("exit", 1), id=f"negative-{i:02d}")
                                              for i, n in enumerate(PHRASINGS["negatives"])])
@pytest.mark.parametrize("card_id", sorted(POSITIVE))
def test_blocker_looking_text_that_is_no_blocker_is_no_onset(card_id, output, exit_code):
    assert onset(card_id, output, exit_code=exit_code, injected=None) is None


def test_a_missing_secret_in_a_foreign_run_is_a_credential_not_any_setting():
    assert onset("missing_secret", "DEPLOYER_PRIVATE_KEY is not set", injected=None) is not None
    assert onset("missing_secret", "GIT_DISCOVERY_ACROSS_FILESYSTEM not set", injected=None) is None


@pytest.mark.parametrize("started", ["cargo run -p app -- serve --bind 127.0.0.1:8080", "npm run dev",
                                     "python3 -m http.server 8080 &", "next dev -p 8080",
                                     "mvn -q -DskipTests spring-boot:run -Dspring-boot.run.profiles=test",
                                     "./gradlew bootRun", "java -Xmx512m -jar target/app.jar",
                                     "dotnet run --project Api", "go run ./cmd/server", "docker compose up -d",
                                     "docker-compose -f compose.test.yml up --build",
                                     "bunx expo start --dev-client --port 8080 --non-interactive",
                                     "npm start -- --port 8080", "npx react-native start"])
def test_a_server_the_agent_started_itself_is_not_a_service_down_in_a_foreign_run(started):
    refused = "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server"
    steps = [NStep(1, "", actions=[Action("bash", command=started)], observations=[Obs("Compiling app", None)]),
             NStep(2, "", actions=[Action("bash", command="curl -sS http://127.0.0.1:8080/health")],
                   observations=[Obs(refused, 7)])]
    traj = NTrajectory("r", "codex", "-", "m", None, "t", steps, "unknown")
    compiled = compile_card(get_card("service_down"), None)
    assert signature_match(compiled, steps[1].observations[0], steps[1], traj, set()) is None
    alone = NTrajectory("r", "codex", "-", "m", None, "t", steps[1:], "unknown")
    assert signature_match(compiled, steps[1].observations[0], steps[1], alone, set()) is not None


def test_the_rate_limiter_of_services_the_agent_brought_up_is_the_projects_own():
    """A 429 from the project's own containers (brought up with `docker compose up`) is what the code under
    change does; the same 429 with nothing started is a remote API refusing the work."""
    limited = '{"code":429,"message":"Rate limit exceeded","details":["MAX_20_LOGIN_REQUESTS_PER_MINUTE"]}'
    up = Action("bash", command="docker compose up -d 2>&1")
    steps = [NStep(1, "", actions=[up], observations=[Obs("Started", 0)]),
             NStep(2, "", actions=[Action("bash", command="bash ./run_tests.sh 2>&1")], observations=[Obs(limited, 1)])]
    compiled = compile_card(get_card("service_down"), None)
    traj = NTrajectory("r", "claude-code", "-", "m", None, "t", steps, "unknown")
    assert signature_match(compiled, steps[1].observations[0], steps[1], traj, set()) is None
    alone = NTrajectory("r", "claude-code", "-", "m", None, "t", steps[1:], "unknown")
    assert signature_match(compiled, steps[1].observations[0], steps[1], alone, set()) is not None


@pytest.mark.parametrize("started,onset_expected", [("npm run dev", True), ("open -a Docker", False)])
def test_the_docker_daemon_is_no_server_the_agents_dev_server_stands_for(started, onset_expected):
    down = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"
    steps = [NStep(1, "", actions=[Action("bash", command=started)], observations=[Obs("ready", 0)]),
             NStep(2, "", actions=[Action("bash", command="docker ps")], observations=[Obs(down, 1)])]
    traj = NTrajectory("r", "claude-code", "-", "m", None, "t", steps, "unknown")
    found = signature_match(compile_card(get_card("service_down"), None), steps[1].observations[0], steps[1],
                            traj, set())
    assert (found is not None) == onset_expected


def test_v8s_heap_dump_is_the_memory_limit_where_the_run_failed():
    assert onset("oom_kill", "<--- Last few GCs --->\n\n[44408:0000014F]    19462 ms: Mark-Compact 129.7 -> 124.0 MB",
                 exit_code=1) is not None
    assert onset("oom_kill", "<--- Last few GCs --->", exit_code=0) is None


def test_windows_refusing_a_registry_write_is_a_permission_wall():
    line = ('Exception calling "SetEnvironmentVariable" with "3" argument(s): "Requested registry access is not '
            'allowed."')
    assert onset("chown_root", line, exit_code=1) is not None


@pytest.mark.parametrize("command,self_caused", [
    ('FAKE=$(mktemp -d); PATH="$FAKE" ./ops/backup.sh', True), ("env -i ./run.sh", True),
    ("unset PATH; ./run.sh", True), ('PATH="$HOME/bin:$PATH" ./run.sh', False), ("./run.sh", False),
    ("PATH=/usr/local/bin:/usr/bin ./run.sh", False)])
def test_a_shell_the_agents_own_narrowed_path_hid_is_no_missing_binary(command, self_caused):
    """Simulating a missing tool by emptying PATH hides the shell too: the agent's doing; a PATH it only
    added to hides nothing."""
    obs = Obs("env: bash: No such file or directory", 127)
    step = NStep(1, "", actions=[Action("bash", command=command)], observations=[obs])
    traj = NTrajectory("r", "claude-code", "-", "m", None, "t", [step], "unknown")
    found = signature_match(compile_card(get_card("missing_binary"), None), obs, step, traj, set())
    assert (found is None) == self_caused


@pytest.mark.parametrize("shown_present", [True, False])
def test_a_program_hidden_by_a_narrowed_path_is_a_wall_only_where_the_session_never_shows_it(shown_present):
    missing = Obs("bash: line 4: jq: command not found", 127)
    steps = [NStep(1, "", actions=[Action("bash", command="PATH=/nonexistent jq . probe.txt")],
                   observations=[missing])]
    if shown_present:
        steps.append(NStep(2, "", actions=[Action("bash", command="command -v jq")],
                           observations=[Obs("/usr/bin/jq", 0)]))
    traj = NTrajectory("r", "claude-code", "-", "m", None, "t", steps, "unknown")
    found = signature_match(compile_card(get_card("missing_binary"), None), missing, steps[0], traj, set())
    assert (found is None) == shown_present


def framed(output: str) -> str:
    """The output as Docker BuildKit's plain progress relays it from inside a build step."""
    return "\n".join(f"#9 {4.2 + i / 100:.3f} {line}" for i, line in enumerate(output.splitlines()))


def tagged(output: str) -> str:
    """The output as a harness relays a background command's stream (Claude Code's task output file)."""
    return "\n".join(f"[stderr] {line}" for line in output.splitlines())


RELAYS = [pytest.param(framed, id="buildkit"), pytest.param(tagged, id="stream-tag")]


@pytest.mark.parametrize("relay", RELAYS)
@pytest.mark.parametrize("card_id,output,exit_code", [p for p in PHRASED if unframed(p.values[1]) == p.values[1]])
def test_a_wording_relayed_by_a_build_tool_is_still_an_onset_of_its_card(card_id, output, exit_code, relay):
    assert onset(card_id, relay(output), exit_code=exit_code, injected=None) is not None


@pytest.mark.parametrize("relay", RELAYS)
@pytest.mark.parametrize("output,exit_code", [pytest.param(n["text"], n.get("exit", 1), id=f"negative-{i:02d}")
                                              for i, n in enumerate(PHRASINGS["negatives"])])
@pytest.mark.parametrize("card_id", sorted(POSITIVE))
def test_blocker_looking_text_relayed_by_a_build_tool_is_still_no_onset(card_id, output, exit_code, relay):
    assert onset(card_id, relay(output), exit_code=exit_code, injected=None) is None


@pytest.mark.parametrize("line", [
    "src/rules.ts(1,24): error TS2307: Cannot find module 'micromatch' or its corresponding type declarations.",
    "web/app.ts:3:21 - error TS2307: Cannot find module 'uuid' or its corresponding type declarations."])
def test_a_compilers_error_is_an_onset_though_the_build_was_piped_into_head(line):
    """`pnpm run typecheck 2>&1 | head -30` exits 0: the compiler's own `error TS2307` says it failed."""
    assert onset("removed_dependency", line, exit_code=0, injected=None) is not None
    warned = line.replace("error TS2307", "warning TS2307")
    assert onset("removed_dependency", warned, exit_code=0, injected=None) is None


def test_a_client_that_says_the_program_it_drives_must_be_running_is_a_service_down():
    output = "Error: Could not connect to Chrome. Check if Chrome is running.\nCause: Could not find DevToolsActivePort"
    assert onset("service_down", output, exit_code=1, injected=None) is not None
    assert onset("service_down", "Could not connect to the database. Check your password.", 1, None) is None


@pytest.mark.parametrize("output", ["Exec approval is required for this command.", "exec denied: allowlist miss"])
def test_the_harness_refusing_a_command_it_was_not_allowed_is_a_permission_wall(output):
    """OpenClaw runs a command only once a person approves it or lists it: neither is the agent's to lift."""
    assert onset("chown_root", output, exit_code=1, injected=None) is not None


def test_a_build_that_finds_no_program_it_runs_is_a_missing_binary():
    output = ("  Error: pg_config executable not found.\n\n  pg_config is required to build psycopg2 from source.")
    match = onset("missing_binary", output, exit_code=1, injected=None)
    assert match is not None and match.name == "pg_config"


def test_a_browser_tool_that_finds_no_browser_installed_is_a_missing_binary():
    output = "Error: No supported browser found (Chrome/Brave/Edge/Chromium on macOS, Linux, or Windows)."
    assert onset("missing_binary", output, exit_code=1, injected=None) is not None
    assert onset("missing_binary", "Error: No such browser tab found.", exit_code=1, injected=None) is None


def test_a_sandbox_that_says_its_path_is_read_only_is_a_read_only_wall():
    output = "Sandbox path is read-only; cannot create directories: /workspace"
    assert onset("read_only_fs", output, exit_code=1, injected=None) is not None
    assert onset("read_only_fs", "The field `path` is read-only in the API schema.", 1, None) is None


def test_a_harness_policy_that_names_the_setting_to_allow_the_call_is_a_permission_wall():
    refused = "exec host not allowed (requested gateway; configure tools.exec.host=sandbox to allow)."
    assert onset("chown_root", refused, exit_code=1, injected=None) is not None
    assert onset("chown_root", "Method not allowed (405).", exit_code=1, injected=None) is None


@pytest.mark.parametrize("output", ["gateway closed (1006 abnormal closure (no close frame)): no close reason",
                                    "websocket: close 1006 (abnormal closure): unexpected EOF"])
def test_a_websocket_whose_server_went_away_is_a_service_down(output):
    assert onset("service_down", output, exit_code=1, injected=None) is not None
    assert onset("service_down", "websocket: close 1000 (normal)", exit_code=1, injected=None) is None


def test_glibs_refused_write_is_a_read_only_onset_whatever_the_status():
    line = ("(process:2): dconf-CRITICAL **: 18:07:09.460: unable to create file '/run/user/1000/dconf/user': "
            "Read-only file system.  dconf will not work properly.")
    assert onset("read_only_fs", line, exit_code=0, injected=None) is not None


def test_a_tool_that_finds_no_api_key_for_its_provider_is_a_missing_secret():
    output = '{\n  "results": [],\n  "error": "No API key found for provider \\"openai\\". Auth store: /x/auth.json"\n}'
    assert onset("missing_secret", output, exit_code=None, injected=None) is not None


def test_the_agents_own_tool_guards_are_walls_only_the_human_can_lift():
    blocked = '{\n  "status": "error",\n  "error": "Blocked hostname or private/internal/special-use IP address"\n}'
    assert onset("network_down_download", blocked, exit_code=1, injected=None) is not None
    outside = "Local media path is not under an allowed directory: /tmp/camera.jpg"
    assert onset("chown_root", outside, exit_code=1, injected=None) is not None
    assert onset("chown_root", "Saved /tmp/camera.jpg under an allowed directory.", exit_code=1, injected=None) is None


def test_a_push_the_remote_refuses_for_want_of_write_access_is_a_permission_wall():
    output = ("remote: Permission to danielmiessler/PAI.git denied to procrypto.\nfatal: unable to access "
              "'https://github.com/danielmiessler/PAI.git/': The requested URL returned error: 403")
    assert onset("chown_root", output, exit_code=128, injected=None) is not None
