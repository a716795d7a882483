"""The latency model (bench/latency_model.py) on a real local port, through the real `openai` client
and impasse's own adapter: the wire format, the latency it promises, answers that are the scripted
policy's own, and injected 429s and 5xx that the adapter retries to the right turn."""

from __future__ import annotations

import json
import random
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

from bench.latency_model import Latency, LatencyModel, start
from impasse.catalog.cards import get_card
from impasse.catalog.tasks import load_task_by_id
from impasse.episode.prompts import SYSTEM, task_prompt
from impasse.episode.tools import TOOLS
from impasse.models import TransportError
from impasse.models.openai_chat import OpenAIChat
from impasse.models.policies import make_policy

TASK = "invoicekit-tax-rounding"


@pytest.fixture
def served():
    servers = []

    def serve(**options) -> tuple[LatencyModel, str]:
        model = LatencyModel(**options)
        server, url = start(model)
        servers.append(server)
        return model, url
    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def opening() -> list[dict]:
    task = load_task_by_id(TASK)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": task_prompt(task.problem_statement, task.project.test_command)}]


def observe(messages: list[dict], turn, output: str) -> None:
    """What the agent loop appends after a turn: the assistant message and one observation per call."""
    messages.append({"role": "assistant", "content": turn.text,
                     "tool_calls": [c.to_message() for c in turn.tool_calls]})
    messages += [{"role": "tool", "tool_call_id": c.id, "content": output} for c in turn.tool_calls]


def test_wire_format_and_token_usage_through_the_openai_client(served):
    _, url = served()
    client = openai.OpenAI(api_key="unused", base_url=url, max_retries=0)
    messages = opening()
    response = client.chat.completions.create(model="oracle", messages=messages, tools=TOOLS)
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.role == "assistant"
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "bash"
    assert set(json.loads(call.function.arguments)) == {"command"}
    chars = len(json.dumps(messages)) + len(json.dumps(TOOLS))
    assert 0.9 * chars / 4 <= response.usage.prompt_tokens <= 1.1 * chars / 4
    assert 5 <= response.usage.completion_tokens <= 200
    assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens
    again = client.chat.completions.create(model="oracle", messages=messages, tools=TOOLS)
    assert again.choices[0].message.tool_calls[0].function.arguments == call.function.arguments  # stateless


def test_unknown_policy_and_foreign_conversation_are_refused_not_retried(served, monkeypatch):
    monkeypatch.setenv("IMPASSE_MODEL_BACKOFF", "0.01")
    model, url = served()
    with pytest.raises(TransportError, match="unknown policy"):
        OpenAIChat("teleporter", base_url=url).complete(opening(), TOOLS)
    messages = opening()
    messages.append({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "rm -rf /"}'}}]})
    messages.append({"role": "tool", "tool_call_id": "c1", "content": "exit code: 0\n"})
    with pytest.raises(TransportError, match="diverged"):
        OpenAIChat("oracle", base_url=url).complete(messages, TOOLS)
    assert model.stats.to_dict()["statuses"] == {"400": 2}


def test_latency_draws_stay_within_their_bounds():
    rng = random.Random(7)
    uniform = [Latency.parse("uniform:1:4").draw(rng) for _ in range(2000)]
    assert 1 <= min(uniform) < 1.1 and 3.9 < max(uniform) <= 4
    lognormal = [Latency.parse("lognormal:1:4").draw(rng) for _ in range(2000)]
    assert min(lognormal) >= 1 and max(lognormal) <= 4
    assert 1.8 < statistics.median(lognormal) < 2.2  # √(1·4)
    assert Latency.parse("fixed:0.5").draw(rng) == 0.5
    for bad in ("uniform:4:1", "fixed", "gamma:1:2"):
        with pytest.raises(ValueError):
            Latency.parse(bad)


def test_requests_wait_their_latency_and_wait_together(served):
    model, url = served(latency=Latency.parse("fixed:0.4"))
    chat = OpenAIChat("oracle", base_url=url)
    chat.complete(opening(), TOOLS)  # the client's first connection and imports, outside the clock
    clock = time.monotonic()
    chat.complete(opening(), TOOLS)
    assert 0.4 <= time.monotonic() - clock < 0.9
    clock = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: chat.complete(opening(), TOOLS), range(8)))
    assert time.monotonic() - clock < 1.6  # eight 0.4 s turns at once, not one after the other
    assert model.stats.to_dict()["peak_in_flight"] == 8


def test_injected_429_and_5xx_are_retried_to_the_policys_own_turns(served, monkeypatch):
    monkeypatch.setenv("IMPASSE_MODEL_BACKOFF", "0.01")
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "30")
    model, url = served(rate_429=0.3, rate_5xx=0.3, seed=3)
    chat = OpenAIChat(f"workaround@{TASK}@chown_root@s5", base_url=url)
    local = make_policy("workaround", (load_task_by_id(TASK), get_card("chown_root")), seed=5)
    messages, commands = opening(), []
    for step in range(8):
        remote, expected = chat.complete(messages, TOOLS), local.complete(messages, TOOLS)
        assert [(c.name, c.arguments) for c in remote.tool_calls] == \
               [(c.name, c.arguments) for c in expected.tool_calls], f"turn {step}"
        assert remote.usage["prompt_tokens"] > 0
        commands += [c.arguments.get("command") for c in remote.tool_calls]
        # the blocker shows after exploring: the workaround policy then runs the card's commands
        observe(messages, remote, "exit code: 1\nPermission denied" if step >= 2 else "exit code: 0\nok")
    statuses = model.stats.to_dict()["statuses"]
    assert statuses["200"] == 8
    assert statuses.get("429", 0) >= 1 and statuses.get("500", 0) + statuses.get("503", 0) >= 1
    assert set(get_card("chown_root").proof_commands) & set(commands)  # the card reached the server's policy
