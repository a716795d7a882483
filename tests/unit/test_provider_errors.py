"""A provider's failure is read from its own answer: known-answer tests over the bodies the real
servers send (each sample cites where its wording was seen), and the near-misses that must not be
read as the same thing (a 400 about something else is not a context overflow)."""

from __future__ import annotations

import json

import anthropic as anthropic_sdk
import httpx2
import openai as openai_sdk
import pytest

from impasse.models import ContextExhausted, RequestRefused, TransportError, retry
from impasse.models.errors import (
    EmptyResponse,
    FailureKind,
    ProviderFailure,
    classify,
    describe_anthropic,
    describe_openai,
    read_body,
    wait_asked,
)

K = FailureKind


def anthropic(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_011CUB2XUHWkFnQzxcKBbjpF"}


def openai(message: str, type_: str = "invalid_request_error", param=None, code=None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


OVERFLOWS = [
    # OpenAI chat completions: github.com/crewAIInc/crewAI-examples/issues/121
    pytest.param(400, openai("This model's maximum context length is 8192 tokens. However, your messages resulted "
                             "in 8227 tokens. Please reduce the length of the messages.", param="messages",
                             code="context_length_exceeded"), id="openai-messages"),
    # OpenAI with max_tokens counted: github.com/mckaywrigley/chatbot-ui/issues/102
    pytest.param(400, openai("This model's maximum context length is 4097 tokens. However, you requested 4120 "
                             "tokens (3120 in the messages, 1000 in the completion). Please reduce the length of "
                             "the messages or completion.", param="messages", code="context_length_exceeded"),
                 id="openai-completion"),
    # OpenAI Responses API (its error event carries the same object): seen quoted in agent test suites
    # found by searching "exceeds the context window of this model" (code corpus)
    pytest.param(400, openai("Your input exceeds the context window of this model. Please adjust your input and "
                             "try again.", param="input", code="context_length_exceeded"), id="openai-responses"),
    # Anthropic: github.com/anthropics/claude-code/issues/12186
    pytest.param(400, anthropic("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"),
                 id="anthropic-prompt"),
    # Anthropic, input + max_tokens: github.com/docker/docker-agent/issues/569
    pytest.param(400, anthropic("invalid_request_error", "input length and `max_tokens` exceed context limit: "
                                "178959 + 64000 > 200000, decrease input length or `max_tokens` and try again"),
                 id="anthropic-max-tokens"),
    # vLLM (serving_engine: "However, your request has N input tokens"): found in vLLM's TokensPrompt
    # validation by searching "However, your request has" (code corpus)
    pytest.param(400, {"error": {"message": "This model's maximum context length is 32768 tokens. However, your "
                                            "request has 40000 input tokens. Please reduce the length of the input "
                                            "messages.", "type": "BadRequestError", "param": None, "code": 400}},
                 id="vllm-input"),
    # vLLM, older flat body: github.com/vllm-project/vllm/issues/20409 and the DeepInfra body quoted
    # in github.com/ai-christianson/RA.Aid/issues/41
    pytest.param(400, {"object": "error", "message": "This model's maximum context length is 16000 tokens. However, "
                       "you requested 17165 tokens (13069 in the messages, 4096 in the completion). Please reduce "
                       "the length of the messages or completion.", "type": "BadRequestError", "param": None,
                       "code": 400}, id="vllm-flat"),
    # vLLM, max_tokens past what is left: vLLM's own wording quoted in
    # andrewcho-dev/opsconductor-ng vLLM_transition/TOKEN_LIMIT_FIX.md
    pytest.param(400, {"error": {"message": "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's "
                                            "maximum context length is 4096 tokens and your request has 2778 input "
                                            "tokens (8000 > 4096 - 2778). None", "type": "BadRequestError",
                                 "param": None, "code": 400}}, id="vllm-max-tokens"),
    # vLLM newer / SGLang / Together: "The input (N tokens) is longer than the model's context length";
    # quoted from real servers in several clients' tests (code corpus, "is longer than the model's
    # context length (")
    pytest.param(400, {"error": {"message": "The input (263247 tokens) is longer than the model's context length "
                                            "(262144 tokens).", "type": "BadRequestError", "param": None,
                                 "code": 400}}, id="vllm-longer"),
    # vLLM's input processor (vllm/tests/v1/e2e/test_context_length.py expects this wording)
    pytest.param(400, {"error": {"message": "The decoder prompt (length 2048) plus the number of requested output "
                                            "tokens (at least 1) is longer than the maximum model length of 2048. "
                                            "Make sure that `max_model_len` is no smaller than the number of text "
                                            "tokens (prompt + requested output tokens).", "type": "BadRequestError",
                                 "param": None, "code": 400}}, id="vllm-input-processor"),
    # vLLM v0: github.com/vllm-project/vllm/issues/12165
    pytest.param(400, {"object": "error", "message": "The prompt (total length 25938) is too long to fit into the "
                       "model (context length 4096). Make sure that `max_model_len` is no smaller than the number of "
                       "text tokens plus multimodal tokens.", "type": "BadRequestError", "code": 400}, id="vllm-v0"),
    # llama.cpp server: github.com/ggml-org/llama.cpp/pull/15780 (type added) and
    # github.com/oobabooga/textgen/issues/7257 (the 400 body)
    pytest.param(400, {"error": {"code": 400, "message": "the request exceeds the available context size. try "
                                 "increasing the context size or enable context shift",
                                 "type": "exceed_context_size_error", "n_prompt_tokens": 14429, "n_ctx": 8192}},
                 id="llamacpp"),
    # llama.cpp server, newer wording: github.com/ggml-org/llama.cpp/issues/19774
    pytest.param(400, {"error": {"code": 400, "message": "request (4390 tokens) exceeds the available context size "
                                 "(4096 tokens), try increasing it", "type": "exceed_context_size_error",
                                 "n_prompt_tokens": 4390, "n_ctx": 4096}}, id="llamacpp-newer"),
    # llama.cpp server answering the same as a 500: github.com/ggml-org/llama.cpp/issues/19774
    pytest.param(500, {"error": {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}},
                 id="llamacpp-500"),
    # OpenRouter: github.com/OpenHands/OpenHands/issues/9937
    pytest.param(400, {"error": {"message": "This endpoint's maximum context length is 131072 tokens. However, you "
                                            "requested about 138956 tokens (7884 of text input, 131072 in the output). "
                                            "Please reduce the length of either one, or use the \"middle-out\" "
                                            "transform to compress your prompt automatically.", "code": 400}},
                 id="openrouter"),
    # OpenRouter relaying a provider's refusal in metadata.raw: github.com/tailcallhq/forgecode/issues/1195
    # (the envelope) with Anthropic's overflow wording inside
    pytest.param(400, {"error": {"message": "Provider returned error", "code": 400, "metadata": {
        "raw": json.dumps(anthropic("invalid_request_error", "prompt is too long: 201000 tokens > 200000 maximum")),
        "provider_name": "Anthropic"}}}, id="openrouter-raw"),
    # Mistral, Gemini's OpenAI-compatible endpoint, LM Studio: as quoted in clients' overflow
    # detectors and their tests (code corpus, "is longer than the model's context length" hits)
    pytest.param(400, {"object": "error", "message": "Prompt contains 40000 tokens, too large for model with 32768 "
                       "maximum context length", "type": "invalid_request_error", "code": 3051}, id="mistral"),
    pytest.param(400, {"error": {"code": 400, "message": "The input token count (1196265) exceeds the maximum number "
                                 "of tokens allowed (1048575).", "status": "INVALID_ARGUMENT"}}, id="gemini"),
    pytest.param(400, {"error": "Trying to keep the first 9000 tokens when context the overflows. However, the model "
                                "is loaded with context length of 8192 tokens, which is not enough. Try to load the "
                                "model with a larger context length, or provide a shorter input; tokens to keep from "
                                "the initial prompt is greater than the context length"}, id="lmstudio"),
    # Ollama: github.com/nano-step/nano-brain/issues/208
    pytest.param(400, {"error": "the input length exceeds the context length"}, id="ollama"),
    # Ollama, newer: quoted in clients' overflow tests (code corpus, "exceeded max context length")
    pytest.param(400, "prompt too long; exceeded max context length by 100918 tokens", id="ollama-newer"),
]


@pytest.mark.parametrize("status, body", OVERFLOWS)
def test_context_overflow_is_recognised_in_each_servers_words(status, body):
    failure = classify(status, json.dumps(body) if isinstance(body, dict) else body)
    assert failure.kind is K.CONTEXT_OVERFLOW
    assert failure.status == status
    said = json.dumps(body) if isinstance(body, dict) else body
    assert failure.message[:23] in said  # the provider's own words, not a paraphrase


REFUSALS = [
    # OpenAI reasoning models: github.com/gabrii/Cursor-Azure-GPT-5/issues/33
    pytest.param(400, openai("Unsupported value: 'temperature' does not support 0 with this model. Only the "
                             "default (1) value is supported.", param="temperature", code="unsupported_value"),
                 K.REFUSED_PARAMETER, id="openai-temperature"),
    # github.com/BeehiveInnovations/pal-mcp-server/issues/78
    pytest.param(400, openai("Unsupported parameter: 'temperature' is not supported with this model.",
                             param="temperature", code="unsupported_parameter"), K.REFUSED_PARAMETER,
                 id="openai-unsupported-parameter"),
    # OpenAI-compatible max_tokens cap, quoted in clients' tests (code corpus, "max_tokens is too large")
    pytest.param(400, openai("max_tokens is too large: 30000. This model supports at most 16384 completion tokens, "
                             "whereas you provided 30000.", param="max_tokens", code="invalid_value"),
                 K.REFUSED_PARAMETER, id="openai-max-tokens"),
    # The Responses API's floor, quoted in clients' tests (code corpus, "Invalid 'max_output_tokens'")
    pytest.param(400, openai("Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but "
                             "got 1 instead.", param="max_output_tokens", code="integer_below_min_value"),
                 K.REFUSED_PARAMETER, id="responses-max-output"),
    # Anthropic: github.com/ChatGPTNextWeb/NextChat/issues/4964
    pytest.param(400, anthropic("invalid_request_error", "max_tokens: 10000 > 4096, which is the maximum allowed "
                                "number of output tokens for claude-3-5-sonnet-20240620"), K.REFUSED_PARAMETER,
                 id="anthropic-max-tokens"),
    # Anthropic thinking budget: github.com/liuw1535/antigravity2api-nodejs/issues/149
    pytest.param(400, anthropic("invalid_request_error", "`max_tokens` must be greater than `thinking.budget_tokens`. "
                                "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/"
                                "extended-thinking#max-tokens-and-context-window-size"), K.REFUSED_PARAMETER,
                 id="anthropic-budget"),
    # github.com/themaximalist/llm.js/issues/30
    pytest.param(400, anthropic("invalid_request_error", "thinking.enabled.budget_tokens: Input should be greater "
                                "than or equal to 1024"), K.REFUSED_PARAMETER, id="anthropic-budget-minimum"),
    # vLLM without a tool parser: github.com/vllm-project/vllm/issues/9986
    pytest.param(400, {"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice and "
                       "--tool-call-parser to be set", "type": "BadRequestError", "param": None, "code": 400},
                 K.TOOLS_UNSUPPORTED, id="vllm-tools"),
    # Ollama, native API: github.com/ollama/ollama/issues/14795
    pytest.param(400, {"error": "registry.ollama.ai/library/Qwen3.5:0.8b does not support tools"},
                 K.TOOLS_UNSUPPORTED, id="ollama-tools"),
    # Ollama, OpenAI-compatible API: github.com/pydantic/pydantic-ai/issues/703
    pytest.param(400, openai("registry.ollama.ai/library/llama3:8b does not support tools", type_="api_error"),
                 K.TOOLS_UNSUPPORTED, id="ollama-openai-tools"),
    # OpenRouter: github.com/bobrware/bobrchat/issues/60 (a 404, yet not an unknown model)
    pytest.param(404, {"error": {"message": "No endpoints found that support tool use. To learn more about provider "
                                            "routing, visit: https://openrouter.ai/docs/guides/routing/provider-"
                                            "selection", "code": 404}}, K.TOOLS_UNSUPPORTED, id="openrouter-tools"),
    # llama.cpp without --jinja, answered as a 500 (so status alone would retry it): quoted in
    # clients' tests (code corpus, "tools param requires --jinja flag")
    pytest.param(500, {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}},
                 K.TOOLS_UNSUPPORTED, id="llamacpp-tools"),
    # OpenAI: github.com/chatanywhere/GPT_API_free/issues/62
    pytest.param(401, openai("Incorrect API key provided: sk-VKMIs***wjh3. You can find your API key at "
                             "https://platform.openai.com/account/api-keys.", code="invalid_api_key"), K.AUTH,
                 id="openai-key"),
    # Anthropic: github.com/eyaltoledano/claude-task-master/issues/222
    pytest.param(401, anthropic("authentication_error", "invalid x-api-key"), K.AUTH, id="anthropic-key"),
    pytest.param(403, anthropic("permission_error", "Your API key does not have permission to use the specified "
                                "resource."), K.AUTH, id="anthropic-permission"),
    # OpenAI: the 404 quoted in github.com/truefoundry/models/pull/827
    pytest.param(404, openai("The model `gpt-5.5` does not exist or you do not have access to it.",
                             code="model_not_found"), K.MODEL_NOT_FOUND, id="openai-model"),
    # Anthropic: github.com/anthropics/claude-code/issues/5349
    pytest.param(404, anthropic("not_found_error", "model: sonnet4"), K.MODEL_NOT_FOUND, id="anthropic-model"),
    pytest.param(404, {"error": "model \"llama3\" not found, try pulling it first"}, K.MODEL_NOT_FOUND,
                 id="ollama-model"),
    # vLLM: github.com/vllm-project/vllm/issues/3485 (flat) and github.com/vllm-project/vllm/pull/58025
    pytest.param(404, {"object": "error", "message": "The model `Qwen1.5-14B-Chat-GPTQ-Int8` does not exist.",
                       "type": "NotFoundError", "param": None, "code": 404}, K.MODEL_NOT_FOUND, id="vllm-model"),
    # OpenRouter answers an unknown model as a 400: github.com/RightNow-AI/openfang/issues/697
    pytest.param(400, {"error": {"message": "healer-alpha is not a valid model ID", "code": 400}},
                 K.MODEL_NOT_FOUND, id="openrouter-model"),
    # OpenAI rate limit: a 429 that mentions tokens is still a rate limit
    pytest.param(429, openai("Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit "
                             "30000, Used 29000, Requested 2000. Please try again in 2s.", type_="tokens",
                             code="rate_limit_exceeded"), K.RATE_LIMITED, id="openai-rate"),
    pytest.param(429, anthropic("rate_limit_error", "This request would exceed the rate limit for your organization "
                                "of 50 requests per minute."), K.RATE_LIMITED, id="anthropic-rate"),
    pytest.param(429, openai("You exceeded your current quota, please check your plan and billing details.",
                             type_="insufficient_quota", code="insufficient_quota"), K.AUTH, id="openai-quota"),
    # Anthropic: github.com/anthropics/anthropic-sdk-typescript/issues/616
    # OpenRouter out of credits: a 402, for the account to fix
    pytest.param(402, {"error": {"message": "Insufficient credits. Add more using https://openrouter.ai/settings/"
                                            "credits", "code": 402}}, K.AUTH, id="openrouter-credits"),
    pytest.param(529, anthropic("overloaded_error", "Overloaded"), K.OVERLOADED, id="anthropic-529"),
    pytest.param(503, "upstream connect error or disconnect/reset before headers", K.OVERLOADED, id="plain-503"),
    pytest.param(500, openai("The server had an error while processing your request. Sorry about that!",
                             type_="server_error"), K.SERVER, id="openai-500"),
    pytest.param(502, "<html><body>502 Bad Gateway</body></html>", K.SERVER, id="html-502"),
    # Refused thinking round-trips are our request's fault: github.com/anthropics/claude-code/issues/10627
    # and github.com/anomalyco/opencode/issues/3077
    pytest.param(400, anthropic("invalid_request_error", "messages.1.content.0: Invalid `signature` in `thinking` "
                                "block"), K.BAD_REQUEST, id="anthropic-signature"),
    pytest.param(400, anthropic("invalid_request_error", "messages.1.content.0.type: Expected `thinking` or "
                                "`redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final "
                                "`assistant` message must start with a thinking block (preceeding the lastmost set "
                                "of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks "
                                "from previous turns. To avoid this requirement, disable `thinking`."),
                 K.BAD_REQUEST, id="anthropic-missing-thinking"),
    # github.com/MartialBE/one-hub/issues/529: a setting refused, so refused at preflight
    pytest.param(400, anthropic("invalid_request_error", "`temperature` may only be set to 1 when thinking is "
                                "enabled. Please consult our documentation at https://docs.anthropic.com/en/docs/"
                                "build-with-claude/extended-thinking#important-considerations-when-using-extended-"
                                "thinking"), K.REFUSED_PARAMETER, id="anthropic-thinking-temperature"),
    # A conversation we built wrong: github.com/anthropics/claude-code/issues/13460, /5060,
    # github.com/tghamm/Anthropic.SDK/issues/50, github.com/aliasrobotics/cai/issues/111
    pytest.param(400, anthropic("invalid_request_error", "messages.48.content.1: unexpected `tool_use_id` found in "
                                "`tool_result` blocks: toolu_019ETtGZEhTBXgWPVsdVnXMh. Each `tool_result` block must "
                                "have a corresponding `tool_use` block in the previous message."), K.BAD_REQUEST,
                 id="anthropic-stray-result"),
    pytest.param(400, anthropic("invalid_request_error", "messages.6: `tool_use` ids were found without `tool_result` "
                                "blocks immediately after: toolu_01AbmHJypDhKqBF7NKdRPJ6d. Each `tool_use` block must "
                                "have a corresponding `tool_result` block in the next message."), K.BAD_REQUEST,
                 id="anthropic-unanswered-use"),
    pytest.param(400, anthropic("invalid_request_error", "A maximum of 4 blocks with cache_control may be provided. "
                                "Found 5."), K.BAD_REQUEST, id="anthropic-breakpoints"),
    pytest.param(400, openai("An assistant message with 'tool_calls' must be followed by tool messages responding to "
                             "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                             "call_jJATmoUduQWxi4tRwcQjsodM", param="messages"), K.BAD_REQUEST, id="openai-unanswered"),
    pytest.param(400, openai("Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty "
                             "array instead.", param="tools", code="empty_array"), K.BAD_REQUEST, id="openai-no-tools"),
    # A 400 that is about the body, not the window: none of these is a context overflow
    pytest.param(400, openai("Invalid 'messages[1].content': string too long. Expected a string with maximum "
                             "length 10485760, but got a string with length 10485761 instead.",
                             param="messages[1].content", code="string_above_max_length"), K.BAD_REQUEST,
                 id="openai-string-too-long"),
    pytest.param(400, openai("Invalid schema for function 'bash': 'object' is not valid under any of the given "
                             "schemas.", param="tools[0].function.parameters", code="invalid_function_parameters"),
                 K.BAD_REQUEST, id="openai-tool-schema"),
    pytest.param(400, anthropic("invalid_request_error", "messages: roles must alternate between \"user\" and "
                                "\"assistant\", but found multiple \"user\" roles in a row"), K.BAD_REQUEST,
                 id="anthropic-roles"),
    pytest.param(422, {"detail": [{"loc": ["body", "messages"], "msg": "field required"}]}, K.BAD_REQUEST,
                 id="fastapi-422"),
]


@pytest.mark.parametrize("status, body, kind", REFUSALS)
def test_every_other_failure_gets_its_kind(status, body, kind):
    assert classify(status, json.dumps(body) if isinstance(body, dict) else body).kind is kind


def test_no_status_is_a_connection_failure_and_is_retried():
    failure = classify(None)
    assert failure == ProviderFailure(K.CONNECTION, None, "no answer", None)
    assert failure.retryable


@pytest.mark.parametrize("kind, retried", [(K.RATE_LIMITED, True), (K.OVERLOADED, True), (K.SERVER, True),
                                           (K.CONNECTION, True), (K.CONTEXT_OVERFLOW, False), (K.AUTH, False),
                                           (K.MODEL_NOT_FOUND, False), (K.REFUSED_PARAMETER, False),
                                           (K.TOOLS_UNSUPPORTED, False), (K.BAD_REQUEST, False)])
def test_only_passing_failures_are_retryable(kind, retried):
    assert ProviderFailure(kind, 400, "x").retryable is retried


@pytest.mark.parametrize("body, message", [
    (anthropic("overloaded_error", "Overloaded"), "Overloaded"),
    ({"object": "error", "message": "flat vLLM", "type": "BadRequestError", "code": 400}, "flat vLLM"),
    ({"error": "plain Ollama"}, "plain Ollama"),
    ({"message": "an openai SDK's .body: the inner object", "code": "x"}, "an openai SDK's .body: the inner object"),
    ({"detail": "a FastAPI server"}, "a FastAPI server"),
])
def test_the_message_is_the_providers_own_words_in_any_shape(body, message):
    assert classify(400, body).message == message  # parsed JSON
    assert classify(400, json.dumps(body).encode()).message == message  # raw bytes


def test_a_plain_text_or_empty_body_still_says_something():
    assert classify(502, b"Bad Gateway\n").message == "Bad Gateway"
    assert classify(500, b"").message == "HTTP 500"
    assert read_body(None).message == ""


def test_openrouter_keeps_the_upstreams_words_after_its_own():
    body = {"error": {"message": "Provider returned error", "code": 400,
                      "metadata": {"raw": "upstream said no", "provider_name": "Google"}}}
    assert classify(400, body).message == "Provider returned error: upstream said no"


@pytest.mark.parametrize("headers, seconds", [
    ({"retry-after": "7"}, 7.0),
    ({"Retry-After": "1.5"}, 1.5),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # OpenAI's finer header wins
    ({"retry-after": "Wed, 21 Oct 2015 07:28:30 GMT"}, 30.0),  # an HTTP date, 30 s after `now`
    ({"retry-after": "Wed, 21 Oct 2015 07:27:00 GMT"}, 0.0),  # a date already past: no wait
    ({"retry-after": "soon"}, None),
    ({}, None),
])
def test_retry_after_in_seconds_milliseconds_or_an_http_date(headers, seconds):
    now = 1445412480.0  # Wed, 21 Oct 2015 07:28:00 GMT
    assert wait_asked(headers, now) == seconds
    assert classify(429, anthropic("rate_limit_error", "slow down"), headers, now=now).retry_after == seconds


# with_retries: what each kind of failure does to the call.


class Failed(Exception):
    def __init__(self, failure: ProviderFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def failing(*failures, answer="answered"):
    """A call that raises each failure in turn, then answers; and the count of calls made."""
    calls = []

    def call():
        calls.append(1)
        if len(calls) <= len(failures):
            raise Failed(failures[len(calls) - 1])
        return answer
    return call, calls


def describe(err):
    return err.failure if isinstance(err, Failed) else None


@pytest.fixture
def pauses(monkeypatch):
    waited = []
    monkeypatch.setattr(retry, "sleep", waited.append)
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "4")
    monkeypatch.setenv("IMPASSE_MODEL_BACKOFF", "1.0")
    monkeypatch.delenv("IMPASSE_MODEL_MAX_WAIT", raising=False)
    return waited


def test_passing_failures_are_asked_again_with_a_doubling_jittered_pause(pauses):
    call, calls = failing(ProviderFailure(K.SERVER, 500, "oops"), ProviderFailure(K.CONNECTION, None, "reset"),
                          ProviderFailure(K.OVERLOADED, 529, "Overloaded"))
    assert retry.with_retries(call, describe, "a turn") == "answered"
    assert len(calls) == 4
    assert 0.5 <= pauses[0] <= 1.5 and 1.0 <= pauses[1] <= 3.0 and 2.0 <= pauses[2] <= 6.0


def test_the_providers_retry_after_is_honoured_and_capped(pauses, monkeypatch):
    monkeypatch.setenv("IMPASSE_MODEL_MAX_WAIT", "10")
    call, calls = failing(ProviderFailure(K.RATE_LIMITED, 429, "slow down", retry_after=3.0),
                          ProviderFailure(K.RATE_LIMITED, 429, "slow down", retry_after=3600.0))
    assert retry.with_retries(call, describe, "a turn") == "answered"
    assert 3.0 <= pauses[0] <= 3.3  # at least what was asked, a little jitter above it
    assert pauses[1] == 10.0  # asked for an hour: waited the cap, then asked again


def test_attempts_run_out_as_a_transport_error_naming_the_providers_words(pauses):
    call, calls = failing(*[ProviderFailure(K.RATE_LIMITED, 429, "Rate limit reached for gpt-4o")] * 4)
    with pytest.raises(TransportError) as raised:
        retry.with_retries(call, describe, "chat completion from openai:gpt-4o")
    assert not isinstance(raised.value, RequestRefused)
    assert len(calls) == 4 and len(pauses) == 3
    assert str(raised.value) == ("chat completion from openai:gpt-4o failed after 4 attempts: "
                                 "HTTP 429: Rate limit reached for gpt-4o")


def test_a_context_overflow_ends_at_once_as_context_exhausted(pauses):
    words = "prompt is too long: 208310 tokens > 200000 maximum"
    call, calls = failing(ProviderFailure(K.CONTEXT_OVERFLOW, 400, words))
    with pytest.raises(ContextExhausted) as raised:
        retry.with_retries(call, describe, "a turn")
    assert str(raised.value) == words
    assert len(calls) == 1 and pauses == []


@pytest.mark.parametrize("kind", [K.AUTH, K.MODEL_NOT_FOUND, K.REFUSED_PARAMETER, K.TOOLS_UNSUPPORTED,
                                  K.BAD_REQUEST])
def test_a_refused_request_ends_at_once_with_the_status_and_the_providers_words(pauses, kind):
    call, calls = failing(ProviderFailure(kind, 400, "Unsupported value: 'temperature' does not support 0"))
    with pytest.raises(RequestRefused) as raised:
        retry.with_retries(call, describe, "chat completion from openai:gpt-5")
    assert (raised.value.status, raised.value.message) == (400, "Unsupported value: 'temperature' does not support 0")
    assert str(raised.value) == ("chat completion from openai:gpt-5: HTTP 400: "
                                 "Unsupported value: 'temperature' does not support 0")
    assert isinstance(raised.value, TransportError)  # still an infrastructure ending where nobody catches it
    assert len(calls) == 1 and pauses == []


def test_an_exception_that_is_not_the_endpoints_is_raised_unchanged(pauses):
    def call():
        raise KeyError("our own bug")
    with pytest.raises(KeyError, match="our own bug"):
        retry.with_retries(call, describe, "a turn")
    assert pauses == []


# describe_openai / describe_anthropic: the SDKs' exceptions, as the SDKs build them from an answer.

def answered(status: int, body, headers=None) -> httpx2.Response:
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    return httpx2.Response(status, json=body, headers=headers, request=request)


def test_describe_openai_reads_the_whole_body_not_the_sdks_inner_object():
    flat = {"object": "error", "message": "This model's maximum context length is 4096 tokens. However, your "
            "request has 5000 input tokens. Please reduce the length of the input messages.",
            "type": "BadRequestError", "param": None, "code": 400}
    err = openai_sdk.BadRequestError("Error code: 400", response=answered(400, flat), body=flat)
    failure = describe_openai(err)
    assert failure.kind is K.CONTEXT_OVERFLOW and failure.status == 400 and failure.message == flat["message"]


def test_describe_openai_takes_retry_after_from_the_response_headers():
    body = openai("Rate limit reached", type_="requests", code="rate_limit_exceeded")
    err = openai_sdk.RateLimitError("Error code: 429", response=answered(429, body, {"retry-after-ms": "1500"}),
                                body=body["error"])
    assert describe_openai(err) == ProviderFailure(K.RATE_LIMITED, 429, "Rate limit reached", 1.5)


def test_describe_anthropic_reads_anthropics_envelope():
    body = anthropic("overloaded_error", "Overloaded")
    err = anthropic_sdk.InternalServerError("Error code: 529", response=answered(529, body), body=body)
    assert describe_anthropic(err) == ProviderFailure(K.OVERLOADED, 529, "Overloaded", None)


def test_no_answer_and_an_empty_answer_are_passing_faults():
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages")
    assert describe_openai(openai_sdk.APITimeoutError(request)).kind is K.CONNECTION
    assert describe_anthropic(anthropic_sdk.APIConnectionError(request=request)).kind is K.CONNECTION
    assert describe_openai(EmptyResponse("the endpoint answered without choices")) == \
        ProviderFailure(K.SERVER, 200, "the endpoint answered without choices")


def test_what_is_not_the_endpoints_failure_is_not_described():
    assert describe_openai(KeyError("choices")) is None
    assert describe_anthropic(TypeError("bad argument")) is None
    assert describe_anthropic(openai_sdk.APITimeoutError(httpx2.Request("GET", "http://x"))) is None  # another SDK's
