"""A matrix asks the endpoint its runs will use: `--base-url` and `--key-env` on `matrix` as on `run`,
a matrix file's top-level and per-model endpoints, and the preflight asks exactly those. Bad
endpoints (not a URL, an HTML page, one that hangs) are refused in one line before any container,
exit 2. Real local sockets, no Docker: every refusal comes before the engine is touched."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from impasse.models import ModelSpecError, check_spec, endpoint_problem
from impasse.models.config import ModelConfig, with_endpoint
from impasse.runs import preflight
from impasse.runs.matrix import MatrixError, MatrixSpec, load_matrix_file

TASK = "invoicekit-tax-rounding"


@contextlib.contextmanager
def html_server():
    """Answers every request with 200 and a web page, as a proxy's login page or a wrong port does."""
    class Page(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            data = b"<!DOCTYPE html><html><body>Please sign in</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def silent_server():
    """Accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold():
        listener.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])

    threading.Thread(target=hold, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        for connection in held:
            connection.close()
        listener.close()


def impasse(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "impasse", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", **env},
                          stdin=subprocess.DEVNULL)


def test_a_model_takes_the_matrix_endpoint_and_key_only_where_it_names_none():
    own = ModelConfig("openai:a", base_url="http://own:1/v1", key_env="OWN_KEY")
    bare = ModelConfig("openai:b")
    spec = MatrixSpec([own, bare], base_url="http://shared:2/v1", key_env="SHARED_KEY")
    assert [(m.base_url, m.key_env) for m in spec.endpoints()] == [("http://own:1/v1", "OWN_KEY"),
                                                                    ("http://shared:2/v1", "SHARED_KEY")]
    run = spec.run_spec(bare, "none", TASK, 0).model_config
    assert (run.base_url, run.key_env) == ("http://shared:2/v1", "SHARED_KEY")  # the runs ask what preflight asked
    assert with_endpoint(bare, None, None) == bare


def test_a_matrix_file_takes_a_top_level_key_variable_and_refuses_a_bad_one(tmp_path: Path):
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump({"models": ["openai:m"], "base_url": "http://h:1/v1", "key_env": "MY_KEY"}))
    assert load_matrix_file(path).endpoints()[0].key_env == "MY_KEY"
    path.write_text(yaml.safe_dump({"models": ["openai:m"], "key_env": "not a name"}))
    with pytest.raises(MatrixError, match="key_env"):
        load_matrix_file(path)


@pytest.mark.parametrize("url", ["localhost:8000/v1", "ftp://host/v1", "http:///v1", "not a url"])
def test_an_endpoint_that_is_not_a_url_is_refused_by_name(url):
    assert "is not an http:// or https:// URL" in endpoint_problem(url)
    with pytest.raises(ModelSpecError, match="not an http"):
        check_spec("openai:m", url)


def test_urls_that_are_endpoints_pass():
    assert endpoint_problem("http://127.0.0.1:8000/v1") is None
    assert endpoint_problem("https://gateway.example/openai/v1") is None and endpoint_problem(None) is None


@pytest.mark.parametrize("where", ["run", "matrix", "file"])
def test_a_bad_url_is_one_line_and_exit_2_from_run_matrix_and_a_file(tmp_path: Path, where):
    if where == "run":
        done = impasse("run", "--model", "openai:m", "--base-url", "localhost:8000", "--condition", "none",
                       "--task", TASK, "--out", str(tmp_path / "runs"))
    elif where == "matrix":
        done = impasse("matrix", "--models", "openai:m", "--base-url", "localhost:8000", "--conditions", "none",
                       "--tasks", TASK, "--out", str(tmp_path / "runs"))
    else:
        path = tmp_path / "m.yaml"
        path.write_text(yaml.safe_dump({"models": [{"spec": "openai:m", "base_url": "localhost:8000"}],
                                        "conditions": ["none"], "tasks": [TASK], "out": str(tmp_path / "runs")}))
        done = impasse("matrix", "--file", str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    message = done.stderr.strip()
    assert "'localhost:8000' is not an http:// or https:// URL" in message and "Traceback" not in message
    assert not (tmp_path / "runs").exists()


def test_an_endpoint_that_answers_a_web_page_is_refused_at_preflight(tmp_path: Path):
    with html_server() as url:
        answer = preflight.ask(ModelConfig("openai:m", base_url=url), timeout=10)
        done = impasse("matrix", "--models", "openai:m", "--base-url", url, "--conditions", "none", "--tasks", TASK,
                       "--out", str(tmp_path / "runs"))
    assert answer and "not the openai API's" in answer
    assert done.returncode == 2, done.stdout + done.stderr
    assert "refused at preflight, no container started" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists()


def test_an_endpoint_that_hangs_is_refused_at_the_preflights_deadline():
    with silent_server() as url:
        started = time.monotonic()
        answer = preflight.ask(ModelConfig("openai:m", base_url=url), timeout=120, deadline=1.5)
        waited = time.monotonic() - started
    assert answer and answer.startswith("the endpoint did not answer within"), answer
    assert waited < 60  # the deadline, not the model timeout (120 s) times its retries
