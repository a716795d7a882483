"""impasse's adapters against a local provider that answers as the documented APIs do
(tests/fakes/providers.py): each defect of real endpoints met by people running real models, fixed."""

from __future__ import annotations

import pytest

from impasse.models import ContextExhausted, RequestRefused, TransportError, make_model
from impasse.models.config import settings_from_args
from impasse.runs.preflight import preflight
from tests.fakes.providers import FakeProvider, Rules, rate_limited, text, thinking_tool_call, tool_call

KEY = Rules().api_key
TOOLS = [{"type": "function", "function": {"name": "bash", "description": "Run a command.",
                                             "parameters": {"type": "object", "properties": {
                                                 "command": {"type": "string"}}, "required": ["command"]}}}]
SYSTEM = "You are a careful engineer. " * 300  # long enough to be worth caching (≥ 1024 tokens)


def conversation(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Fix the rounding bug."}]
    for number in range(turns):
        messages += [{"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{number}", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]},
            {"role": "tool", "tool_call_id": f"c{number}", "content": "invoicekit\ntests\n"}]
    return messages


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("IMPASSE_MODEL_BACKOFF", "0.01")


def openai(api: FakeProvider, name: str = "gpt-5", *args: str):
    return make_model(f"openai:{name}", base_url=api.base_url, settings=settings_from_args(list(args)))


def anthropic(api: FakeProvider, name: str = "claude-sonnet-4-5", *args: str):
    return make_model(f"anthropic:{name}", base_url=api.url, settings=settings_from_args(list(args)))


def test_a_reasoning_model_works_when_impasse_sends_no_temperature():
    with FakeProvider([tool_call("bash", {"command": "ls"})]) as api:
        turn = openai(api).complete(conversation(0), TOOLS)
    assert turn.tool_calls[0].arguments == {"command": "ls"}
    assert "temperature" not in api.requests[0].body


def test_a_temperature_the_model_refuses_is_refused_at_preflight_in_the_providers_words():
    with FakeProvider([]) as api:
        refusals = preflight([config(api, "openai:gpt-5", "temperature=0")], timeout=10)
    assert len(refusals) == 1 and refusals[0].model == "openai:gpt-5[temperature=0]"
    assert "HTTP 400: Unsupported value: 'temperature' does not support 0" in str(refusals[0])


def config(api: FakeProvider, spec: str, *args: str, key_env: str | None = None):
    from impasse.models.config import ModelConfig
    base = api.url if spec.startswith("anthropic") else api.base_url
    return ModelConfig(spec, base_url=base, key_env=key_env, settings=settings_from_args(list(args)))


def test_preflight_names_a_wrong_key_and_an_unknown_model_and_asks_each_endpoint_once(monkeypatch):
    monkeypatch.setenv("WRONG_KEY", "sk-wrong")
    with FakeProvider([text("ok")]) as api:
        refusals = preflight([config(api, "openai:gpt-4o"), config(api, "openai:gpt-4o"),
                              config(api, "openai:gpt-4o", key_env="WRONG_KEY"),
                              config(api, "openai:gpt-9000")], timeout=10)
        asked = len(api.requests)
    assert asked == 3  # the two identical models share one request
    assert [r.model for r in refusals] == ["openai:gpt-4o", "openai:gpt-9000"]
    assert "HTTP 401: Incorrect API key provided" in refusals[0].message
    assert "HTTP 404" in refusals[1].message and "gpt-9000" in refusals[1].message


def test_preflight_sends_the_tools_and_one_token():
    with FakeProvider([text("ok")]) as api:
        assert preflight([config(api, "openai:gpt-4o")], timeout=10) == []
    body = api.requests[0].body
    assert body["tools"] and body["max_completion_tokens"] == 1


def test_an_endpoint_that_takes_no_tools_is_refused_at_preflight():
    with FakeProvider([text("ok")], Rules(flavour="vllm", api_key=None, models=None, tools=False)) as api:
        refusals = preflight([config(api, "openai:qwen")], timeout=10)
    assert "tool" in refusals[0].message.lower()


@pytest.mark.parametrize("flavour", ["openai", "vllm", "llamacpp", "openrouter", "ollama"])
def test_a_context_overflow_is_the_agents_exhaustion_whatever_the_server(flavour):
    rules = Rules(flavour=flavour, api_key=None, models=None, context_window=500)
    with FakeProvider([tool_call("bash", {"command": "ls"})], rules) as api, pytest.raises(ContextExhausted):
        openai(api, "some-model").complete(conversation(0), TOOLS)


def test_anthropic_prompt_too_long_is_context_exhausted():
    with FakeProvider([], Rules(context_window=800)) as api, pytest.raises(ContextExhausted, match="too long"):
        anthropic(api).complete(conversation(3), TOOLS)


def test_a_refused_request_is_not_retried_and_a_rate_limit_is(monkeypatch):
    with FakeProvider([rate_limited(0.05), tool_call("bash", {"command": "ls"})]) as api:
        openai(api, "gpt-4o").complete(conversation(0), TOOLS)
        assert len(api.requests) == 2
    with FakeProvider([]) as api, pytest.raises(RequestRefused):
        openai(api, "gpt-unknown").complete(conversation(0), TOOLS)
    assert len(api.requests) == 1
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "2")
    with FakeProvider([rate_limited(0.01), rate_limited(0.01)]) as api, pytest.raises(TransportError):
        openai(api, "gpt-4o").complete(conversation(0), TOOLS)


def test_anthropic_thinking_blocks_come_back_signed_over_a_whole_tool_loop():
    """The fake refuses a thinking block changed or left out, as Anthropic does: three turns pass."""
    script = [thinking_tool_call(f"step {n}: look again", "bash", {"command": "ls"}) for n in range(3)]
    with FakeProvider(script) as api:
        model = anthropic(api, "claude-sonnet-4-5", "thinking=2048")
        messages = conversation(0)
        for _ in range(3):
            turn = model.complete(messages, TOOLS)
            call = turn.tool_calls[0]
            assert turn.reasoning.endswith("look again") and turn.text == ""
            messages += [{"role": "assistant", "content": turn.text, "tool_calls": [call.to_message()],
                          "carry": turn.carry},
                         {"role": "tool", "tool_call_id": call.id, "content": "ok"}]
    assert all(r.body["thinking"] == {"type": "enabled", "budget_tokens": 2048} for r in api.requests)


def test_thinking_blocks_left_out_are_refused_by_the_provider():
    """The check above can fail: the same loop without the carried blocks is refused."""
    script = [thinking_tool_call("look", "bash", {"command": "ls"})] * 2
    with FakeProvider(script) as api:
        model = anthropic(api, "claude-sonnet-4-5", "thinking=2048")
        turn = model.complete(conversation(0), TOOLS)
        call = turn.tool_calls[0]
        forgetful = conversation(0) + [{"role": "assistant", "content": "", "tool_calls": [call.to_message()]},
                                       {"role": "tool", "tool_call_id": call.id, "content": "ok"}]
        with pytest.raises(RequestRefused, match="thinking"):
            model.complete(forgetful, TOOLS)


def test_anthropic_caching_makes_each_turn_pay_only_for_what_is_new():
    with FakeProvider([tool_call("bash", {"command": "ls"})] * 3) as api:
        model = anthropic(api)
        used = [model.complete(conversation(turns), TOOLS).usage for turns in range(3)]
    assert "cached_tokens" not in used[0] or used[0]["cached_tokens"] == 0
    assert used[0]["cache_write_tokens"] > 1024
    for earlier, later in zip(used, used[1:], strict=False):
        new = later["prompt_tokens"] - earlier["prompt_tokens"]
        assert later["cached_tokens"] > 1024  # what was written is read back
        assert later["prompt_tokens"] - later["cached_tokens"] <= new + 64  # full price only for what is new


def test_openai_compatible_cached_and_reasoning_tokens_are_kept():
    with FakeProvider([tool_call("bash", {"command": "ls"})] * 2) as api:
        model = openai(api, "gpt-5", "reasoning_effort=high")
        model.complete(conversation(0), TOOLS)
        used = model.complete(conversation(1), TOOLS).usage
    assert used["cached_tokens"] > 1024 and used["reasoning_tokens"] == 1024
    assert api.requests[0].body["reasoning_effort"] == "high"


def test_the_responses_api_carries_encrypted_reasoning_between_turns_and_keeps_its_summary_apart():
    script = [thinking_tool_call("owner is root", "bash", {"command": "ls -l"}), tool_call("bash", {"command": "id"})]
    with FakeProvider(script) as api:
        model = make_model("openai-responses:gpt-5", base_url=api.base_url,
                           settings=settings_from_args(["reasoning_effort=low"]))
        turn = model.complete(conversation(0), TOOLS)
        assert (turn.text, turn.reasoning) == ("", "owner is root")
        assert turn.usage["reasoning_tokens"] > 0 and turn.carry[0]["type"] == "reasoning"
        call = turn.tool_calls[0]
        history = conversation(0) + [{"role": "assistant", "content": "", "tool_calls": [call.to_message()],
                                      "carry": turn.carry},
                                     {"role": "tool", "tool_call_id": call.id, "content": "root root"}]
        model.complete(history, TOOLS)
    first, second = (r.body for r in api.requests)
    assert first["store"] is False and first["include"] == ["reasoning.encrypted_content"]
    assert first["reasoning"] == {"effort": "low", "summary": "auto"} and "temperature" not in first
    kinds = [item.get("type", item.get("role")) for item in second["input"]]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    assert second["input"][1]["encrypted_content"] == turn.carry[0]["encrypted_content"]
    assert second["instructions"] == SYSTEM


def test_the_responses_api_context_overflow_and_preflight():
    with FakeProvider([], Rules(context_window=300)) as api, pytest.raises(ContextExhausted):
        make_model("openai-responses:gpt-4o", base_url=api.base_url).complete(conversation(2), TOOLS)
    with FakeProvider([text("ok")]) as api:
        assert preflight([config(api, "openai-responses:gpt-4o")], timeout=10) == []
        refused = preflight([config(api, "openai-responses:gpt-5", "temperature=0")], timeout=10)
    assert "temperature" in refused[0].message


def test_anthropic_sends_a_temperature_that_was_set():
    with FakeProvider([tool_call("bash", {"command": "ls"})]) as api:
        anthropic(api, "claude-sonnet-4-5", "temperature=0.3").complete(conversation(0), TOOLS)
    assert api.requests[0].body["temperature"] == 0.3
