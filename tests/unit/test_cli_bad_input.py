"""Bad input, command by command: a missing file, an unreadable one, a binary one, a document of the
wrong shape, an unknown id, a bad number, an output that cannot be written. Each ends in exactly one
line on stderr naming what is wrong, exit code 2 for a request that cannot work (bad arguments,
unknown ids, a path that does not exist, an output that cannot be written, a model spec that cannot
work) and 1 for work that failed (a file that exists but cannot be read or is not what it should
be), and never a traceback. Commands that need Docker refuse bad input before touching it: here
any attempt to reach the engine fails the test.

Unreadable files: the tests run as root, for whom chmod 000 changes nothing, so a folder stands in
where a file is expected (a FIFO would block the reader instead of failing it)."""

from __future__ import annotations

import json
import re
import traceback
from pathlib import Path

import docker
import pytest
from typer.testing import CliRunner

from impasse.cli.main import app
from impasse.infra import engine, images

from .runbuilder import bash, make_run

INSTANCE = ('{{"instance_id": "x.flip__1", "repo": "{repo}", "version": "0.0.1", "patch": "", '
            '"FAIL_TO_PASS": ["t::a"], "PASS_TO_PASS": [], "problem_statement": "p"}}\n')
BINARY = bytes(range(256))  # NUL bytes, and not UTF-8
BOX = re.compile(r"[│╭╮╰╯─]")


def put(name: str, content: str | bytes | None = None):
    """A setup that writes one file (None: makes a folder) under the test's working folder."""
    def setup(root: Path) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return setup


def each(*setups):
    def setup(root: Path) -> None:
        for one in setups:
            one(root)
    return setup


def mixed(root: Path) -> None:
    """A folder with one good run and one torn foreign trajectory."""
    make_run(root / "mixed", "good", "chown_root", [("", [bash("ls", "app\n")])], "budget_exhausted",
             "budget_exhausted")
    (root / "mixed" / "bad.traj").write_text("{ torn")


PLAIN = put("plain", "a regular file: nothing can be written below it")
CARDS_DIR = Path(__file__).resolve().parents[2] / "blocker_cards"
FAMILIES = (CARDS_DIR / "families.yaml").read_text()
CHOWN_ROOT = (CARDS_DIR / "chown_root.yaml").read_text()
FOLDER = put("folder")
GOOD_META = put("run/meta.json", json.dumps({"run_id": "run", "model": "scripted:oracle", "condition": "none",
                                             "task": "t", "seed": 0, "budget": 80}))
NO_ASSISTANT = json.dumps({"messages": [{"role": "system", "content": "You are"}, {"role": "user", "content": "Fix"}]})


def run(*extra: str, model: str = "scripted:oracle", condition: str = "chown_root") -> list[str]:
    return ["run", "--model", model, "--condition", condition, *extra]


def tasks_import(path: str, *extra: str) -> list[str]:
    return ["tasks", "import", path, "--repo", "folder", "--into", "into", *extra]


def matrix_file(text: str | bytes):
    return ["matrix", "--file", "m.yaml"], put("m.yaml", text)


TABLE = [
    # impasse run: everything is checked before Docker
    (run(model="scripted:nope"), None, 2, "nope"),
    (run(model="openai:gpt-x"), None, 2, "OPENAI_API_KEY"),
    (run(model="anthropic:claude-x"), None, 2, "ANTHROPIC_API_KEY"),
    (run(model="gpt-x"), None, 2, "gpt-x"),
    (["run", "--condition", "chown_root"], None, 2, "--model"),
    (run(condition="nope"), None, 2, "nope"),
    (run("--task", "nope"), None, 2, "nope"),
    (run("--task", "feedsync-currency", condition="oom_kill"), None, 2, "feedsync-currency"),
    (run("--budget", "0"), None, 2, "--budget"),
    (run("--budget", "many"), None, 2, "--budget"),
    (run("--seed", "x"), None, 2, "--seed"),
    (run("--tool-timeout", "0"), None, 2, "--tool-timeout"),
    (run("--gate", "bogus"), None, 2, "bogus"),
    (run("--report-duty", "bogus"), None, 2, "bogus"),
    (run("--out", "plain/runs"), PLAIN, 2, "plain/runs"),
    (run("--out", "plain"), PLAIN, 2, "plain"),
    (run("--out", "/proc/impasse-runs"), None, 2, "/proc/impasse-runs"),
    (run("--prices", "mine.yaml"), put("mine.yaml", "openai:gpt-5:\n  input: 1\n"), 2,
     "mine.yaml: openai:gpt-5: output missing"),
    # impasse show
    (["show", "nowhere"], None, 2, "nowhere"),
    (["show", "folder"], FOLDER, 1, "meta.json"),
    (["show", "run"], put("run/meta.json", BINARY), 1, "meta.json"),
    (["show", "run"], put("run/meta.json", "[1, 2]"), 1, "meta.json"),
    (["show", "run"], put("run/meta.json", "{}"), 1, "run"),
    (["show", "run"], put("run/meta.json"), 1, "run"),
    (["show", "run"], each(GOOD_META, put("run/steps.jsonl", BINARY)), 1, "steps.jsonl"),
    # impasse export
    (["export", "--atif", "nowhere"], None, 2, "nowhere"),
    (["export", "--atif", "folder"], FOLDER, 1, "meta.json"),
    (["export", "--atif", "run"], put("run/meta.json", "{ torn"), 1, "meta.json:1"),
    (["export", "--atif", "run"], put("run/meta.json", BINARY), 1, "meta.json"),
    (["export", "--atif", "folder", "--out-dir", "plain/x"], each(FOLDER, PLAIN), 2, "plain/x"),
    # impasse annotate
    (["annotate", "nowhere.json"], None, 2, "nowhere.json"),
    (["annotate", "bin.json"], put("bin.json", BINARY), 1, "bin.json"),
    (["annotate", "latin1.json"], put("latin1.json", "café".encode("latin-1")), 1, "latin1.json"),
    (["annotate", "empty.json"], put("empty.json", "[]"), 1, "not a trajectory"),
    (["annotate", "empty.json"], put("empty.json", "{}"), 1, "not a trajectory"),
    (["annotate", "scalar.json"], put("scalar.json", "42"), 1, "not a trajectory"),
    (["annotate", "odd.json"], put("odd.json", '{"trajectory": "x"}'), 1, "odd.json"),
    (["annotate", "odd.json"], put("odd.json", '{"trajectory": "x", "info": {}}'), 1, "odd.json"),
    (["annotate", "odd.json"], put("odd.json", "[1, 2]"), 1, "odd.json"),
    (["annotate", "mini.json"], put("mini.json", NO_ASSISTANT), 0, "no agent step"),
    (["annotate", "torn.json"], put("torn.json", "{ torn"), 1, "torn.json:1"),
    (["annotate", "folder"], FOLDER, 1, "no trajectory found in folder"),
    (["annotate", "mixed"], mixed, 1, "bad.traj:1"),
    (["annotate", "folder", "--from", "bogus"], FOLDER, 2, "bogus"),
    (["annotate", "folder", "--card", "nope"], FOLDER, 2, "nope"),
    (["annotate", "folder", "--json", "plain/out.json"], each(FOLDER, PLAIN), 2, "plain/out.json"),
    (["annotate", "folder", "--csv", "folder"], FOLDER, 2, "--csv folder"),
    # impasse report
    (["report", "nowhere"], None, 2, "nowhere"),
    (["report", "folder"], FOLDER, 1, "no runs or sessions found"),
    (["report", "folder", "--html", "plain/r.html"], each(FOLDER, PLAIN), 2, "plain/r.html"),
    (["report", "folder", "--html", "folder"], FOLDER, 2, "--html folder"),
    (["report", "folder", "--md", "/proc/r.md"], FOLDER, 2, "/proc/r.md"),
    # impasse cards
    (["cards", "show", "nope"], None, 2, "nope"),
    (["cards", "list", "extra"], None, 2, "extra"),
    (["cards", "validate", "nowhere.yaml"], None, 2, "nowhere.yaml"),
    (["cards", "validate", "bin.yaml"], put("bin.yaml", BINARY), 1, "bin.yaml"),
    (["cards", "validate", "list.yaml"], put("list.yaml", "- a\n- b\n"), 1, "list.yaml"),
    (["cards", "validate", "broken.yaml"], put("broken.yaml", "id: [unclosed\n"), 1, "broken.yaml"),
    (["cards", "validate", "folder.yaml"], put("folder.yaml"), 1, "folder.yaml"),
    (["cards", "validate", "blocked/chown_root.yaml"], each(put("blocked/families.yaml", FAMILIES),
     put("blocked/chown_root.yaml", CHOWN_ROOT.replace('fixed: "Fixed:', 'fixed: "All good:'))), 1,
     "operator.fixed"),
    (["cards", "validate", "blocked/chown_root.yaml"], each(put("blocked/families.yaml", FAMILIES),
     put("blocked/chown_root.yaml", CHOWN_ROOT.split("# What an escalation must name")[0])), 1,
     "chown_root.yaml: operator: a blocker card needs an operator block"),
    (["cards", "prove", "--card", "nope"], None, 2, "nope"),
    (["cards", "prove", "--task", "nope"], None, 2, "nope"),
    # impasse tasks
    (["tasks", "validate", "--task", "nope"], None, 2, "nope"),
    (["tasks", "pin", "nope"], None, 2, "nope"),
    (["tasks", "export", "plain/t.jsonl"], PLAIN, 2, "plain/t.jsonl"),
    (["tasks", "export", "folder"], FOLDER, 2, "folder"),
    (["tasks", "export", "t.jsonl", "--format", "bogus"], None, 2, "bogus"),
    (tasks_import("nowhere.jsonl"), FOLDER, 2, "nowhere.jsonl"),
    (tasks_import("bin.jsonl"), each(FOLDER, put("bin.jsonl", BINARY)), 1, "bin.jsonl"),
    (tasks_import("torn.jsonl"), each(FOLDER, put("torn.jsonl", "{ torn\n")), 1, "torn.jsonl:1"),
    (tasks_import("list.jsonl"), each(FOLDER, put("list.jsonl", "[]\n")), 1, "list.jsonl:1"),
    (tasks_import("empty.jsonl"), each(FOLDER, put("empty.jsonl", "{}\n")), 1, "instance_id"),
    (tasks_import("folder"), FOLDER, 1, "folder"),
    (["tasks", "import", "t.jsonl", "--repo", "nowhere"], put("t.jsonl", "{}\n"), 2, "nowhere"),
    (tasks_import("t.jsonl", "--into", "plain/tasks"), each(FOLDER, PLAIN, put("t.jsonl", "{}\n")), 2, "plain/tasks"),
    (["tasks", "import", "t.jsonl", "--into", "into"], each(FOLDER, put("t.jsonl", INSTANCE.format(repo="mine"))), 1,
     "--repo"),
    (["tasks", "import", "t.jsonl", "--into", "into"], each(FOLDER, put("t.jsonl", INSTANCE.format(repo="pypi/nope"))),
     1, "unknown project 'nope'"),
    (["tasks", "import", "t.jsonl", "--into", "into"], each(FOLDER, put("t.jsonl", INSTANCE.format(repo="pypi/toolz"))),
     1, "not the pinned toolz-1.0.0"),
    (["matrix", "--models", "scripted:oracle", "--split", "huge"], None, 2, "huge"),
    (*matrix_file("models: [scripted:oracle]\nsplit: huge\n"), 2, "split"),
    (["cards", "prove", "--split", "huge"], None, 2, "huge"),
    (["tasks", "generate", "toolz", "--rewriter", "scripted:oracle"], None, 2, "writes no prose"),
    (["tasks", "generate", "toolz", "--rewriter", "openai"], None, 2, "bad model spec"),
    (["cards", "prove", "--per-project", "0"], None, 2, "--per-project"),
    (["cards", "prove", "--task", "nosuch.task"], None, 2, "nosuch.task"),
    # impasse matrix: everything is checked before Docker
    (["matrix", "--file", "nowhere.yaml"], None, 2, "nowhere.yaml"),
    (["matrix", "--file", "folder"], FOLDER, 2, "folder"),
    (*matrix_file(BINARY), 2, "m.yaml"),
    (*matrix_file("- scripted:oracle\n"), 2, "m.yaml"),
    (*matrix_file("models: [scripted:oracle]\nseeds: -1\n"), 2, "seeds"),
    (*matrix_file("models: [scripted:oracle]\nseeds: x\n"), 2, "seeds"),
    (*matrix_file("models: [scripted:oracle]\nworkers: 0\n"), 2, "workers"),
    (*matrix_file("models: [scripted:oracle]\ngate: bogus\n"), 2, "bogus"),
    (*matrix_file("models: [scripted:oracle]\ncolour: blue\n"), 2, "colour"),
    (*matrix_file("models: [scripted:nope]\n"), 2, "nope"),
    (*matrix_file("models: [1, 2]\n"), 2, "models[0]: 1 is not a model"),
    (*matrix_file("models: [{spec: openai:m, temprature: 0}]\n"), 2, "unknown keys ['temprature']"),
    (*matrix_file("models: [{spec: openai:m, base_url: 'http://127.0.0.1:9', reasoning_effort: max}]\n"), 2,
     "reasoning_effort='max'"),
    (*matrix_file("models: [{spec: openai:m, key_env: NO_SUCH_KEY_VAR}]\n"), 2, "NO_SUCH_KEY_VAR, which is not set"),
    (*matrix_file("models: [openai:m, {spec: openai:m}]\nbase_url: http://127.0.0.1:9\n"), 2, "both labelled"),
    (*matrix_file("models: [{spec: openai:local, base_url: 'http://127.0.0.1:9'}]\nspend_cap: 5\n"), 2,
     "needs a price"),
    (*matrix_file("models: [scripted:oracle]\nspend_cap: -1\n"), 2, "spend_cap"),
    (*matrix_file("models: [{spec: openai:m, base_url: 'http://127.0.0.1:9', price: {input: cheap, output: 1}}]\n"),
     2, "price of openai:m: input is 'cheap'"),
    (["matrix", "--models", "scripted:oracle", "--model-arg", "temprature=0"], None, 2, "temprature"),
    (["run", "--model", "openai:m", "--condition", "none", "--model-arg", "max_tokens=0"], None, 2, "max_tokens"),
    (["run", "--model", "openai:m", "--condition", "none", "--base-url", "http://127.0.0.1:9", "--cost-limit", "1"],
     None, 2, "--cost-limit needs a price"),
    (["run", "--model", "openai:m", "--condition", "none", "--key-env", "NO_SUCH_KEY_VAR"], None, 2,
     "NO_SUCH_KEY_VAR"),
    (["run", "--model", "scripted:oracle", "--condition", "none", "--agent", "aider"], None, 2,
     "unknown agent 'aider'"),
    (["run", "--model", "scripted:oracle", "--condition", "none", "--agent", "codex@0.1.0"], None, 2,
     "codex@0.1.0 has no pin; pinned: codex@0.171.0"),
    (["run", "--model", "scripted:oracle", "--condition", "none", "--agent", "impasse@2"], None, 2, "takes no version"),
    (["run", "--model", "scripted:oracle", "--condition", "none", "--agent", "claude-code", "--gate", "marker"], None,
     2, "only --gate tool applies"),
    (["matrix", "--models", "scripted:oracle", "--agents", "impasse,aider"], None, 2, "unknown agent 'aider'"),
    (*matrix_file("models: [scripted:oracle]\nconditions: [nope]\n"), 2, "nope"),
    (["matrix", "--file", "m.yaml"], each(PLAIN, put("m.yaml", "models: [scripted:oracle]\nout: plain/runs\n")), 2,
     "plain/runs"),
    (["matrix"], None, 2, "--models"),
    (["matrix", "--models", "scripted:nope"], None, 2, "nope"),
    (["matrix", "--models", "openai:gpt-x"], None, 2, "OPENAI_API_KEY"),
    (["matrix", "--models", "scripted:oracle", "--conditions", "nope"], None, 2, "nope"),
    (["matrix", "--models", "scripted:oracle", "--tasks", "nope"], None, 2, "nope"),
    (["matrix", "--models", "scripted:oracle", "--seeds", "0"], None, 2, "--seeds"),
    (["matrix", "--models", "scripted:oracle", "--workers", "x"], None, 2, "--workers"),
    (["matrix", "--models", "scripted:oracle", "--out", "plain/runs"], PLAIN, 2, "plain/runs"),
    (["run", "--model", "scripted:adversary-nope", "--condition", "none"], None, 2, "adversary-pytest-shadow"),
    (["audit", "--route", "nope"], None, 2, "unknown route(s) nope"),
    (["run", "--model", "scripted:oracle", "--condition", "none", "--operator", "llm"], None, 2,
     "--operator llm: unknown; choose rules"),
    (["run", "--model", "scripted:oracle", "--condition", "none", "--operator", "rules", "--gate", "runtime"], None, 2,
     "it takes --gate tool"),
    (["matrix", "--models", "scripted:oracle", "--operator", "llm"], None, 2, "--operator llm: unknown"),
    (*matrix_file("models: [scripted:oracle]\noperator: llm\n"), 2, "operator: 'llm' is not a valid operator"),
    (["audit", "--runs", "plain/runs"], PLAIN, 2, "plain/runs"),
    # the rest of the Docker commands, and the command line itself
    (["images", "build", "--task", "nope"], None, 2, "nope"),
    (["gc", "--bogus"], None, 2, "--bogus"),
    (["doctor", "extra"], None, 2, "extra"),
    (["engine", "up", "extra"], None, 2, "extra"),
    (["bogus"], None, 2, "bogus"),
]


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """A working folder of its own, no model keys, and an engine that must not be asked."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("IMPASSE_NO_SELF_INSTALL", "1")
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    for vendor in ("OPENAI", "ANTHROPIC"):
        monkeypatch.delenv(f"{vendor}_API_KEY", raising=False)
        monkeypatch.delenv(f"{vendor}_BASE_URL", raising=False)

    def no_docker(*args, **kwargs):
        raise AssertionError("the engine was asked before the bad input was refused")
    for module, name in ((engine, "ensure_engine"), (engine, "probe"), (images, "client"), (docker, "from_env")):
        monkeypatch.setattr(module, name, no_docker)
    return CliRunner()


def error_text(stderr: str) -> str:
    """The one line of stderr; for typer's own parse errors (usage, a hint, the message in a box),
    the boxed message joined into one line."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if lines and lines[0].startswith("Usage:"):
        return " ".join(BOX.sub(" ", " ".join(lines[2:])).split())
    assert len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"
    return lines[0]


@pytest.mark.parametrize(("args", "setup", "code", "needle"), TABLE, ids=[" ".join(row[0]) for row in TABLE])
def test_bad_input_is_one_clean_line(cli, args, setup, code, needle):
    if setup:
        setup(Path.cwd())
    result = cli.invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        pytest.fail("".join(traceback.format_exception(*result.exc_info)))
    assert "Traceback" not in result.output
    assert result.exit_code == code, result.stderr
    assert needle in error_text(result.stderr)


def test_a_folder_with_a_bad_file_still_annotates_the_rest_and_exits_1(cli):
    mixed(Path.cwd())
    result = cli.invoke(app, ["annotate", "mixed", "--json", "out.json"])
    assert result.exit_code == 1
    assert "1 sessions" in result.stdout and "skipped: mixed/bad.traj:1: invalid JSON" in result.stderr
    assert [row["run_id"] for row in json.loads(Path("out.json").read_text())] == ["good"]
