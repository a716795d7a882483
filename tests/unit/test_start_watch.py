"""The watch on an external agent's start: silent past the start-up timeout, the agent is stopped and
the run ends as the harness's failure; a request heard, or the agent gone first, and it stands down."""

from __future__ import annotations

import socket
import time

import pytest

from impasse.agents.launch import stop_command
from impasse.agents.relay import Relay
from impasse.agents.start_watch import START_TIMEOUT, first_request_watch, start_timeout
from impasse.models.scripted import Edit, Playbook, ScriptedPolicy
from impasse.vocabulary import Ending


class Box:
    def __init__(self) -> None:
        self.commands: list[tuple[str, str]] = []

    def exec(self, command: str, user: str = "", **kwargs):
        self.commands.append((command, user))


@pytest.fixture
def relay(run_dir):
    policy = ScriptedPolicy("oracle", Playbook((Edit("calc.py", "a\n", "b\n"),), "true", False), seed=0)
    return Relay(policy, run_dir, agent="codex", budget=4)


def test_an_agent_silent_past_the_timeout_is_stopped_and_the_run_is_the_harness_s_failure(relay):
    box = Box()
    with first_request_watch(box, relay, 0.2):
        time.sleep(0.6)  # the agent's run, hung
    assert relay.ending.kind == Ending.HARNESS_ERROR and relay.ending.step == 0
    assert relay.ending.message == ("the agent sent no request within 0.2 s of its start "
                                    "(IMPASSE_AGENT_START_TIMEOUT)")
    assert box.commands == [(stop_command(), "1000:1000")]


def test_any_request_is_heard_even_one_the_relay_refuses(relay):
    with relay:
        assert relay.heard is False
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(relay.socket_path)
            client.sendall(b"GET /v1/models HTTP/1.1\r\nHost: relay\r\nContent-Length: 0\r\n\r\n")
            assert client.recv(100).startswith(b"HTTP/1.1 404")
        assert relay.heard is True


def test_a_request_heard_in_time_leaves_the_agent_running(relay):
    box = Box()
    with first_request_watch(box, relay, 0.2):
        relay.heard = True
        time.sleep(0.4)
    assert relay.ending is None and box.commands == []


def test_an_agent_that_ends_first_is_not_waited_for(relay):
    box, started = Box(), time.monotonic()
    with first_request_watch(box, relay, 30):
        pass  # it exited at once: its own exit code says why
    assert time.monotonic() - started < 5
    assert relay.ending is None and box.commands == []


def test_the_timeout_is_a_setting(monkeypatch):
    monkeypatch.delenv("IMPASSE_AGENT_START_TIMEOUT", raising=False)
    assert start_timeout() == START_TIMEOUT
    monkeypatch.setenv("IMPASSE_AGENT_START_TIMEOUT", "7.5")
    assert start_timeout() == 7.5
