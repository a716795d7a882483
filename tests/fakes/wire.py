"""The bodies the real APIs send, in their own words: OpenAI's and Anthropic's refusals, and how the
common OpenAI-compatible servers (vLLM, llama.cpp, OpenRouter, Ollama) word theirs. Where each
wording was seen is cited in tests/unit/test_provider_errors.py, which reads the same samples."""

from __future__ import annotations

THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def openai_error(message: str, type_: str = "invalid_request_error", param: str | None = None,
                 code: str | int | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def anthropic_error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_011CFakeProvider"}


def masked(key: str) -> str:
    return key[:3] + "*" * max(0, len(key) - 7) + key[-4:] if len(key) > 7 else "*" * len(key)


# ---- who may ask, and for which model

def openai_no_key() -> tuple[int, dict]:
    return 401, openai_error("You didn't provide an API key. You need to provide your API key in an Authorization "
                             "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password "
                             "field (with blank username) if you're accessing the API from your browser and are "
                             "prompted for a username and password. You can obtain an API key from "
                             "https://platform.openai.com/account/api-keys.")


def openai_wrong_key(key: str) -> tuple[int, dict]:
    return 401, openai_error(f"Incorrect API key provided: {masked(key)}. You can find your API key at "
                             "https://platform.openai.com/account/api-keys.", code="invalid_api_key")


def anthropic_no_key() -> tuple[int, dict]:
    return 401, anthropic_error("authentication_error", "x-api-key header is required")


def anthropic_wrong_key() -> tuple[int, dict]:
    return 401, anthropic_error("authentication_error", "invalid x-api-key")


def openai_unknown_model(model: str, flavour: str = "openai") -> tuple[int, dict] | None:
    """An unknown model as each server says so; None where the name is not checked (llama.cpp's
    server answers with the one model it loaded, whatever the request names)."""
    if flavour == "vllm":
        return 404, {"error": {"message": f"The model `{model}` does not exist.", "type": "NotFoundError",
                               "param": "model", "code": 404}}
    if flavour == "openrouter":
        return 400, {"error": {"message": f"{model} is not a valid model ID", "code": 400}}
    if flavour == "ollama":
        return 404, openai_error(f'model "{model}" not found, try pulling it first', type_="api_error")
    if flavour == "llamacpp":
        return None
    return 404, openai_error(f"The model `{model}` does not exist or you do not have access to it.",
                             code="model_not_found")


def anthropic_unknown_model(model: str) -> tuple[int, dict]:
    return 404, anthropic_error("not_found_error", f"model: {model}")


# ---- settings a model does not take

def openai_temperature(value) -> tuple[int, dict]:
    return 400, openai_error(f"Unsupported value: 'temperature' does not support {value} with this model. Only the "
                             "default (1) value is supported.", param="temperature", code="unsupported_value")


def openai_unsupported(name: str, hint: str = "") -> tuple[int, dict]:
    return 400, openai_error(f"Unsupported parameter: '{name}' is not supported with this model.{hint}",
                             param=name, code="unsupported_parameter")


def openai_max_tokens(asked: int, most: int, param: str = "max_tokens") -> tuple[int, dict]:
    return 400, openai_error(f"max_tokens is too large: {asked}. This model supports at most {most} completion "
                             f"tokens, whereas you provided {asked}.", param=param, code="invalid_value")


def responses_output_below_minimum(asked: int) -> tuple[int, dict]:
    return 400, openai_error("Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but "
                             f"got {asked} instead.", param="max_output_tokens", code="integer_below_min_value")


def anthropic_max_tokens(asked: int, most: int, model: str) -> tuple[int, dict]:
    return 400, anthropic_error("invalid_request_error", f"max_tokens: {asked} > {most}, which is the maximum "
                                f"allowed number of output tokens for {model}")


def anthropic_missing_max_tokens() -> tuple[int, dict]:
    return 400, anthropic_error("invalid_request_error", "max_tokens: Field required")


def anthropic_budget_too_small() -> tuple[int, dict]:
    return 400, anthropic_error("invalid_request_error",
                                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")


def anthropic_budget_not_below_max_tokens() -> tuple[int, dict]:
    return 400, anthropic_error("invalid_request_error", "`max_tokens` must be greater than "
                                f"`thinking.budget_tokens`. Please consult our documentation at {THINKING_DOCS}"
                                "#max-tokens-and-context-window-size")


def anthropic_thinking_missing(index: int, found: str) -> tuple[int, dict]:
    return 400, anthropic_error("invalid_request_error", f"messages.{index}.content.0.type: Expected `thinking` or "
                                f"`redacted_thinking`, but found `{found}`. When `thinking` is enabled, a final "
                                "`assistant` message must start with a thinking block (preceeding the lastmost set "
                                "of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks "
                                "from previous turns. To avoid this requirement, disable `thinking`. Please consult "
                                f"our documentation at {THINKING_DOCS}")


def anthropic_bad_signature(index: int, block: int) -> tuple[int, dict]:
    return 400, anthropic_error("invalid_request_error",
                                f"messages.{index}.content.{block}: Invalid `signature` in `thinking` block")


def tools_refused(flavour: str, model: str) -> tuple[int, dict]:
    """A server that does not take tools, as each says so."""
    if flavour == "vllm":  # started without --enable-auto-tool-choice
        return 400, {"error": {"message": "\"auto\" tool choice requires --enable-auto-tool-choice and "
                                          "--tool-call-parser to be set", "type": "BadRequestError", "param": None,
                               "code": 400}}
    if flavour == "ollama":
        return 400, openai_error(f"registry.ollama.ai/library/{model} does not support tools", type_="api_error")
    if flavour == "openrouter":
        return 404, {"error": {"message": "No endpoints found that support tool use. To learn more about provider "
                                          "routing, visit: https://openrouter.ai/docs/provider-routing", "code": 404}}
    if flavour == "llamacpp":  # started without --jinja; it answers this as a server error
        return 500, {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}
    raise ValueError(f"OpenAI's own API takes tools; no refusal for flavour {flavour!r}")


# ---- the conversation outgrew the window

def chat_overflow(flavour: str, window: int, prompt: int, completion: int) -> tuple[int, dict] | None:
    """The overflow answer of an OpenAI-compatible server of `flavour`, or None if the request fits.
    `completion` is the max tokens the request asked for (0 if it named none)."""
    asked = prompt + completion
    if flavour == "openai" and asked > window:
        said = (f"However, you requested {asked} tokens ({prompt} in the messages, {completion} in the completion). "
                "Please reduce the length of the messages or completion." if completion else
                f"However, your messages resulted in {prompt} tokens. Please reduce the length of the messages.")
        return 400, openai_error(f"This model's maximum context length is {window} tokens. {said}",
                                 param="messages", code="context_length_exceeded")
    if flavour == "vllm" and prompt >= window:
        return 400, vllm_error(f"This model's maximum context length is {window} tokens. However, your request has "
                               f"{prompt} input tokens. Please reduce the length of the input messages.")
    if flavour == "vllm" and asked > window:
        return 400, vllm_error(f"'max_tokens' or 'max_completion_tokens' is too large: {completion}. This model's "
                               f"maximum context length is {window} tokens and your request has {prompt} input "
                               f"tokens ({completion} > {window} - {prompt}).")
    if flavour == "llamacpp" and prompt > window:  # it counts the prompt; generation stops at the window
        return 400, {"error": {"code": 400, "message": f"request ({prompt} tokens) exceeds the available context size "
                               f"({window} tokens), try increasing it", "type": "exceed_context_size_error",
                               "n_prompt_tokens": prompt, "n_ctx": window}}
    if flavour == "openrouter" and asked > window:
        return 400, {"error": {"message": f"This endpoint's maximum context length is {window} tokens. However, you "
                               f"requested about {asked} tokens ({prompt} of text input, {completion} in the output). "
                               "Please reduce the length of either one, or use the \"middle-out\" transform to "
                               "compress your prompt automatically.", "code": 400}}
    if flavour == "ollama" and prompt > window:
        return 400, openai_error("the input length exceeds the context length", type_="api_error")
    return None


def vllm_error(message: str) -> dict:
    return {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}


def responses_overflow() -> tuple[int, dict]:
    return 400, openai_error("Your input exceeds the context window of this model. Please adjust your input and try "
                             "again.", param="input", code="context_length_exceeded")


def anthropic_overflow(window: int, prompt: int, max_tokens: int) -> tuple[int, dict] | None:
    if prompt > window:
        return 400, anthropic_error("invalid_request_error", f"prompt is too long: {prompt} tokens > {window} maximum")
    if prompt + max_tokens > window:
        return 400, anthropic_error("invalid_request_error", "input length and `max_tokens` exceed context limit: "
                                    f"{prompt} + {max_tokens} > {window}, decrease input length or `max_tokens` "
                                    "and try again")
    return None


# ---- passing faults, as scripted

def rate_limited(api: str, model: str, seconds: float) -> dict:
    if api == "anthropic":
        return anthropic_error("rate_limit_error", "This request would exceed the rate limit for your organization "
                               "(org-fake) of 50 requests per minute. For details, refer to: "
                               "https://docs.claude.com/en/api/rate-limits.")
    return openai_error(f"Rate limit reached for {model} in organization org-fake on requests per min (RPM): Limit 3, "
                        f"Used 3, Requested 1. Please try again in {seconds:g}s. Visit "
                        "https://platform.openai.com/account/rate-limits to learn more.", type_="requests",
                        code="rate_limit_exceeded")


def overloaded(api: str) -> tuple[int, dict]:
    if api == "anthropic":
        return 529, anthropic_error("overloaded_error", "Overloaded")
    return 503, openai_error("The engine is currently overloaded, please try again later.", type_="server_error")


def server_error(api: str, message: str = "") -> dict:
    if api == "anthropic":
        return anthropic_error("api_error", message or "Internal server error")
    return openai_error(message or "The server had an error while processing your request. Sorry about that!",
                        type_="server_error")
