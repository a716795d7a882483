"""The local provider answers as the documented APIs do, driven through the real `openai` and
`anthropic` SDKs; and what it answers is read right by models/errors.py and models/retry.py."""

from __future__ import annotations

import anthropic
import httpx2
import openai
import pytest

from impasse.models import ContextExhausted, RequestRefused, retry
from impasse.models.errors import FailureKind, describe_anthropic, describe_openai
from tests.fakes.providers import (
    FakeProvider,
    Rules,
    hang,
    overloaded,
    rate_limited,
    server_error,
    text,
    thinking_tool_call,
    tool_call,
)
from tests.fakes.replies import tokens

K = FailureKind
BASH = {"type": "function", "function": {"name": "bash", "description": "Run a command.",
                                         "parameters": {"type": "object",
                                                        "properties": {"command": {"type": "string"}}}}}
ANTHROPIC_BASH = {"name": "bash", "description": "Run a command.",
                  "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
HELLO = [{"role": "user", "content": "Fix the failing test."}]


def openai_client(api, key=None, timeout=10.0, base_url=None):
    return openai.OpenAI(api_key=key or api.rules.api_key, base_url=base_url or api.base_url, max_retries=0,
                         timeout=timeout)


def anthropic_client(api, key=None):
    return anthropic.Anthropic(api_key=key or api.rules.api_key, base_url=api.url, max_retries=0, timeout=10.0)


def refusal(call, describe):
    """The SDK's exception for a refused call, and what errors.py reads in it."""
    with pytest.raises((openai.APIError, anthropic.APIError)) as raised:
        call()
    return raised.value, describe(raised.value)


@pytest.fixture
def pauses(monkeypatch):
    waited = []
    monkeypatch.setattr(retry, "sleep", waited.append)
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "4")
    return waited


# ---- OpenAI chat completions

def test_a_scripted_tool_call_comes_back_as_openai_tool_calls_with_usage_in_openais_keys():
    with FakeProvider([tool_call("bash", {"command": "ls"}, "Looking.")]) as api:
        reply = openai_client(api).chat.completions.create(model="gpt-4o", messages=HELLO, tools=[BASH])
    call = reply.choices[0].message.tool_calls[0]
    assert (call.function.name, call.function.arguments) == ("bash", '{"command": "ls"}')
    assert reply.choices[0].message.content == "Looking." and reply.choices[0].finish_reason == "tool_calls"
    assert reply.usage.prompt_tokens > 0 and reply.usage.total_tokens == reply.usage.prompt_tokens + \
        reply.usage.completion_tokens
    assert reply.usage.prompt_tokens_details.cached_tokens == 0
    assert reply.usage.completion_tokens_details.reasoning_tokens == 0  # gpt-4o does not reason
    seen = api.requests[0]
    assert seen.path == "/v1/chat/completions" and seen.headers["authorization"] == f"Bearer {api.rules.api_key}"
    assert seen.body["tools"] == [BASH]


def test_the_path_without_v1_answers_too():
    with FakeProvider([text("done")]) as api:
        reply = openai_client(api, base_url=api.url).chat.completions.create(model="gpt-4o", messages=HELLO)
    assert reply.choices[0].message.content == "done" and api.requests[0].path == "/chat/completions"


def test_a_wrong_key_is_refused_with_openais_401_and_takes_nothing_from_the_script():
    with FakeProvider([text("done")]) as api:
        err, failure = refusal(lambda: openai_client(api, key="sk-wrong-key-123456").chat.completions.create(
            model="gpt-4o", messages=HELLO), describe_openai)
        assert api.script == [text("done")]
    assert isinstance(err, openai.AuthenticationError) and err.code == "invalid_api_key"
    assert failure.kind is K.AUTH and failure.message.startswith("Incorrect API key provided: sk-***")


def test_no_key_at_all_gets_openais_other_401():
    with FakeProvider() as api:
        answer = httpx2.post(f"{api.base_url}/chat/completions", json={"model": "gpt-4o", "messages": HELLO})
    assert answer.status_code == 401 and "You didn't provide an API key" in answer.json()["error"]["message"]


def test_an_unknown_model_is_openais_404_model_not_found():
    with FakeProvider() as api:
        err, failure = refusal(lambda: openai_client(api).chat.completions.create(model="gpt-9", messages=HELLO),
                               describe_openai)
    assert isinstance(err, openai.NotFoundError) and err.code == "model_not_found"
    assert failure.kind is K.MODEL_NOT_FOUND and "`gpt-9` does not exist" in failure.message


def test_a_reasoning_model_refuses_temperature_but_reasons_at_the_effort_asked():
    with FakeProvider([text("ok")]) as api:
        client = openai_client(api)
        err, failure = refusal(lambda: client.chat.completions.create(model="gpt-5", messages=HELLO, temperature=0),
                               describe_openai)
        _, old_name = refusal(lambda: client.chat.completions.create(model="o3", messages=HELLO, max_tokens=10),
                              describe_openai)
        reply = client.chat.completions.create(model="gpt-5", messages=HELLO, reasoning_effort="high")
    assert failure.kind is K.REFUSED_PARAMETER and err.param == "temperature"
    assert failure.message == ("Unsupported value: 'temperature' does not support 0 with this model. Only the "
                               "default (1) value is supported.")
    assert old_name.kind is K.REFUSED_PARAMETER and "Use 'max_completion_tokens' instead" in old_name.message
    assert reply.usage.completion_tokens_details.reasoning_tokens == 1024
    assert reply.usage.completion_tokens == tokens("ok") + 1024


def test_a_model_that_does_not_reason_refuses_reasoning_effort():
    with FakeProvider() as api:
        _, failure = refusal(lambda: openai_client(api).chat.completions.create(
            model="gpt-4o", messages=HELLO, reasoning_effort="low"), describe_openai)
    assert failure.kind is K.REFUSED_PARAMETER and "'reasoning_effort' is not supported" in failure.message


def test_max_tokens_above_the_models_cap_is_refused():
    with FakeProvider(rules=Rules(max_output=1000)) as api:
        err, failure = refusal(lambda: openai_client(api).chat.completions.create(
            model="gpt-4o", messages=HELLO, max_completion_tokens=5000), describe_openai)
    assert failure.kind is K.REFUSED_PARAMETER and err.param == "max_completion_tokens"
    assert failure.message.startswith("max_tokens is too large: 5000. This model supports at most 1000")


LONG = [{"role": "user", "content": "x" * 2000}]  # ~500 tokens


@pytest.mark.parametrize("flavour, words", [
    ("openai", "This model's maximum context length is 200 tokens. However, your messages resulted in"),
    ("vllm", "This model's maximum context length is 200 tokens. However, your request has"),
    ("llamacpp", "exceeds the available context size (200 tokens)"),
    ("openrouter", "This endpoint's maximum context length is 200 tokens"),
    ("ollama", "the input length exceeds the context length"),
])
def test_a_conversation_past_the_window_gets_each_servers_overflow_and_ends_at_once(flavour, words, pauses):
    with FakeProvider([text("never")], Rules(flavour=flavour, context_window=200)) as api:
        client = openai_client(api)
        with pytest.raises(ContextExhausted) as raised:
            retry.with_retries(lambda: client.chat.completions.create(model="gpt-4o", messages=LONG),
                               describe_openai, "chat completion")
        assert len(api.requests) == 1 and pauses == []
    assert words in str(raised.value)


def test_openai_counts_the_completion_asked_for_against_the_window():
    with FakeProvider(rules=Rules(context_window=600)) as api:
        _, failure = refusal(lambda: openai_client(api).chat.completions.create(
            model="gpt-4o", messages=LONG, max_completion_tokens=500), describe_openai)
    assert failure.kind is K.CONTEXT_OVERFLOW and "in the messages, 500 in the completion" in failure.message


@pytest.mark.parametrize("flavour, status", [("vllm", 400), ("ollama", 400), ("openrouter", 404), ("llamacpp", 500)])
def test_a_server_without_tools_says_so_and_is_not_asked_again(flavour, status, pauses):
    with FakeProvider([text("never")], Rules(flavour=flavour, tools=False)) as api:
        client = openai_client(api)
        with pytest.raises(RequestRefused) as raised:
            retry.with_retries(lambda: client.chat.completions.create(model="gpt-4o", messages=HELLO, tools=[BASH]),
                               describe_openai, "preflight of openai:gpt-4o")
        assert len(api.requests) == 1  # even llama.cpp's 500 is final: it is about tools, not a fault
        assert describe_openai(raised.value.__cause__).kind is K.TOOLS_UNSUPPORTED
        assert client.chat.completions.create(model="gpt-4o", messages=HELLO).choices[0].message.content == "never"
    assert raised.value.status == status


def test_a_rate_limit_waits_what_the_provider_asked_then_answers(pauses):
    with FakeProvider([rate_limited(2.5), text("ok")]) as api:
        client = openai_client(api)
        reply = retry.with_retries(lambda: client.chat.completions.create(model="gpt-4o", messages=HELLO),
                                   describe_openai, "chat completion")
    assert reply.choices[0].message.content == "ok" and len(api.requests) == 2
    assert len(pauses) == 1 and 2.5 <= pauses[0] <= 2.75


def test_server_errors_run_out_as_a_transport_error(pauses, monkeypatch):
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "2")
    with FakeProvider([server_error(), server_error()]) as api:
        client = openai_client(api)
        with pytest.raises(retry.TransportError, match="failed after 2 attempts: HTTP 500: The server had an error"):
            retry.with_retries(lambda: client.chat.completions.create(model="gpt-4o", messages=HELLO),
                               describe_openai, "chat completion")


def test_a_hang_past_the_clients_timeout_is_a_connection_failure():
    with FakeProvider([hang(1.0)]) as api:
        _, failure = refusal(lambda: openai_client(api, timeout=0.2).chat.completions.create(
            model="gpt-4o", messages=HELLO), describe_openai)
    assert failure.kind is K.CONNECTION and failure.status is None


def test_an_exhausted_script_is_a_500_that_says_so():
    with FakeProvider() as api:
        _, failure = refusal(lambda: openai_client(api).chat.completions.create(model="gpt-4o", messages=HELLO),
                             describe_openai)
    assert failure.kind is K.SERVER and "script is exhausted" in failure.message


def test_openai_caches_a_long_prefix_seen_before_in_128_token_steps():
    system = {"role": "system", "content": "You are a careful engineer. " * 300}  # ~2100 tokens
    with FakeProvider([text("one"), text("two")]) as api:
        client = openai_client(api)
        first = client.chat.completions.create(model="gpt-4o", messages=[system, *HELLO])
        second = client.chat.completions.create(model="gpt-4o", messages=[system, *HELLO,
                                                                          {"role": "assistant", "content": "one"},
                                                                          {"role": "user", "content": "go on"}])
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    cached = second.usage.prompt_tokens_details.cached_tokens
    assert cached % 128 == 0 and first.usage.prompt_tokens - 128 < cached <= first.usage.prompt_tokens


@pytest.mark.parametrize("flavour, key", [("vllm", "reasoning_content"), ("openrouter", "reasoning")])
def test_compatible_servers_return_the_reasoning_text_under_their_own_key(flavour, key):
    with FakeProvider([thinking_tool_call("The test imports a missing module.", "bash", {"command": "ls"})],
                      Rules(flavour=flavour)) as api:
        reply = openai_client(api).chat.completions.create(model="gpt-4o", messages=HELLO, tools=[BASH])
    assert reply.choices[0].message.model_extra[key] == "The test imports a missing module."


# ---- the OpenAI Responses API

def test_the_responses_api_returns_reasoning_and_function_call_items():
    thinking = "Run the tests first to see the failure."
    with FakeProvider([thinking_tool_call(thinking, "bash", {"command": "pytest"})]) as api:
        client = openai_client(api)
        _, refused = refusal(lambda: client.responses.create(model="gpt-5", input="Fix it.", temperature=0.2),
                             describe_openai)
        reply = client.responses.create(model="gpt-5", input="Fix it.", reasoning={"effort": "low", "summary": "auto"},
                                        tools=[{"type": "function", "name": "bash", "parameters": {"type": "object"}}],
                                        include=["reasoning.encrypted_content"], store=False)
    assert refused.kind is K.REFUSED_PARAMETER and "does not support 0.2" in refused.message
    reasoning, call = reply.output
    assert reasoning.type == "reasoning" and reasoning.summary[0].text == thinking and reasoning.encrypted_content
    assert (call.type, call.name, call.arguments) == ("function_call", "bash", '{"command": "pytest"}')
    assert reply.usage.output_tokens_details.reasoning_tokens == tokens(thinking)
    assert api.requests[-1].path == "/v1/responses"


def test_the_responses_api_has_its_own_overflow_words():
    with FakeProvider(rules=Rules(context_window=100)) as api:
        _, failure = refusal(lambda: openai_client(api).responses.create(model="gpt-4o", input="y" * 1000),
                             describe_openai)
    assert failure.kind is K.CONTEXT_OVERFLOW and failure.message.startswith("Your input exceeds the context window")


# ---- Anthropic messages

def create(client, **extra):
    request = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": HELLO, "tools": [ANTHROPIC_BASH]}
    return client.messages.create(**(request | extra))


def test_a_tool_use_turn_with_anthropics_usage_keys():
    with FakeProvider([tool_call("bash", {"command": "ls"}, "Looking.")]) as api:
        reply = create(anthropic_client(api))
    assert [b.type for b in reply.content] == ["text", "tool_use"] and reply.stop_reason == "tool_use"
    assert reply.content[1].input == {"command": "ls"}
    assert reply.usage.cache_read_input_tokens == 0 and reply.usage.cache_creation_input_tokens == 0
    seen = api.requests[0].headers
    assert api.rules.api_key in (seen.get("x-api-key"), seen.get("authorization", "").removeprefix("Bearer "))


def test_anthropic_refuses_a_wrong_key_an_unknown_model_and_max_tokens_past_the_cap():
    with FakeProvider(rules=Rules(max_output=8192)) as api:
        key_err, key = refusal(lambda: create(anthropic_client(api, key="sk-ant-wrong")), describe_anthropic)
        _, model = refusal(lambda: create(anthropic_client(api), model="claude-9"), describe_anthropic)
        _, cap = refusal(lambda: create(anthropic_client(api), max_tokens=10000), describe_anthropic)
    assert isinstance(key_err, anthropic.AuthenticationError) and (key.kind, key.message) == (K.AUTH,
                                                                                               "invalid x-api-key")
    assert (model.kind, model.message) == (K.MODEL_NOT_FOUND, "model: claude-9")
    assert cap.kind is K.REFUSED_PARAMETER
    assert cap.message == ("max_tokens: 10000 > 8192, which is the maximum allowed number of output tokens for "
                           "claude-sonnet-4-5")


def test_anthropic_overflow_in_both_of_its_wordings():
    with FakeProvider(rules=Rules(context_window=600)) as api:
        _, prompt = refusal(lambda: create(anthropic_client(api), messages=[{"role": "user", "content": "x" * 4000}],
                                           max_tokens=10), describe_anthropic)
        _, with_max = refusal(lambda: create(anthropic_client(api), messages=LONG, max_tokens=500),
                              describe_anthropic)
    assert prompt.kind is K.CONTEXT_OVERFLOW and prompt.message.startswith("prompt is too long: ")
    assert prompt.message.endswith("tokens > 600 maximum")
    assert with_max.kind is K.CONTEXT_OVERFLOW
    assert with_max.message.startswith("input length and `max_tokens` exceed context limit: ")


def test_overloaded_and_rate_limited_are_waited_out(pauses):
    with FakeProvider([overloaded(), rate_limited(1.0), text("ok")]) as api:
        client = anthropic_client(api)
        reply = retry.with_retries(lambda: create(client), describe_anthropic, "message")
    assert reply.content[0].text == "ok" and len(api.requests) == 3 and len(pauses) == 2
    assert 1.0 <= pauses[1] <= 1.1  # the rate limit's retry-after


THINK = {"type": "enabled", "budget_tokens": 2048}


def tool_loop(reply, assistant_content):
    """The next request of a tool loop: the assistant's turn as given, then the tool's result."""
    use = next(b for b in reply.content if b.type == "tool_use")
    return [*HELLO, {"role": "assistant", "content": assistant_content},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "a.py b.py"}]}]


def test_thinking_blocks_are_signed_and_must_come_back_unchanged():
    thought = "The listing will show where the test lives."
    with FakeProvider([thinking_tool_call(thought, "bash", {"command": "ls"}), text("found it"), text("x")]) as api:
        client = anthropic_client(api)
        first = create(client, thinking=THINK)
        blocks = [b.model_dump(exclude_none=True) for b in first.content]
        assert blocks[0]["type"] == "thinking" and blocks[0]["thinking"] == thought and blocks[0]["signature"]
        second = create(client, thinking=THINK, messages=tool_loop(first, blocks))  # sent back verbatim
        _, dropped = refusal(lambda: create(client, thinking=THINK, messages=tool_loop(first, blocks[1:])),
                             describe_anthropic)
        edited = [{**blocks[0], "thinking": thought + " (edited)"}, *blocks[1:]]
        _, forged = refusal(lambda: create(client, thinking=THINK, messages=tool_loop(first, edited)),
                            describe_anthropic)
    assert second.content[0].type == "thinking" and second.content[1].text == "found it"
    assert first.usage.output_tokens >= tokens(thought)
    assert dropped.kind is K.BAD_REQUEST and dropped.message.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When "
        "`thinking` is enabled, a final `assistant` message must start with a thinking block")
    assert (forged.kind, forged.message) == (K.BAD_REQUEST,
                                             "messages.1.content.0: Invalid `signature` in `thinking` block")


def test_a_thinking_budget_must_be_at_least_1024_and_below_max_tokens():
    with FakeProvider() as api:
        _, small = refusal(lambda: create(anthropic_client(api), thinking={"type": "enabled", "budget_tokens": 500}),
                           describe_anthropic)
        _, over = refusal(lambda: create(anthropic_client(api), max_tokens=2048, thinking=THINK), describe_anthropic)
    assert small.kind is K.REFUSED_PARAMETER and "greater than or equal to 1024" in small.message
    assert over.kind is K.REFUSED_PARAMETER
    assert over.message.startswith("`max_tokens` must be greater than `thinking.budget_tokens`.")


def test_anthropic_caching_writes_a_breakpoint_prefix_once_then_reads_it():
    system = [{"type": "text", "text": "You are a careful engineer. " * 300, "cache_control": {"type": "ephemeral"}}]
    turn = {"role": "user", "content": [{"type": "text", "text": "go on", "cache_control": {"type": "ephemeral"}}]}
    with FakeProvider([text("one"), text("two"), text("three")]) as api:
        client = anthropic_client(api)
        first = create(client, system=system)
        second = create(client, system=system, messages=[*HELLO, {"role": "assistant", "content": "one"}, turn])
        plain = create(client, system=system[0]["text"])  # no breakpoint: nothing cached, nothing read
    written = first.usage.cache_creation_input_tokens
    assert written > 1024 and first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == written  # the system prefix, read
    assert second.usage.cache_creation_input_tokens > 0  # the turns after it, written at the new breakpoint
    total = lambda u: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens  # noqa: E731
    assert total(second.usage) > total(first.usage) and second.usage.input_tokens < total(second.usage)
    assert (plain.usage.cache_read_input_tokens, plain.usage.cache_creation_input_tokens) == (0, 0)


def test_a_prefix_below_the_minimum_is_not_cached():
    system = [{"type": "text", "text": "Short.", "cache_control": {"type": "ephemeral"}}]
    with FakeProvider([text("one"), text("two")]) as api:
        client = anthropic_client(api)
        create(client, system=system)
        again = create(client, system=system)
    assert (again.usage.cache_read_input_tokens, again.usage.cache_creation_input_tokens) == (0, 0)


def test_rules_refuse_what_no_real_server_does():
    with pytest.raises(ValueError, match="unknown flavour"):
        Rules(flavour="bedrock")
    with pytest.raises(ValueError, match="OpenAI's own API takes tools"):
        Rules(flavour="openai", tools=False)


# ---- impasse's adapters against it: what issue 24's endings rest on

SYSTEM = {"role": "system", "content": "You are a careful engineer. " * 300}


def after(messages, turn, output="a.py b.py"):
    """The conversation after a turn, as the agent loop records it (assistant turn, carry, results)."""
    assistant = {"role": "assistant", "content": turn.text,
                 "tool_calls": [c.to_message() for c in turn.tool_calls]}
    if turn.carry:
        assistant["carry"] = turn.carry
    return [*messages, assistant, *({"role": "tool", "tool_call_id": c.id, "content": output}
                                    for c in turn.tool_calls)]


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", Rules().api_key)
    monkeypatch.setenv("ANTHROPIC_API_KEY", Rules().api_key)
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "1")


def test_gpt5_completes_when_no_temperature_is_sent_and_is_refused_when_one_is(keys):
    from impasse.models.config import ModelSettings
    from impasse.models.openai_chat import OpenAIChat
    with FakeProvider([tool_call("bash", {"command": "ls"})]) as api:
        turn = OpenAIChat("gpt-5", base_url=api.base_url).complete([SYSTEM, *HELLO], [BASH])
        with pytest.raises(RequestRefused) as refused:
            OpenAIChat("gpt-5", base_url=api.base_url, settings=ModelSettings(temperature=0)).preflight([BASH])
    assert turn.tool_calls[0].arguments == {"command": "ls"} and "temperature" not in api.requests[0].body
    assert turn.usage["reasoning_tokens"] == 256  # the default effort's share of the completion
    assert refused.value.message.startswith("Unsupported value: 'temperature' does not support 0")


def test_an_overflow_at_a_later_turn_is_context_exhausted(keys):
    from impasse.models.openai_chat import OpenAIChat
    with FakeProvider([tool_call("bash", {"command": "cat big.log"})], Rules(context_window=2500)) as api:
        model = OpenAIChat("gpt-4o", base_url=api.base_url)
        first = model.complete([SYSTEM, *HELLO], [BASH])
        with pytest.raises(ContextExhausted, match="maximum context length is 2500 tokens"):
            model.complete(after([SYSTEM, *HELLO], first, "log line\n" * 400), [BASH])


def test_anthropic_thinking_round_trips_through_a_tool_loop_with_the_cache_read(keys):
    from impasse.models.anthropic_messages import AnthropicMessages
    from impasse.models.config import ModelSettings
    script = [thinking_tool_call("List the files first.", "bash", {"command": "ls"}),
              thinking_tool_call("Now read the test.", "bash", {"command": "cat test_a.py"}), text("done")]
    with FakeProvider(script) as api:
        model = AnthropicMessages("claude-sonnet-4-5", base_url=api.url, settings=ModelSettings(thinking=2048))
        messages = [SYSTEM, *HELLO]
        first = model.complete(messages, [BASH])
        messages = after(messages, first)
        second = model.complete(messages, [BASH])  # refused unless the signed thinking came back first
        third = model.complete(after(messages, second), [BASH])
    assert (first.reasoning, second.reasoning) == ("List the files first.", "Now read the test.")
    assert first.carry[0]["type"] == "thinking" and third.text == "done"
    assert first.usage["cache_write_tokens"] > 1024 and first.usage.get("cached_tokens") == 0
    assert second.usage["cached_tokens"] >= first.usage["cache_write_tokens"]  # each turn pays only what is new
    assert api.requests[1].body["messages"][1]["content"][0]["signature"] == first.carry[0]["signature"]


def test_the_models_list_answers_in_each_apis_shape_behind_the_key():
    with FakeProvider(rules=Rules(models=frozenset({"gpt-4o", "claude-sonnet-4-5"}))) as api:
        listed = [m.id for m in openai_client(api).models.list()]
        claude = [m.id for m in anthropic_client(api).models.list()]
        refused = httpx2.get(f"{api.base_url}/models", headers={"anthropic-version": "2023-06-01"})
    assert listed == claude == ["claude-sonnet-4-5", "gpt-4o"]
    assert refused.status_code == 401 and refused.json()["error"]["message"] == "x-api-key header is required"


def test_a_local_server_takes_any_key_and_any_model():
    with FakeProvider([text("hi")], Rules(flavour="llamacpp", api_key=None, models=None)) as api:
        reply = openai_client(api, key="not-needed").chat.completions.create(model="qwen3-8b.gguf", messages=HELLO)
    assert reply.choices[0].message.content == "hi"
    assert reply.usage.prompt_tokens_details is None  # llama.cpp reports no details in this fake


def test_concurrent_requests_each_take_one_turn_of_the_script():
    from concurrent.futures import ThreadPoolExecutor
    with FakeProvider([text(f"turn {i}") for i in range(16)]) as api:
        client = openai_client(api)
        with ThreadPoolExecutor(8) as pool:
            said = list(pool.map(lambda _: client.chat.completions.create(
                model="gpt-4o", messages=HELLO).choices[0].message.content, range(16)))
    assert sorted(said) == sorted(f"turn {i}" for i in range(16)) and len(api.requests) == 16


# ---- the conversation's own rules

def test_openai_refuses_an_unanswered_call_an_orphan_result_and_an_empty_tools_list():
    call = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    unanswered = [*HELLO, {"role": "assistant", "content": None, "tool_calls": [call]},
                  {"role": "user", "content": "and?"}]
    orphan = [*HELLO, {"role": "tool", "tool_call_id": "call_9", "content": "x"}]
    with FakeProvider([text("ok")]) as api:
        client = openai_client(api)
        _, missing = refusal(lambda: client.chat.completions.create(model="gpt-4o", messages=unanswered),
                             describe_openai)
        _, stray = refusal(lambda: client.chat.completions.create(model="gpt-4o", messages=orphan), describe_openai)
        _, empty = refusal(lambda: client.chat.completions.create(model="gpt-4o", messages=HELLO, tools=[]),
                           describe_openai)
        answered = [*unanswered[:2], {"role": "tool", "tool_call_id": "call_1", "content": "a.py"}]
        assert client.chat.completions.create(model="gpt-4o", messages=answered).choices[0].message.content == "ok"
    assert missing.kind is K.BAD_REQUEST and missing.message.endswith("did not have response messages: call_1")
    assert stray.kind is K.BAD_REQUEST and "must be a response to a preceeding message" in stray.message
    assert empty.kind is K.BAD_REQUEST and empty.message.startswith("Invalid 'tools': empty array.")


def test_anthropic_refuses_a_tool_use_left_unanswered_and_a_result_for_no_call():
    use = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"}
    with FakeProvider() as api:
        client = anthropic_client(api)
        _, unanswered = refusal(lambda: create(client, messages=[*HELLO, {"role": "assistant", "content": [use]},
                                                                 {"role": "user", "content": "and?"}]),
                                describe_anthropic)
        _, stray = refusal(lambda: create(client, messages=[{"role": "user", "content": [result]}]),
                           describe_anthropic)
    assert unanswered.kind is K.BAD_REQUEST and unanswered.message.startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1.")
    assert stray.kind is K.BAD_REQUEST and stray.message.startswith(
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1.")


def test_anthropic_takes_four_cache_breakpoints_and_refuses_a_fifth():
    mark = {"cache_control": {"type": "ephemeral"}}
    system = [{"type": "text", "text": f"part {i}", **mark} for i in range(4)]
    with FakeProvider([text("ok")]) as api:
        client = anthropic_client(api)
        assert create(client, system=system).content[0].text == "ok"
        _, fifth = refusal(lambda: create(client, system=system, messages=[
            {"role": "user", "content": [{"type": "text", "text": "hi", **mark}]}]), describe_anthropic)
    assert (fifth.kind, fifth.message) == (K.BAD_REQUEST, "A maximum of 4 blocks with cache_control may be provided. "
                                                          "Found 5.")


def test_thinking_leaves_temperature_at_one():
    # anthropic 2.x's `messages.create` has no `temperature` argument: it goes in the body as given
    with FakeProvider([text("ok")]) as api:
        client = anthropic_client(api)
        _, refused = refusal(lambda: create(client, thinking=THINK, extra_body={"temperature": 0}),
                             describe_anthropic)
        assert create(client, thinking=THINK, extra_body={"temperature": 1}).content[1].text == "ok"
    assert refused.kind is K.REFUSED_PARAMETER
    assert refused.message.startswith("`temperature` may only be set to 1 when thinking is enabled.")


def test_the_responses_api_takes_back_only_the_encrypted_reasoning_it_handed_out():
    script = [thinking_tool_call("Look first.", "bash", {"command": "ls"}), text("done"), text("never")]
    with FakeProvider(script) as api:
        client = openai_client(api)
        first = client.responses.create(model="gpt-5", input="Fix it.", include=["reasoning.encrypted_content"],
                                        store=False, tools=[{"type": "function", "name": "bash",
                                                             "parameters": {"type": "object"}}])
        reasoning, call = (item.model_dump(exclude_none=True) for item in first.output)
        answer = {"type": "function_call_output", "call_id": call["call_id"], "output": "a.py"}
        asked = {"role": "user", "content": "Fix it."}
        second = client.responses.create(model="gpt-5", input=[asked, reasoning, call, answer],
                                         include=["reasoning.encrypted_content"], store=False)
        forged = {**reasoning, "encrypted_content": reasoning["encrypted_content"][:-4] + "AAAA"}
        _, refused = refusal(lambda: client.responses.create(model="gpt-5", input=[forged, call, answer],
                                                             store=False), describe_openai)
        _, stray = refusal(lambda: client.responses.create(model="gpt-5", input=[answer], store=False),
                           describe_openai)
    assert second.output_text == "done"
    assert refused.kind is K.BAD_REQUEST and refused.message.endswith("AAAA could not be verified.")
    assert stray.kind is K.BAD_REQUEST and stray.message.startswith("No tool call found for function call output")


@pytest.mark.parametrize("flavour, status, words", [
    ("vllm", 404, "The model `gpt-9` does not exist."),
    ("openrouter", 400, "gpt-9 is not a valid model ID"),
    ("ollama", 404, 'model "gpt-9" not found, try pulling it first'),
])
def test_each_compatible_server_names_an_unknown_model_its_own_way(flavour, status, words):
    with FakeProvider(rules=Rules(flavour=flavour)) as api:
        err, failure = refusal(lambda: openai_client(api).chat.completions.create(model="gpt-9", messages=HELLO),
                               describe_openai)
    assert (err.status_code, failure.kind, failure.message) == (status, K.MODEL_NOT_FOUND, words)


def test_llamacpp_answers_whatever_model_is_named():
    with FakeProvider([text("hi")], Rules(flavour="llamacpp")) as api:
        reply = openai_client(api).chat.completions.create(model="anything.gguf", messages=HELLO)
    assert reply.choices[0].message.content == "hi"


def test_the_responses_api_takes_no_fewer_than_16_output_tokens():
    with FakeProvider() as api:
        err, failure = refusal(lambda: openai_client(api).responses.create(model="gpt-5", input="hi",
                                                                           max_output_tokens=1), describe_openai)
    assert err.param == "max_output_tokens" and failure.kind is K.REFUSED_PARAMETER
    assert failure.message == ("Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, "
                               "but got 1 instead.")


def test_the_responses_adapter_carries_encrypted_reasoning_into_the_next_turn(keys):
    from impasse.models.config import ModelSettings
    from impasse.models.openai_responses import OpenAIResponses
    script = [thinking_tool_call("List first.", "bash", {"command": "ls"}), text("done"), text("ok")]
    with FakeProvider(script) as api:
        model = OpenAIResponses("gpt-5", base_url=api.base_url, settings=ModelSettings(reasoning_effort="low"))
        first = model.complete([SYSTEM, *HELLO], [BASH])
        second = model.complete(after([SYSTEM, *HELLO], first), [BASH])  # refused unless carried unchanged
        model.preflight([BASH])
    assert first.reasoning == "List first." and first.carry[0]["type"] == "reasoning"
    assert second.text == "done" and first.usage["reasoning_tokens"] == tokens("List first.")
    assert api.requests[1].body["input"][1]["encrypted_content"] == first.carry[0]["encrypted_content"]
