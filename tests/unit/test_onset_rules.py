"""The onset rules for a zero or missing exit status (docs/metrics.md, "Onset rules"): a failure line
counts however the command exited, a benign warning or quoted text never does."""

import pytest

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.failure_lines import is_failure_line
from impasse.analysis.normal_form import COMMAND, LIST, READ, Action, NStep, NTrajectory, Obs
from impasse.analysis.onset_rules import absent_by_probe, is_listing, line_counts
from impasse.analysis.onsets import signature_match, step_onset
from impasse.catalog.cards import get_card

from .test_signatures import HEALTHY, INJECTED, POSITIVE, onset

MASKED = [(card, line) for card, lines in POSITIVE.items() for line in lines]


@pytest.mark.parametrize("card_id,line", MASKED)
@pytest.mark.parametrize("exit_code", [0, None])
def test_a_failure_line_is_an_onset_when_a_pipe_or_the_format_hides_the_status(card_id, line, exit_code):
    piped = f"collected 33 items\n\n{line}\n===== 1 failed, 32 passed in 0.31s ====="
    assert onset(card_id, piped, exit_code=exit_code) is not None


@pytest.mark.parametrize("card_id,line", MASKED)
@pytest.mark.parametrize("exit_code", [0, 1, None])
def test_quoted_error_text_is_never_an_onset(card_id, line, exit_code):
    for listing in (f"src/app/core.py:42:    log.error(\"{line}\")", f"+    # {line}", f"  118\t{line}"):
        assert onset(card_id, listing, exit_code=exit_code) is None, listing


BENIGN = ["WARNING: The script pytest is installed in '/home/agent/.local/bin' which is not on PATH.",
          "DeprecationWarning: pkg_resources is deprecated as an API",
          "warning: unable to access '/root/.config/git/attributes': Permission denied",
          "hint: Using 'master' as the name for the initial branch."]
UNREACHABLE = ["WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after "
               "connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object>: "
               "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': "
               "/simple/pyyaml/"]


@pytest.mark.parametrize("line", BENIGN)
def test_a_benign_warning_is_no_failure_line(line):
    assert not is_failure_line(line) and not line_counts(line, 0) and not line_counts(line, None)


@pytest.mark.parametrize("line", UNREACHABLE)
def test_a_warning_that_names_an_unreachable_resource_is(line):
    assert is_failure_line(line) and line_counts(line, 0)
    assert onset("network_down_download", line, exit_code=0) is not None


@pytest.mark.parametrize("line", ["src/x.py:12:    raise PermissionError(path)", "   12  import yaml",
                                  "+from yaml import safe_load", "-    return 1", "@@ -1,4 +1,4 @@"])
def test_listings(line):
    assert is_listing(line)


@pytest.mark.parametrize("line", ["invoicekit/signing.py:27: SigningKeyMissing",
                                  "tests/test_store.py:35: AssertionError"])
def test_pytests_crash_location_is_a_failure_line_not_a_listing(line):
    assert not is_listing(line) and is_failure_line(line) and line_counts(line, 0)


@pytest.mark.parametrize("line", ["invoicekit/signing.py:16:class SigningKeyMissing(RuntimeError):",
                                  "invoicekit/signing.py:27:SigningKeyMissing", "notes.txt:3: SigningKeyMissing"])
def test_a_grep_hit_on_an_exception_name_stays_a_listing(line):
    assert is_listing(line) and not line_counts(line, 0)


@pytest.mark.parametrize("line", ["bash: line 1: jq: command not found", "E   ModuleNotFoundError: No module named 'x'",
                                  "fatal: not a git repository", "Killed", "--- FAIL"])
def test_not_listings(line):
    assert not is_listing(line) or line.startswith("--")


@pytest.mark.parametrize("card_id", sorted(POSITIVE))
@pytest.mark.parametrize("output", HEALTHY)
def test_healthy_output_is_no_onset_at_exit_zero_either(card_id, output):
    assert onset(card_id, output, exit_code=0) is None


# Rule 6: the kind of tool that returned the text (normal_form's kinds). A file the agent read, a page
# it fetched, a grep or glob listing quote a blocker; a read that itself failed reports one.
def kinded(card_id: str, output: str, kind: str, exit_code: int | None):
    compiled = compile_card(get_card(card_id), None)
    obs = Obs(output, exit_code, kind=kind)
    step = NStep(1, "", observations=[obs])
    return signature_match(compiled, obs, step, NTrajectory("r", "claude-code", "-", "m", None, "t", [step],
                                                             "unknown"), set())


READ_TEXT = {"service_down": "   630→      \"error\": \"Connection refused\"\n"
                             "ConnectionRefusedError: [Errno 111] Connection refused",
             "missing_binary": "## Troubleshooting\nbash: line 1: jq: command not found",
             "chown_root": "Error: EACCES: permission denied, open '/workspace/package-lock.json'"}


@pytest.mark.parametrize("card_id", sorted(READ_TEXT))
@pytest.mark.parametrize("kind", [READ, LIST])
@pytest.mark.parametrize("exit_code", [0, None])
def test_text_a_successful_read_or_listing_returned_is_never_an_onset(card_id, kind, exit_code):
    assert kinded(card_id, READ_TEXT[card_id], kind, exit_code) is None
    assert kinded(card_id, READ_TEXT[card_id], COMMAND, 1) is not None  # the same text from a command is


def test_a_read_that_itself_failed_is_an_onset():
    failed = "EACCES: permission denied, open '/workspace/src/app.py'"
    assert kinded("chown_root", failed, READ, 1) is not None


@pytest.mark.parametrize("kind", [READ, LIST])
def test_a_search_tool_that_could_not_start_its_program_failed_itself(kind):
    """No status recorded, but the whole answer is Node's refusal to start the tool's own program (an
    agent's bundled ripgrep without its execute bit): no file or listing reads so. A missing one is
    the missing binary's."""
    spawned = "spawn /home/u/.nvm/versions/node/v20/lib/node_modules/agent/vendor/ripgrep/x64-linux/rg EACCES"
    assert kinded("chown_root", spawned, kind, None) is not None
    assert kinded("chown_root", spawned + "\nsrc/app.py", kind, None) is None  # a listing that quotes it


# The agent's own presence probe: often the only place a missing program shows (`which jq` prints
# nothing; `command -v jq || echo …` prints the agent's own words). Outputs as bash, dash and zsh print them.
PROBES_ABSENT = [("which jq", "", 1), ("command -v jq || echo 'jq missing'", "jq missing\n", 0),
                 ("command -v jq >/dev/null 2>&1 && echo has-jq || echo no-jq", "no-jq\n", 0),
                 ("type jq", "bash: line 1: type: jq: not found\n", 1), ("which jq", "jq not found\n", 1),
                 ("which jq 2>/dev/null || echo \"jq not installed\"", "jq not found\njq not installed\n", None),
                 ("python3 --version && which jq || echo NO_JQ", "Python 3.11.2\nNO_JQ\n", 0),
                 ("which jq", "which: no jq in (/usr/local/bin:/usr/bin:/bin)\n", 1)]
PROBES_PRESENT = [("which jq", "/usr/bin/jq\n", 0), ("command -v jq || echo 'jq missing'", "/usr/bin/jq\n", 0),
                  ("command -v jq >/dev/null 2>&1 && echo has-jq || echo no-jq", "has-jq\n", 0),
                  ("type jq", "jq is /usr/bin/jq\n", 0), ("which jq && jq . x.json", "/usr/bin/jq\nparse error\n", 5),
                  ("for b in jq yq; do command -v $b; done", "", 1)]


@pytest.mark.parametrize("command,output,exit_code", PROBES_ABSENT)
def test_an_absence_only_the_agents_probe_reports(command, output, exit_code):
    assert absent_by_probe(command, output, exit_code) == ["jq"]
    assert probed_onset(command, output, exit_code, INJECTED) is not None


@pytest.mark.parametrize("command,output,exit_code", PROBES_PRESENT)
def test_a_probe_that_found_the_program_is_no_onset(command, output, exit_code):
    assert absent_by_probe(command, output, exit_code) == []
    assert probed_onset(command, output, exit_code, INJECTED) is None


def test_our_runs_take_a_probe_only_for_the_injected_binary():
    assert probed_onset("which git-lfs", "", 1, INJECTED) is None
    assert probed_onset("which git-lfs", "", 1, None) is not None  # a foreign run: any program


def probed_onset(command: str, output: str, exit_code: int | None, injected, card_id: str = "missing_binary",
                 earlier: tuple[str, ...] = ()):
    compiled = compile_card(get_card(card_id), injected)
    steps = [NStep(i + 1, "", actions=[Action("bash", command=c)], observations=[Obs("", 0)])
             for i, c in enumerate(earlier)]
    steps.append(NStep(len(steps) + 1, "", actions=[Action("bash", command=command)],
                       observations=[Obs(output, exit_code)]))
    return step_onset(compiled, steps[-1], NTrajectory("r", "impasse", "-", "m", None, "t", steps, "unknown"), set())


# The agent's own connection probe of a service on this machine, its fallback the only words: curl without
# --fail and nc -z fail only where nothing answers. With --fail an HTTP error also prints the fallback; a
# remote host's silence is the network's; a server the agent started itself is its own.
CONNECT_REFUSED = [("curl -s http://localhost:8888/health 2>/dev/null || echo \"Server nicht erreichbar\"",
                    "Server nicht erreichbar\n", None),
                   ("nc -z 127.0.0.1 5432 || echo 'postgres down'", "postgres down\n", 0),
                   ("curl -s -o /dev/null http://[::1]:8080/ || echo NO_SERVER", "NO_SERVER\n", 0)]
CONNECT_ANSWERED = [("curl -s http://localhost:8888/health || echo down", '{"status":"ok"}\n', 0),
                    ("curl -sf http://localhost:8888/health || echo down", "down\n", 0),
                    ("curl -s https://api.example.com/health || echo down", "down\n", 0),
                    ("curl -s http://localhost.example.com/ || echo down", "down\n", 0)]


@pytest.mark.parametrize("command,output,exit_code", CONNECT_REFUSED)
def test_a_local_service_only_the_agents_probe_finds_not_answering(command, output, exit_code):
    match = probed_onset(command, output, exit_code, None, "service_down")
    assert match is not None and match.line == output.strip()


@pytest.mark.parametrize("command,output,exit_code", CONNECT_ANSWERED)
def test_a_probe_that_was_answered_or_not_local_is_no_service_down(command, output, exit_code):
    assert probed_onset(command, output, exit_code, None, "service_down") is None


def test_a_server_the_agent_started_itself_is_its_own():
    command, output = "curl -s http://127.0.0.1:8000/ || echo 'not up'", "not up\n"
    assert probed_onset(command, output, 0, None, "service_down", ("uvicorn app:app --port 8000 &",)) is None


@pytest.mark.parametrize("line", ["zsh:11: operation not permitted: /Users/dev/.cache/x",
                                  "(eval):1: command not found: tree", "/bin/zsh:3: read-only file system: x"])
def test_a_shells_report_is_no_grep_listing(line):
    assert not is_listing(line) and is_failure_line(line)


@pytest.mark.parametrize("line", ["rg : The term 'rg' is not recognized as the name of a cmdlet, function, script",
                                  "'jq' is not recognized as an internal or external command,",
                                  "Access is denied.", "execution error: Io(Custom { kind: Other })",
                                  "<3>WSL (9 - Relay) ERROR: CreateProcessCommon:735: execvpe(/bin/bash) failed",
                                  "failed to connect to the docker API at unix:///x/docker.sock",
                                  "streamlit not installed", "#13 0.442 Please manually install OpenSSL",
                                  "warning: spurious network error (2 tries remaining): [6] Couldn't resolve host"])
def test_other_platforms_failure_lines(line):
    assert is_failure_line(line) and line_counts(line, 0) and line_counts(line, None)


def test_a_compilers_file_line_column_report_is_no_grep_listing():
    report = "main.go:5:2: no required module provides package github.com/x/y; to add it:"
    assert not is_listing(report) and line_counts(report, 1)
    assert is_listing("main.go:5:import \"github.com/x/y\"")  # grep -n: no column


def test_docker_builds_step_prefix_is_read_through():
    assert is_listing("#13 0.442 +  added line") and not is_listing("#13 0.442 ERROR: failed to solve")


# Rule 6 for a shell read (Codex and mini-swe-agent read files through the shell): a command that only
# prints files returned their text; a log is what a run printed, and a failed read reports.
DOC_LINE = "Error: Cannot find module 'express'"


@pytest.mark.parametrize("command", ["cat docs/TROUBLESHOOTING.md", "sed -n '1,120p' README.md 2>/dev/null",
                                     "nl -ba docs/setup.md | sed -n 1,80p", "cd /repo && cat NOTES.md",
                                     "Get-Content -Raw docs\\setup.md"])
def test_text_a_shell_command_only_printed_from_files_is_no_onset(command):
    assert shell_onset(command, DOC_LINE, 0) is None


@pytest.mark.parametrize("command,exit_code", [("node server.js", 1), ("cat logs/server.log", 0),
                                               ("cat /tmp/run.out", 0), ("cat docs/setup.md", 1)])
def test_a_run_a_log_or_a_failed_read_still_reports(command, exit_code):
    assert shell_onset(command, DOC_LINE, exit_code) is not None


def shell_onset(command: str, output: str, exit_code: int | None):
    compiled = compile_card(get_card("removed_dependency"), None)
    obs = Obs(output, exit_code)
    step = NStep(1, "", actions=[Action("bash", command=command)], observations=[obs])
    return signature_match(compiled, obs, step, NTrajectory("r", "codex", "-", "m", None, "t", [step], "unknown"),
                           set())


def test_glibs_error_log_line_is_a_failure_line_and_its_warning_is_not():
    assert is_failure_line("(process:2): dconf-CRITICAL **: 18:07:09.460: unable to create file "
                           "'/run/user/1000/dconf/user': Read-only file system.  dconf will not work properly.")
    assert not is_failure_line("(gsettings:41): GLib-GIO-WARNING **: 18:07:09.460: Using the memory backend")


def test_a_login_shells_report_is_no_removed_diff_line():
    assert not is_listing("-bash: jq: command not found") and not is_listing("-zsh: permission denied: ./run.sh")
    assert is_listing("-    return 1")


@pytest.mark.parametrize("line", [
    "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted",
    "/Users/dev/.zshrc:12: command not found: nvm", "/home/dev/.bashrc: line 3: /opt/tool/env.sh: Permission denied"])
def test_what_the_shells_start_up_printed_is_no_onset(line):
    """The user's profile speaks before every command, whatever the command: their set-up, not a wall."""
    for card_id in ("chown_root", "missing_binary"):
        assert onset(card_id, f"{line}\nREADME.md\nsrc", exit_code=0, injected=None) is None
        assert onset(card_id, f"{line}\ntotal 0", exit_code=1, injected=None) is None


@pytest.mark.parametrize("output", ["failed in sandbox: cannot set capabilities: Operation not permitted",
                                    "failed in sandbox: sandbox error: command was killed by a signal",
                                    "failed in sandbox: # ./...\npattern ./...: open /home/u/.cache/go-build/be/x-d: "
                                    "permission denied\nFAIL\t./... [setup failed]"])
def test_codexs_own_report_of_a_command_its_sandbox_could_not_run_is_an_onset(output):
    assert onset("chown_root", output, exit_code=None, injected=None) is not None


@pytest.mark.parametrize("output", ["failed in sandbox: Usage: .specify/scripts/bash/create-new-feature.sh [--json] "
                                    "<feature_description>",
                                    "failed in sandbox: Argument expected for the -c option\nusage: python3 [option]"])
def test_codexs_wrapper_around_an_ordinary_error_says_only_where_it_ran(output):
    assert onset("chown_root", output, exit_code=None, injected=None) is None


@pytest.mark.parametrize("line", [
    '{"network_error": "URLError", "message": "<urlopen error [Errno 1] Operation not permitted>"}',
    "Erreur lors du chargement de vue_camions_jour: connect ECONNREFUSED 127.0.0.1:3307",
    "Fehler: Verbindung zu api.example.com: connect ETIMEDOUT 10.0.0.5:443",
    '  "error": "No API key found for provider \\"openai\\". Configure auth for this agent.",',  # printed pretty
    "错误：Request timed out."])
def test_a_structured_error_or_an_error_line_in_another_language_counts_at_exit_zero(line):
    assert is_failure_line(line) and line_counts(line, 0) and line_counts(line, None)


@pytest.mark.parametrize("line", ['{"error": null, "output": "ok"}', '{"isError": false, "content": []}',
                                  '{"last_error": "", "retries": 0}', "Fehlerbehandlung: unverändert"])
def test_an_empty_error_field_or_a_word_that_only_begins_like_error_is_none(line):
    assert not is_failure_line(line)


CARGO_CHAIN = ("warning: failed to auto-clean cache data\n\nfailed to clean entries from the global cache\n\n"
               "Caused by:\n  failed to remove file `C:\\Users\\dev\\.cargo\\registry\\src\\data.rs`\n\n"
               "Caused by:\n"
               "  Access is denied. (os error 5)\n    Checking app v1.3.0 (G:\\app\\src-tauri)")


def test_a_cause_chain_under_a_warning_is_the_warnings_whatever_the_status():
    assert kinded("chown_root", CARGO_CHAIN, COMMAND, 124) is None
    as_error = CARGO_CHAIN.replace("warning: failed to auto-clean", "error: failed to auto-clean")
    assert kinded("chown_root", as_error, COMMAND, 101) is not None  # the same chain under an error is one


def test_a_warning_line_is_no_onset_even_where_the_command_failed():
    line = "warning: could not open directory 'AppData/Local/Application Data/': Permission denied"
    assert kinded("chown_root", line, COMMAND, 128) is None
    assert kinded("chown_root", line.removeprefix("warning: "), COMMAND, 128) is not None


@pytest.mark.parametrize("output,exit_code", [
    ("Exception calling \"ReadAllBytes\" with \"1\" argument(s): \"The process cannot access the file "
     "'C:\\Users\\dev\\Desktop\\test\n.csv' because it is being used by another process.\"", 1),
    ("FAILED C:\\Games\\Editor\\Saved\\webcache\\Cookies: The process cannot access the file because it is being used "
     "by another process.", 0),
])
def test_windows_sharing_violation_is_a_file_another_process_holds(output, exit_code):
    assert kinded("git_index_lock", output, COMMAND, exit_code) is not None


@pytest.mark.parametrize("output", ["ping: socket: Operation not permitted",
                                    "ping: socktype: SOCK_RAW\nping: socket: Permission denied",
                                    "Cannot open netlink socket: Operation not permitted"])
def test_a_socket_only_privilege_opens_refused_by_the_sandbox_is_a_permission_wall(output):
    assert kinded("chown_root", output, COMMAND, 2) is not None


def test_the_shell_refused_entry_to_a_directory_is_a_permission_wall():
    assert kinded("chown_root", "/usr/bin/bash: line 2: cd: /root/.hermes: Permission denied", COMMAND, 126) is not None


def test_a_c_library_older_than_a_program_needs_is_a_missing_dependency():
    line = ("/root/.nvm/versions/node/v22.1.0/bin/gws: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.39' not found "
            "(required by /root/.nvm/versions/node/v22.1.0/bin/gws)")
    assert kinded("removed_dependency", line, COMMAND, 1) is not None


def test_a_cli_that_asks_the_human_to_sign_in_is_a_missing_secret():
    assert kinded("missing_secret", "Unauthorized. Run `ollama signin` to authenticate.", COMMAND, 1) is not None
    assert kinded("missing_secret", "Error: The specified token is not valid. Use `vercel login` to generate a new "
                  "token.", COMMAND, 1) is not None
    assert kinded("missing_secret", "Error: The specified token is not valid.", COMMAND, 1) is None  # a test's own


@pytest.mark.parametrize("output", [
    '{"error": "Permission denied: permission denied for schema chefbook\\nLINE 1: SELECT * FROM chefbook.x"}',
    "ERROR:  permission denied for table invoices",
    "ERROR 1044 (42000): Access denied for user 'app'@'localhost' to database 'billing'",
    "ERROR 1142 (42000): INSERT command denied to user 'ro'@'%' for table 'events'"])
def test_a_database_role_refused_a_privilege_is_a_permission_wall(output):
    assert kinded("chown_root", output, COMMAND, 1) is not None


@pytest.mark.parametrize("output", [
    "An error occurred (AccessDenied) when calling the PutUserPolicy operation: User: arn:aws:iam::1234567890:user/dev"
    " is not authorized to perform: iam:PutUserPolicy on resource: user dev",
    "An error occurred (UnauthorizedOperation) when calling the RunInstances operation: You are not authorized to "
    "perform this operation.",
    "(AuthorizationFailed) The client 'dev@example.com' with object id '0000' does not have authorization to perform "
    "action 'Microsoft.Resources/subscriptions/resourcegroups/write' over scope '/subscriptions/0000'",
    "ERROR: (gcloud.projects.add-iam-policy-binding) [dev@example.com] does not have permission to access projects "
    "instance [demo]: Permission 'resourcemanager.projects.setIamPolicy' denied on resource (or it may not exist)."])
def test_a_cloud_refusing_the_identity_the_agent_acts_as_is_a_permission_wall(output):
    assert kinded("chown_root", output, COMMAND, 254) is not None


@pytest.mark.parametrize("output", [
    "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.example.com/items",
    "Error: HTTPStatusError: Client error '401 Unauthorized' for url 'http://localhost:42002/items/'"])
def test_an_http_client_raising_on_401_is_a_missing_secret(output):
    assert kinded("missing_secret", output, COMMAND, 1) is not None


@pytest.mark.parametrize("output", [
    "MongoServerError: bad auth : Authentication failed.",
    'psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: FATAL:  password '
    'authentication failed for user "app"',
    "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)"])
def test_a_database_refusing_the_credential_is_a_missing_secret(output):
    assert kinded("missing_secret", output, COMMAND, 1) is not None


def test_bundler_finding_no_executable_and_httpx_reaching_no_service():
    assert kinded("missing_binary", "bundler: command not found: ruby-lsp", COMMAND, 127) is not None
    assert kinded("service_down", "Error: ConnectError: All connection attempts failed", COMMAND, None) is not None
    assert kinded("service_down", "Error executing logs_error_count: Failed to search logs: All connection "
                  "attempts failed", COMMAND, None) is not None


def test_an_agents_own_guard_refusing_a_command_is_a_permission_wall():
    assert kinded("chown_root", "Error: Command blocked by safety guard (internal/private URL detected)", COMMAND,
                  None) is not None
    assert kinded("chown_root", "Error: exec denied: allowlist miss", COMMAND, None) is not None


def test_codex_sandbox_refusing_a_socket_in_its_runner_record_is_a_network_wall():
    record = ('exec_command failed: SandboxDenied { message: "[ERROR] <urlopen error [Errno 1] Operation not '
              'permitted>\\n", output: ExecToolCallOutput { exit_code: 1 } }')
    assert kinded("network_down_download", record, COMMAND, None) is not None


def test_zsh_names_the_shell_function_that_could_not_find_a_command():
    """A `cd` hook from the user's zshrc (zoxide's `z`) runs where its helper was never defined."""
    assert kinded("missing_binary", "z:1: command not found: __zoxide_z", COMMAND, 1) is not None
    assert kinded("missing_binary", "cd:1: command not found: __gvm_is_function", COMMAND, 1) is not None
    assert kinded("missing_binary", "command not found: __zoxide_z", COMMAND, 1) is None  # no shell said it


def test_pg_isready_finding_no_server_is_a_service_down():
    assert kinded("service_down", "localhost:5432 - no response", COMMAND, 2) is not None
    assert kinded("service_down", "/var/run/postgresql:5432 - no response", COMMAND, 2) is not None
    assert kinded("service_down", "localhost:5432 - accepting connections", COMMAND, 0) is None


def test_claude_codes_fetch_tool_unable_to_vet_a_domain_is_a_network_wall():
    text = ("Unable to verify if domain anthropic.skilljar.com is safe to fetch. This may be due to network "
            "restrictions or enterprise security policies blocking claude.ai.")
    assert kinded("network_down_download", text, READ, 1) is not None


@pytest.mark.parametrize("output", ["bash: pip: comando não encontrado", "bash: Zeile 1: jq: Befehl nicht gefunden",
                                    "bash: rg: commande introuvable", "bash: adb: 未找到命令",
                                    "bash: gh: команда не найдена", "bash: bun: コマンドが見つかりません"])
def test_the_shell_that_cannot_find_a_command_in_the_machines_language(output):
    assert kinded("missing_binary", output, COMMAND, 127) is not None


def test_a_compilers_output_refused_by_the_system_is_a_permission_wall():
    line = ("<unknown>:0: error: error opening '/Users/u/.cache/clang/ModuleCache/Swift-3AJ.swiftmodule' for output: "
            "/Users/u/.cache/clang/ModuleCache: Operation not permitted")
    assert kinded("chown_root", line, COMMAND, 1) is not None


def test_npm_retrying_a_registry_it_cannot_resolve_is_a_network_wall():
    line = "npm http fetch GET https://registry.npmjs.org/react attempt 1 failed with EAI_AGAIN"
    assert kinded("network_down_download", line, COMMAND, None) is not None
    local = "npm http fetch GET http://localhost:4873/react attempt 1 failed with EAI_AGAIN"
    assert kinded("network_down_download", local, COMMAND, None) is None


def test_a_tools_hidden_cache_under_node_modules_is_no_missing_package():
    assert kinded("removed_dependency", "ls: node_modules/.astro: No such file or directory", COMMAND, 1) is None
    assert kinded("removed_dependency", "ls: node_modules/.bin/vite: No such file or directory", COMMAND, 1) is not None


def test_gpg_with_no_terminal_to_ask_for_the_passphrase_is_a_missing_secret():
    assert kinded("missing_secret", "error: gpg failed to sign the data\ngpg: cannot open '/dev/tty': Device not "
                  "configured", COMMAND, 128) is not None


def test_node_unable_to_load_a_file_inside_an_installed_package_is_a_missing_dependency():
    line = ("Error: Cannot find module '/Users/i/work/be/node_modules/.pnpm/typescript@5.8.3/node_modules/typescript/"
            "bin/tsc'")
    assert kinded("removed_dependency", line, COMMAND, 1) is not None
    assert kinded("removed_dependency", "Error: Cannot find module '/Users/i/work/be/dist/main.js'", COMMAND, 1) is None


@pytest.mark.parametrize("output", [
    "E886: System error while opening temporary ShaDa file /home/u/.local/state/nvim/shada/main.shada.tmp.a for "
    "writing: permission denied",
    "E212: Can't open file '/etc/hosts' for writing: Permission denied"])
def test_a_program_refused_opening_a_file_for_writing_is_a_permission_wall(output):
    """Whatever the program's own words before it (Vim's, an editor's, a logger's), exit 0 or not."""
    assert kinded("chown_root", output, COMMAND, 0) is not None
    assert kinded("chown_root", "wrote file /tmp/out.txt for writing: ok", COMMAND, 0) is None


def test_walls_in_the_words_of_the_agents_own_runtime_and_permission_mode():
    spawn = "ENOENT: no such file or directory, posix_spawn '/Users/u/.local/share/claude/versions/2.1.41'"
    assert kinded("missing_binary", spawn, COMMAND, 1) is not None
    assert kinded("chown_root", "This Bash command contains multiple operations. The following part requires "
                  "approval: npm test -- --passWithNoTests 2 >& 1", COMMAND, 1) is not None
    assert kinded("chown_root", "Error: This command requires approval", COMMAND, 1) is not None
    gemini = 'Tool "run_shell_command" not found. Did you mean one of: "grep_search", "cli_help", "read_file"?'
    assert kinded("chown_root", gemini, COMMAND, 1) is not None
    assert kinded("chown_root", 'Tool "search_the_web_please" not found.', COMMAND, 1) is None  # a name it made up


def test_a_test_runner_that_cannot_resolve_a_package_and_gh_refused_by_the_api():
    bun = "error: Cannot find module '@octokit/rest' from '/w/src/github/__tests__/timeline-reader.test.ts'"
    assert kinded("removed_dependency", bun, COMMAND, 1) is not None
    assert kinded("removed_dependency", "error: Cannot find module './local' from '/w/a.test.ts'", COMMAND, 1) is None
    gh = "HTTP 401: Bad credentials (https://api.github.com/graphql)"
    assert kinded("missing_secret", gh, COMMAND, 1) is not None


@pytest.mark.parametrize("output,wall", [
    ("bash: line 1:   146 Killed                  python3 -m pytest -q tests/test_scale.py", True),
    ("Killed", True), ("Killed: 9", True),
    ("Killed session young-summit.", False)])  # an agent's process tool reporting the session it ended
def test_bash_reporting_a_sigkill_not_a_tool_saying_it_killed_something(output, wall):
    assert (kinded("oom_kill", output, COMMAND, 137 if wall else 1) is not None) is wall


def test_a_search_of_files_quotes_them_unless_its_own_program_is_missing():
    """`rg -n -C 2 "oauth|token" MEMORY.md` returns the notes' lines (one recalls an old DNS failure); the
    shell not finding `rg` (its status lost to the pipe after it) is the search failing itself."""
    notes = "463-- Symptom: the first `git push` fails with `ssh: Could not resolve hostname github.com: -65563`."
    search = 'rg -n -i -C 2 "cyspbot|oauth|token" /Users/u/.codex/memories/MEMORY.md'
    assert probed_onset(search, notes, None, None, "network_down_download") is None
    assert probed_onset('grep -rn "resolve" notes/', notes, 0, None, "network_down_download") is None
    missing = 'rg -n "^#|^##" /root/PRD.md | sed -n \'1,260p\''
    assert probed_onset(missing, "/bin/sh: 1: rg: not found", 0, None) is not None


def test_a_ref_lock_the_filesystem_refuses_to_create_is_a_permission_wall():
    """Whatever git says it was doing (`cannot lock ref …: Unable to create …`); --card auto names the
    permission wall where both cards read the line."""
    refused = ("fatal: update_ref failed for ref 'ORIG_HEAD': cannot lock ref 'ORIG_HEAD': Unable to create "
               "'/Users/u/src/app/.git/ORIG_HEAD.lock': Operation not permitted")
    assert kinded("chown_root", refused, COMMAND, 128) is not None


def test_windows_refusing_an_act_its_user_lacks_the_privilege_for_is_a_permission_wall():
    line = ("ERROR: Cannot create symbolic link : A required privilege is not held by the client. : "
            r"C:\Users\h\AppData\Local\electron-builder\Cache\winCodeSign\2266\darwin\10.12\lib\libssl.dylib")
    assert kinded("chown_root", line, COMMAND, 1) is not None


def test_a_file_whose_first_line_quotes_a_missing_program_is_still_a_read():
    """The shell not finding the search program is the read failing; a notes file that opens on such a line
    (another machine's `jq`) is only the file's text."""
    assert probed_onset("cat NOTES.md", "bash: jq: command not found\nfixed by installing jq", 0, None) is None
