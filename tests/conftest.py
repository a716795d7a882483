"""Shared fixtures. Integration tests (marked `docker`) use the real engine and the real images."""

from __future__ import annotations

import signal

import pytest

from impasse.infra import engine, images


@pytest.fixture(scope="session")
def api():
    try:
        engine.ensure_engine(log=lambda m: None)
    except engine.EngineUnavailable as err:
        pytest.fail(f"integration tests need the Docker engine: {err}")
    return images.client()


@pytest.fixture(scope="session")
def base_image(api) -> str:
    return images.ensure_base(api, log=lambda m: None)


def default_sigint() -> None:
    """For a child that a test will interrupt: a shell that starts jobs with `&` (or nohup) hands its
    children SIGINT ignored, and Python then never raises KeyboardInterrupt. Pass as preexec_fn."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def endpoint(monkeypatch):
    """Local endpoints answering from a script (tests/integration/endpoints.py), one attempt per
    request: `start(replies)` gives (script, url); every server is shut down after the test."""
    from tests.integration.endpoints import Script, serve
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "1")
    servers = []

    def start(replies: list):
        script = Script(replies)
        server, url = serve(script)
        servers.append(server)
        return script, url
    yield start
    for server in servers:
        server.shutdown()
