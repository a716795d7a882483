"""A scripted turn as each API returns it: OpenAI chat completions (`tool_calls`), the Responses API
(`function_call` items), Anthropic messages (`tool_use`, `thinking` with its signature), with usage
in each one's own keys."""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import math

_ids = itertools.count(1)


def next_id(prefix: str) -> str:
    return f"{prefix}{next(_ids):06d}"


def tokens(value) -> int:
    """The fake's tokenizer: four characters of JSON a token, as the providers' own rule of thumb."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return math.ceil(len(text) / 4)


def sign(secret: bytes, text: str) -> str:
    """A thinking block's signature: proves the text is what this server produced, byte for byte."""
    return base64.b64encode(hmac.new(secret, text.encode(), hashlib.sha256).digest()).decode()


def output_tokens(turn: dict) -> int:
    return max(1, tokens(turn.get("text") or "") + sum(tokens(c["arguments"]) + tokens(c["name"])
                                                     for c in turn.get("tool_calls", [])))


def chat_completion(turn: dict, model: str, usage: dict, reasoning_key: str | None) -> dict:
    calls = [{"id": next_id("call_"), "type": "function",
              "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
             for c in turn.get("tool_calls", [])]
    message = {"role": "assistant", "content": turn.get("text") or None, **({"tool_calls": calls} if calls else {})}
    if reasoning_key and turn.get("thinking"):  # vLLM's reasoning parser, OpenRouter: the reasoning text itself
        message[reasoning_key] = turn["thinking"]
    return {"id": next_id("chatcmpl-"), "object": "chat.completion", "created": 1764547200, "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if calls else "stop"}], "usage": usage}


def chat_usage(prompt: int, completion: int, cached: int | None, reasoning: int | None) -> dict:
    """OpenAI's keys: `prompt_tokens` is the whole input, cached part included; `completion_tokens`
    includes the reasoning. Servers that report no details leave the `*_details` out."""
    used = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if cached is not None:
        used["prompt_tokens_details"] = {"cached_tokens": cached, "audio_tokens": 0}
    if reasoning is not None:
        used["completion_tokens_details"] = {"reasoning_tokens": reasoning, "audio_tokens": 0,
                                             "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
    return used


def response(turn: dict, model: str, prompt: int, cached: int, reasoning: int, summary: bool,
             encrypted: str | None) -> dict:
    """The Responses API: output items in order (reasoning, message, function calls)."""
    output = []
    if reasoning:
        output.append({"type": "reasoning", "id": next_id("rs_"), "status": None,
                       "summary": [{"type": "summary_text", "text": turn["thinking"]}]
                       if summary and turn.get("thinking") else [],
                       **({"encrypted_content": encrypted} if encrypted else {})})
    if turn.get("text"):
        output.append({"type": "message", "id": next_id("msg_"), "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]})
    for call in turn.get("tool_calls", []):
        output.append({"type": "function_call", "id": next_id("fc_"), "call_id": next_id("call_"),
                       "name": call["name"], "arguments": json.dumps(call["arguments"]), "status": "completed"})
    completion = output_tokens(turn) + reasoning
    return {"id": next_id("resp_"), "object": "response", "created_at": 1764547200, "status": "completed",
            "model": model, "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "error": None, "incomplete_details": None, "instructions": None, "metadata": {},
            "usage": {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": cached},
                      "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": reasoning},
                      "total_tokens": prompt + completion}}


def message(turn: dict, model: str, usage: dict, thinking: str | None, secret: bytes) -> dict:
    """Anthropic: a signed thinking block first when thinking is on, then text, then tool_use."""
    content = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking, "signature": sign(secret, thinking)})
    if turn.get("text"):
        content.append({"type": "text", "text": turn["text"]})
    for call in turn.get("tool_calls", []):
        content.append({"type": "tool_use", "id": next_id("toolu_"), "name": call["name"],
                        "input": call["arguments"]})
    return {"id": next_id("msg_"), "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": "tool_use" if turn.get("tool_calls") else "end_turn", "stop_sequence": None,
            "usage": usage}


def anthropic_usage(uncached: int, output: int, read: int, written: int) -> dict:
    """Anthropic's keys: `input_tokens` is only the part neither read from nor written to the cache."""
    return {"input_tokens": uncached, "output_tokens": output, "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read}
