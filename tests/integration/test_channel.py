"""The persistent exec channel has the plain exec path's semantics, and its death is an
infrastructure failure, never command output."""

import gc
import json

import pytest

from impasse.episode.rundir import read_run
from impasse.infra.channel import SCRIPT, Channel
from impasse.infra.piped import run_with_stdin
from impasse.infra.sandbox import AGENT_USER, SandboxSpec, SandboxUnavailable, open_sandbox
from impasse.runs.runner import RunSpec, execute

from .containers import labelled
from .endpoints import Script, openai_tool_call, serve

pytestmark = pytest.mark.docker
SAME = ["id -un; pwd", "echo out; echo err >&2; exit 3", "head -c 3000 /dev/urandom | base64 | head -c 100",
        "cat /nonexistent", "printf 'no newline'", "touch /etc/x"]


@pytest.fixture
def box(api, base_image):
    with open_sandbox(api, SandboxSpec(image=base_image, labels={"impasse.run_id": "t-channel"})) as box:
        yield box


@pytest.mark.parametrize("command", SAME)
def test_same_output_and_exit_code_as_the_exec_path(box, command):
    channel = Channel(box)
    via_channel, via_exec = channel.run(command), box.exec(command)
    channel.close()
    assert via_channel.exit_code == via_exec.exit_code
    if "urandom" not in command:
        assert via_channel.output == via_exec.output


def test_stdout_and_stderr_keep_the_order_they_were_written_in(box):
    # docker hands stdout and stderr over on two pipes; read separately they interleave at random
    outputs = {box.exec("echo out; echo err >&2; echo out2").output for _ in range(60)}
    assert outputs == {"out\nerr\nout2\n"}


def test_timeout_kills_the_whole_process_group(box):
    channel = Channel(box)
    result = channel.run("(sleep 300 &) ; sleep 300", timeout=1)
    assert result.timed_out and result.exit_code == 124 and result.duration < 5
    assert box.exec("pgrep -u 1000 -x sleep | wc -l").output.strip() == "0"
    assert channel.run("echo still here").output == "still here\n"


def test_huge_and_binary_output(box):
    channel = Channel(box)
    huge = channel.run("head -c 30000000 /dev/zero | tr '\\0' z")
    assert huge.truncated_bytes == 30_000_000 - 20_000 and len(huge.output) < 21_000
    assert "\ufffd" in channel.run("head -c 5000 /dev/urandom").output


def test_the_connection_closed_underneath_does_not_close_the_channel(box):
    # docker-py's connection owns the channel's socket too. Its close (the connection pool's, the
    # collector's) must not take the socket while the channel holds it: the channel keeps the object
    # docker-py handed back, whose reference defers the real close until the channel's own.
    channel = Channel(box)
    first = channel.exec_id
    channel.sock.close()
    for _ in range(3):
        gc.collect()
    assert channel.run("echo after").output == "after\n" and channel.exec_id == first
    channel.close()


def test_a_request_that_could_not_be_written_goes_to_a_new_channel_and_runs_once(box):
    channel = Channel(box)
    first = channel.exec_id
    channel.attached.close()  # the socket unusable before the request goes out
    channel.sock.close()
    assert channel.run("echo ran >> /tmp/count").exit_code == 0
    assert channel.exec_id != first and box.exec("cat /tmp/count").output == "ran\n"
    channel.close()


def test_the_channel_never_runs_a_line_cut_short(box):
    request = json.dumps({"id": 1, "command": "touch /tmp/ran", "timeout": 5, "cwd": "/workspace"})
    code, output = run_with_stdin(box.api.api, box.id, ["python3", "-u", SCRIPT], request.encode(), AGENT_USER)
    assert code == 0 and "ready" in output
    assert box.exec("test -e /tmp/ran").exit_code == 1


def test_a_dead_channel_is_an_infrastructure_failure(box):
    channel = Channel(box)
    with pytest.raises(SandboxUnavailable, match="channel"):
        channel.run("kill -9 $PPID; sleep 1")


def test_an_agent_killing_the_channel_ends_the_run_as_a_harness_error(api, tmp_path):
    server, url = serve(Script([openai_tool_call("bash", json.dumps({"command": "pkill -9 -f channel.py"})),
                                openai_tool_call("bash", json.dumps({"command": "ls"}))]))
    try:
        result = execute(api, RunSpec("openai:test", "none", "invoicekit-tax-rounding", out=tmp_path,
                                      base_url=f"{url}/v1"))
    finally:
        server.shutdown()
    steps = read_run(result.path).steps
    assert result.outcome == "harness_error"
    assert "channel" in steps[-1].harness_error and steps[-1].observations == []
    assert labelled(api, result.path) == []


EDITS = [  # (setup as the agent, or as root after ROOT; arguments): every way edit_file answers
    ("", {"path": "notes/new.txt", "old_str": "", "new_str": "one\ntwo\n"}),
    ("printf 'a = 1\\nb = 2\\n' > /workspace/m.py",
     {"path": "m.py", "old_str": "b = 2", "new_str": "b = 3"}),
    ("printf 'x\\n' > /workspace/m.py",
     {"path": "/workspace/m.py", "old_str": "absent", "new_str": "y"}),
    ("printf 'x x\\n' > /workspace/m.py",
     {"path": "m.py", "old_str": "x", "new_str": "y"}),
    ("printf 'x\\n' > /workspace/m.py",
     {"path": "m.py", "old_str": "", "new_str": "exists"}),
    ("ROOT printf 'owned = 1\\n' > /tmp/root.py", {"path": "/tmp/root.py", "old_str": "owned", "new_str": "mine"}),
    ("mkdir -p /workspace/pkg", {"path": "pkg", "old_str": "a", "new_str": "b"}),
    ("printf '\\377\\376 bytes\\n' > /workspace/bin.dat",
     {"path": "bin.dat", "old_str": "bytes", "new_str": "text"}),
    ("", {"path": "/etc/impasse-new", "old_str": "", "new_str": "denied"}),
    ("", {"path": "missing/deeper.py", "old_str": "x", "new_str": "y"}),
    ("", {"path": "uni.txt", "old_str": "", "new_str": "caf\u00e9 \u2713\n"}),
]


@pytest.mark.parametrize(("setup", "arguments"), EDITS)
def test_an_edit_in_the_channel_answers_and_changes_what_the_edit_tool_would(api, base_image, setup, arguments):
    """The channel runs edit_file.py's code in a fork of itself; the plain path starts python3 on
    it. Same output, exit code and resulting file, case by case, each in a fresh container."""
    from impasse.episode.tools import edit_command, edit_payload
    results = []
    for via_channel in (True, False):
        with open_sandbox(api, SandboxSpec(image=base_image, labels={"impasse.run_id": "t-channel"})) as box:
            if setup.startswith("ROOT "):
                box.exec_root(setup.removeprefix("ROOT "))
            else:
                box.exec(setup)
            if via_channel:
                channel = Channel(box)
                result = channel.edit(edit_payload(arguments))
                channel.close()
            else:
                result = box.exec(" ".join(edit_command(arguments)))
            files = box.exec_root("find /workspace /tmp -type f | sort | xargs -r md5sum").output
            results.append((result.output, result.exit_code, files))
    assert results[0] == results[1]


def test_an_edit_that_hangs_is_killed_at_its_timeout_and_the_channel_goes_on(box):
    box.exec("mkfifo /workspace/pipe")
    from impasse.episode.tools import edit_payload
    channel = Channel(box)
    result = channel.edit(edit_payload({"path": "pipe", "old_str": "a", "new_str": "b"}), timeout=1)
    assert result.timed_out and result.exit_code == 124 and result.duration < 5
    assert channel.run("echo still here").output == "still here\n"
