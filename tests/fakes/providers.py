"""A local server that answers as the documented model APIs do: OpenAI chat completions
(`POST /v1/chat/completions`, `/chat/completions`), the OpenAI Responses API (`POST /v1/responses`)
and Anthropic messages (`POST /v1/messages`), on 127.0.0.1.

What the model "chooses" comes from a script of turns (`text`, `tool_call`, `thinking_tool_call`)
and scripted faults (`rate_limited`, `overloaded`, `server_error`, `hang`), taken in order. Before a
request reaches the script it meets the rules a real provider enforces (`Rules`): the key, the known
models, reasoning models refusing `temperature`, the output cap, tools a server does not take, the
context window, the conversation's own rules (every tool call answered, tests/fakes/conversation.py),
Anthropic's thinking budget and its signed thinking blocks that must come back unchanged. A refused
request takes nothing from the script: the model never saw it. Usage comes in each API's own keys,
prompt caching honestly simulated (a prefix seen before is read, else written).
Every request is recorded (`requests`) for assertions.

    with FakeProvider([tool_call("bash", {"command": "ls"}), text("done")]) as api:
        OpenAI(api_key=api.rules.api_key, base_url=api.base_url)...
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.fakes import conversation, replies, wire
from tests.fakes.caching import PrefixCache, anthropic_blocks, chat_blocks, response_blocks
from tests.fakes.replies import tokens

FLAVOURS = ("openai", "vllm", "llamacpp", "openrouter", "ollama")
REASONING = re.compile(r"^(gpt-5|o1|o3|o4)")  # OpenAI's reasoning models: temperature is theirs to set
EFFORT_TOKENS = {"minimal": 0, "low": 64, "medium": 256, "high": 1024}
DEFAULT_THINKING = "Let me look at what the last command showed before the next step."
PATHS = {"/v1/chat/completions": "chat", "/chat/completions": "chat", "/v1/responses": "responses",
         "/v1/messages": "anthropic"}


@dataclass
class Rules:
    """How the provider behaves. `flavour` is which OpenAI-compatible server it answers as on the
    OpenAI paths (its wording of an overflow or of "no tools", its usage keys); the Anthropic path
    always answers as Anthropic. `api_key` None takes any key (a local server); `models` None any
    model. `min_cache_tokens`: the shortest prefix a provider caches (both ask for 1024)."""

    flavour: str = "openai"
    api_key: str | None = "sk-fake-0123456789"
    models: frozenset[str] | None = frozenset({"gpt-4o", "gpt-4o-mini", "gpt-5", "gpt-5-mini", "o3", "o4-mini",
                                               "claude-sonnet-4-5", "claude-opus-4-1", "test-model"})
    context_window: int = 128_000
    max_output: int = 16_384
    tools: bool = True
    min_cache_tokens: int = 1024

    def __post_init__(self) -> None:
        if self.flavour not in FLAVOURS:
            raise ValueError(f"unknown flavour {self.flavour!r}; known: {', '.join(FLAVOURS)}")
        if self.flavour == "openai" and not self.tools:
            raise ValueError("OpenAI's own API takes tools: refuse them as vllm, llamacpp, openrouter or ollama")


# ---- the script: what the model answers, turn by turn

def text(words: str) -> dict:
    return {"text": words, "tool_calls": []}


def tool_call(name: str, arguments: dict, words: str = "") -> dict:
    return {"text": words, "tool_calls": [{"name": name, "arguments": arguments}]}


def thinking_tool_call(thinking: str, name: str, arguments: dict, words: str = "") -> dict:
    return {**tool_call(name, arguments, words), "thinking": thinking}


def rate_limited(retry_after: float = 1.0) -> dict:
    return {"fault": "rate_limited", "retry_after": retry_after}


def overloaded() -> dict:
    return {"fault": "overloaded"}


def server_error(message: str = "") -> dict:
    return {"fault": "server", "message": message}


def hang(seconds: float) -> dict:
    """No answer for `seconds` (a client with a shorter timeout gives up), then a 500."""
    return {"fault": "hang", "seconds": seconds}


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: dict


@dataclass
class FakeProvider:
    script: list = field(default_factory=list)
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        self.script = list(self.script)
        self.requests: list[Recorded] = []
        self.cache = PrefixCache()
        self.secret = os.urandom(16)  # signs thinking blocks; a client cannot forge one
        self.issued: set[str] = set()  # the Responses API's encrypted reasoning handed out
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll: `close` waits for the loop to notice, and a test suite starts many of these.
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    @property
    def base_url(self) -> str:
        """What an OpenAI client is given (the Anthropic client takes `url`)."""
        return f"{self.url}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeProvider:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def answer(self, path: str, headers: dict[str, str], body: dict) -> tuple[int, dict, dict]:
        """(status, body, headers) for one request, as the real API would answer it."""
        with self.lock:
            self.requests.append(Recorded(path, headers, body))
        api = PATHS.get(path)
        if api is None:
            return 404, wire.openai_error(f"Invalid URL (POST {path})"), {}
        refused = self.refusal(api, headers, body)
        if refused:
            return (*refused, {})
        with self.lock:
            entry = self.script.pop(0) if self.script else server_error("the fake provider's script is exhausted")
        if "fault" in entry:
            return self.fault(entry, api, body["model"])
        return 200, self.reply(api, body, entry), {}

    # ---- the rules, in the order the real APIs apply them

    def refusal(self, api: str, headers: dict[str, str], body: dict) -> tuple[int, dict] | None:
        return (self.key_refused(api, headers) or self.model_refused(api, body)
                or (self.anthropic_refused(body) if api == "anthropic" else self.openai_refused(api, body)))

    def key_refused(self, api: str, headers: dict[str, str]) -> tuple[int, dict] | None:
        want = self.rules.api_key
        if want is None:
            return None
        if api == "anthropic":  # the key as `x-api-key` (Claude Code, older SDKs) or a bearer token (SDK 2.x)
            bearer = headers.get("authorization", "").removeprefix("Bearer ").strip() or None
            key = headers.get("x-api-key") or bearer
            return None if key == want else wire.anthropic_no_key() if key is None else wire.anthropic_wrong_key()
        key = headers.get("authorization", "").removeprefix("Bearer ").strip()
        return None if key == want else wire.openai_no_key() if not key else wire.openai_wrong_key(key)

    def model_refused(self, api: str, body: dict) -> tuple[int, dict] | None:
        model = body.get("model", "")
        if self.rules.models is None or model in self.rules.models:
            return None
        if api == "anthropic":
            return wire.anthropic_unknown_model(model)
        return wire.openai_unknown_model(model, self.rules.flavour)

    def openai_refused(self, api: str, body: dict) -> tuple[int, dict] | None:
        rules = self.rules
        reasoning = rules.flavour == "openai" and REASONING.match(body["model"])
        temperature = body.get("temperature")
        if reasoning and temperature is not None and temperature != 1:
            return wire.openai_temperature(temperature)
        effort = body.get("reasoning_effort") if api == "chat" else (body.get("reasoning") or {}).get("effort")
        if rules.flavour == "openai" and not reasoning and effort is not None:
            return wire.openai_unsupported("reasoning_effort" if api == "chat" else "reasoning.effort")
        if api == "chat" and reasoning and "max_tokens" in body:
            return wire.openai_unsupported("max_tokens", " Use 'max_completion_tokens' instead.")
        param = next((k for k in ("max_completion_tokens", "max_tokens", "max_output_tokens") if body.get(k)), None)
        asked = body[param] if param else 0
        if asked > rules.max_output:
            return wire.openai_max_tokens(asked, rules.max_output, param)
        if param == "max_output_tokens" and asked < 16:
            return wire.responses_output_below_minimum(asked)
        if body.get("tools") and not rules.tools:
            return wire.tools_refused(rules.flavour, body["model"])
        refused = conversation.chat_refused(body) if api == "chat" else \
            conversation.response_input_refused(body, self.issued)
        if refused:
            return refused
        prompt = tokens_of(chat_blocks(body) if api == "chat" else response_blocks(body))
        if api == "responses":
            return wire.responses_overflow() if prompt + asked > rules.context_window else None
        return wire.chat_overflow(rules.flavour, rules.context_window, prompt, asked)

    def anthropic_refused(self, body: dict) -> tuple[int, dict] | None:
        rules, max_tokens = self.rules, body.get("max_tokens")
        if max_tokens is None:
            return wire.anthropic_missing_max_tokens()
        if max_tokens > rules.max_output:
            return wire.anthropic_max_tokens(max_tokens, rules.max_output, body["model"])
        thinking = body.get("thinking") or {}
        if thinking.get("type") == "enabled":
            budget = thinking.get("budget_tokens", 0)
            if budget < 1024:
                return wire.anthropic_budget_too_small()
            if budget >= max_tokens:
                return wire.anthropic_budget_not_below_max_tokens()
            refused = conversation.thinking_refused(body, self.secret)
            if refused:
                return refused
        refused = conversation.anthropic_refused(body)
        if refused:
            return refused
        prompt = tokens_of(anthropic_blocks(body))
        return wire.anthropic_overflow(rules.context_window, prompt, max_tokens)

    # ---- answers

    def fault(self, entry: dict, api: str, model: str) -> tuple[int, dict, dict]:
        vendor = "anthropic" if api == "anthropic" else "openai"
        if entry["fault"] == "rate_limited":
            seconds = entry["retry_after"]
            return 429, wire.rate_limited(vendor, model, seconds), {"retry-after": f"{seconds:g}"}
        if entry["fault"] == "overloaded":
            return (*wire.overloaded(vendor), {})
        if entry["fault"] == "hang":
            time.sleep(entry["seconds"])
        return 500, wire.server_error(vendor, entry.get("message", "")), {}

    def reply(self, api: str, body: dict, turn: dict) -> dict:
        if api == "anthropic":
            return self.anthropic_reply(body, turn)
        minimum = self.rules.min_cache_tokens
        if api == "responses":
            blocks = response_blocks(body)
            reasoning = self.reasoning_tokens(body["model"], (body.get("reasoning") or {}).get("effort"), turn)
            settings = body.get("reasoning") or {}
            encrypted = None
            if "reasoning.encrypted_content" in (body.get("include") or []) and reasoning:
                encrypted = "gAAAAAB" + replies.sign(self.secret, replies.next_id("rs_") + (turn.get("thinking") or ""))
                with self.lock:
                    self.issued.add(encrypted)  # what may come back as a reasoning item's encrypted_content
            return replies.response(turn, body["model"], tokens_of(blocks), self.cache.automatic(blocks, minimum),
                                    reasoning, bool(settings.get("summary")), encrypted)
        flavour = self.rules.flavour
        blocks = chat_blocks(body)
        cached = self.cache.automatic(blocks, minimum) if flavour in ("openai", "openrouter", "vllm") else None
        reasoning = self.reasoning_tokens(body["model"], body.get("reasoning_effort"), turn)
        used = replies.chat_usage(tokens_of(blocks), replies.output_tokens(turn) + reasoning, cached,
                                  reasoning if flavour in ("openai", "openrouter") else None)
        key = {"vllm": "reasoning_content", "openrouter": "reasoning"}.get(flavour)
        return replies.chat_completion(turn, body["model"], used, key)

    def reasoning_tokens(self, model: str, effort: str | None, turn: dict) -> int:
        """OpenAI's reasoning models always reason (its effort sets how much); a compatible server's
        model reasons when its turn has thinking."""
        if turn.get("thinking"):
            return tokens(turn["thinking"])
        if self.rules.flavour == "openai" and REASONING.match(model):
            return EFFORT_TOKENS.get(effort or "medium", EFFORT_TOKENS["medium"])
        return 0

    def anthropic_reply(self, body: dict, turn: dict) -> dict:
        blocks = anthropic_blocks(body)
        read, written = self.cache.anthropic(blocks, self.rules.min_cache_tokens)
        thinking = None
        if (body.get("thinking") or {}).get("type") == "enabled":
            thinking = turn.get("thinking") or DEFAULT_THINKING
        output = replies.output_tokens(turn) + (tokens(thinking) if thinking else 0)
        used = replies.anthropic_usage(tokens_of(blocks) - read - written, output, read, written)
        return replies.message(turn, body["model"], used, thinking, self.secret)

    def models(self, anthropic: bool) -> dict:
        names = sorted(self.rules.models or ())
        if anthropic:
            return {"data": [{"type": "model", "id": n, "display_name": n, "created_at": "2025-09-29T00:00:00Z"}
                             for n in names], "has_more": False, "first_id": None, "last_id": None}
        return {"object": "list", "data": [{"id": n, "object": "model", "created": 0, "owned_by": "fake"}
                                           for n in names]}


def tokens_of(blocks: list) -> int:
    return tokens("".join(text for text, _ in blocks))


def handler_for(fake: FakeProvider):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # kept-alive connections, as the SDKs' pools expect

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self.send(400, wire.openai_error("We could not parse the JSON body of your request."), {})
            self.send(*fake.answer(self.path.split("?")[0], headers, body))

        def do_GET(self):
            headers = {k.lower(): v for k, v in self.headers.items()}
            if self.path.split("?")[0] != "/v1/models":
                return self.send(404, wire.openai_error(f"Invalid URL (GET {self.path})"), {})
            anthropic = "anthropic-version" in headers
            refused = fake.key_refused("anthropic" if anthropic else "chat", headers)
            self.send(*(refused or (200, fake.models(anthropic))), {})

        def send(self, status: int, body: dict, extra: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("request-id" if self.path.endswith("/messages") else "x-request-id",
                             replies.next_id("req_"))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (a hang)
                self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler
