"""What a provider's failure means, read from the answer itself: its HTTP status, its body and its
headers. One pure function (`classify`) turns them into a `ProviderFailure`; `describe_openai` and
`describe_anthropic` read the SDKs' exceptions into it, so the retry loop and the preflight decide
on the same reading whichever vendor or OpenAI-compatible server answered.

The provider's own words decide where the status alone cannot: a 400 may be a conversation that
outgrew the window (the agent's doing: the run ends `context_exhausted`), a parameter the model does
not take, or tools the server was not started for; llama.cpp even answers "no tools" as a 500.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from enum import StrEnum


class FailureKind(StrEnum):
    CONTEXT_OVERFLOW = "context_overflow"    # the conversation no longer fits the model's window
    AUTH = "auth"                            # 401/403: a missing, wrong or unentitled key
    MODEL_NOT_FOUND = "model_not_found"      # no such model (or no access to it) at this endpoint
    REFUSED_PARAMETER = "refused_parameter"  # a setting this model does not take (temperature on gpt-5)
    TOOLS_UNSUPPORTED = "tools_unsupported"  # the server or model does not take tools
    RATE_LIMITED = "rate_limited"            # 429
    OVERLOADED = "overloaded"                # Anthropic's 529, a 503
    SERVER = "server"                        # any other 5xx, or an answer that could not be read
    BAD_REQUEST = "bad_request"              # any other 4xx: a request we built wrong
    CONNECTION = "connection"                # no answer at all: refused, reset, timed out


# Worth asking again after a pause; every other kind gives the same answer however often it is asked.
RETRYABLE = frozenset({FailureKind.RATE_LIMITED, FailureKind.OVERLOADED, FailureKind.SERVER,
                       FailureKind.CONNECTION})


@dataclass(frozen=True)
class ProviderFailure:
    """One failed request as the provider put it. `message` is the provider's own words (never
    paraphrased: it is what the user reads); `retry_after` the seconds it asked us to wait, if any."""

    kind: FailureKind
    status: int | None
    message: str
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


class EmptyResponse(RuntimeError):
    """The endpoint answered 200 with nothing to read (no choices): a server fault, asked again."""


# The wordings below are the providers' own, as their servers send them (samples with their sources
# are in tests/unit/test_provider_errors.py). Matched case-insensitively on the message.
CONTEXT_OVERFLOW = re.compile("|".join((
    r"maximum context length is \d+",                # OpenAI, vLLM, OpenRouter ("This endpoint's ..."), DeepInfra
    r"exceeds the context window",                   # OpenAI Responses API
    r"prompt is too long",                           # Anthropic
    r"input length and `?max_tokens`? exceed context limit",  # Anthropic, input + max_tokens
    r"longer than the model's context length",       # vLLM (newer), SGLang, Together
    r"longer than the maximum model length",         # vLLM's input processor
    r"too long to fit into the model",               # vLLM v0 ("The prompt (total length N) is too long ...")
    r"exceeds the available context size",           # llama.cpp server
    r"context size has been exceeded",               # llama.cpp server, older builds (a 500)
    r"input length exceeds the context length",      # Ollama
    r"exceeded max context length",                  # Ollama, newer ("prompt too long; exceeded max ...")
    r"too large for model with \d+ maximum context length",  # Mistral
    r"exceeds the maximum number of tokens allowed",  # Gemini's OpenAI-compatible endpoint
    r"greater than the context length",              # LM Studio
)), re.IGNORECASE)
OVERFLOW_CODES = {"context_length_exceeded", "exceed_context_size_error"}  # OpenAI code, llama.cpp type

TOOLS_UNSUPPORTED = re.compile("|".join((
    r"does not support tools",                        # Ollama: "registry.ollama.ai/library/X does not support tools"
    r"tool choice requires --enable-auto-tool-choice",  # vLLM started without a tool parser
    r"no endpoints found that support tool use",      # OpenRouter (a 404)
    r"no endpoints found that support the provided 'tool_choice'",  # OpenRouter
    r"tools param requires --jinja",                  # llama.cpp server without --jinja (a 500)
)), re.IGNORECASE)

MODEL_NOT_FOUND = re.compile(r"model .*does not exist|is not a valid model id|model .*not found",
                             re.IGNORECASE)

# Request settings a provider names when it refuses one (OpenAI's `param`, Anthropic's message prefix).
SETTINGS = {"temperature", "top_p", "top_k", "max_tokens", "max_completion_tokens", "max_output_tokens",
            "reasoning_effort", "reasoning", "thinking", "stop", "seed", "frequency_penalty",
            "presence_penalty", "parallel_tool_calls", "tool_choice", "n", "logprobs"}
SETTING_PREFIX = re.compile(r"^`?(?P<name>[a-z_]+)(?:\.[\w.]+)?`?(?::| must| is| may)")


@dataclass(frozen=True)
class Body:
    """The fields of an error body that every provider spells its own way."""

    message: str
    type: str = ""
    code: str = ""
    param: str = ""


def classify(status: int | None, body: bytes | str | Mapping | None = None,
             headers: Mapping[str, str] | None = None, *, now: float | None = None) -> ProviderFailure:
    """What a failed request means, from its status, body (raw bytes, text or parsed JSON) and
    headers. `status` None is no answer at all. `now` (epoch seconds) only matters for a
    `retry-after` given as an HTTP date."""
    read = read_body(body)
    retry_after = wait_asked(headers or {}, time.time() if now is None else now)
    message = read.message or (f"HTTP {status}" if status else "no answer")
    return ProviderFailure(kind_of(status, read), status, message, retry_after)


def kind_of(status: int | None, body: Body) -> FailureKind:
    if status is None:
        return FailureKind.CONNECTION
    # A 429's "Request too large ... tokens per min" is a rate limit, not the window; a 401 is a key.
    if status in (401, 402, 403):  # 402: OpenRouter's "Insufficient credits", the account's to fix
        return FailureKind.AUTH
    if status == 429:
        # OpenAI answers an exhausted balance as a 429 too; no pause can fix the account.
        return FailureKind.AUTH if body.code == "insufficient_quota" else FailureKind.RATE_LIMITED
    if body.code in OVERFLOW_CODES or body.type in OVERFLOW_CODES or CONTEXT_OVERFLOW.search(body.message):
        return FailureKind.CONTEXT_OVERFLOW
    if TOOLS_UNSUPPORTED.search(body.message):
        return FailureKind.TOOLS_UNSUPPORTED
    if status == 404 or body.code == "model_not_found" or body.type == "not_found_error" \
            or (status < 500 and MODEL_NOT_FOUND.search(body.message)):
        return FailureKind.MODEL_NOT_FOUND
    if status == 529 or status == 503 or body.type == "overloaded_error":
        return FailureKind.OVERLOADED
    if status in (408, 409) or status >= 500:  # a request timeout or a conflict: the SDKs retry them too
        return FailureKind.SERVER
    if status < 500 and names_a_setting(body):
        return FailureKind.REFUSED_PARAMETER
    return FailureKind.BAD_REQUEST


def names_a_setting(body: Body) -> bool:
    """OpenAI says `unsupported_value`/`unsupported_parameter` and names the `param`; Anthropic leads
    its message with the field (`max_tokens: 64001 > 64000, ...`, "`max_tokens` must be greater than
    `thinking.budget_tokens`")."""
    if body.code in ("unsupported_value", "unsupported_parameter"):
        return True
    if body.param in SETTINGS:
        return True
    lead = SETTING_PREFIX.match(body.message)
    return bool(lead and lead.group("name") in SETTINGS)


def read_body(body: bytes | str | Mapping | None) -> Body:
    """The message and codes of any provider's error body: OpenAI/OpenRouter/llama.cpp's
    `{"error": {...}}`, Anthropic's `{"type": "error", "error": {...}}`, vLLM's flat
    `{"object": "error", "message": ...}`, Ollama's `{"error": "..."}`, or plain text."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return Body(body.strip()[:2000])
    if not isinstance(body, Mapping):
        return Body("" if body is None else str(body)[:2000])
    error = body.get("error", body)
    if isinstance(error, str):
        return Body(error)
    if not isinstance(error, Mapping):
        return Body(json.dumps(body)[:2000])
    message = error.get("message") or body.get("detail") or ""
    if not isinstance(message, str):
        message = json.dumps(message)
    metadata = error.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, Mapping) else None
    if raw:  # OpenRouter: "Provider returned error", the upstream's own words in metadata.raw
        message = f"{message}: {raw if isinstance(raw, str) else json.dumps(raw)}"
    return Body(message, text(error.get("type")), text(error.get("code")), text(error.get("param")))


def text(value) -> str:
    return "" if value is None else str(value)


def wait_asked(headers: Mapping[str, str], now: float) -> float | None:
    """The seconds the provider asked us to wait: `retry-after-ms` (OpenAI), else `retry-after` in
    seconds or as an HTTP date. None when it did not ask, or asked in a form we cannot read."""
    lower = {key.lower(): value for key, value in headers.items()}
    try:
        if "retry-after-ms" in lower:
            return max(0.0, float(lower["retry-after-ms"]) / 1000)
        if "retry-after" in lower:
            value = lower["retry-after"].strip()
            try:
                return max(0.0, float(value))
            except ValueError:
                return max(0.0, parsedate_to_datetime(value).timestamp() - now)
    except (ValueError, TypeError, OverflowError):
        return None
    return None


def describe_openai(err: Exception) -> ProviderFailure | None:
    """An `openai` SDK exception read as a ProviderFailure; None for anything that is not the
    endpoint's failure (a bug on our side, to be raised as it is)."""
    import openai
    if isinstance(err, EmptyResponse):
        return ProviderFailure(FailureKind.SERVER, 200, str(err))
    return describe_sdk(err, openai)


def describe_anthropic(err: Exception) -> ProviderFailure | None:
    """An `anthropic` SDK exception read as a ProviderFailure; None for anything else."""
    import anthropic
    return describe_sdk(err, anthropic)


def describe_sdk(err: Exception, sdk) -> ProviderFailure | None:
    if isinstance(err, sdk.APIStatusError):
        return classify(err.status_code, raw_body(err), err.response.headers)
    if isinstance(err, sdk.APIConnectionError):  # timeouts included: no status, no body
        return ProviderFailure(FailureKind.CONNECTION, None, f"{type(err).__name__}: {err}")
    if isinstance(err, sdk.APIError):  # a 2xx the SDK could not read as the API's schema
        return ProviderFailure(FailureKind.SERVER, None, f"{type(err).__name__}: {err}")
    return None


def raw_body(err) -> bytes | object:
    """The body as the server sent it. The openai SDK's `.body` keeps only the inner `error`
    object, losing a flat vLLM body's shape; the response's own bytes keep everything."""
    try:
        content = err.response.content
    except Exception:  # a streamed response not read: fall back on what the SDK parsed
        content = b""
    return content or err.body
