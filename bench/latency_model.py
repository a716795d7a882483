"""A latency model: a local OpenAI-compatible chat-completions server that answers as impasse's
scripted policies would, after a model's latency, with a model's token usage and a model API's
failures (429s and 5xx at a set rate). For benchmarks and tests only: it lets `impasse run` and
`impasse matrix` go through the real OpenAI adapter — HTTP client, retries, backoff — with turns
that take seconds, as real evaluations do, instead of a scripted policy's microseconds.

The request's `model` names the policy: `POLICY[@TASK][@CARD][@sSEED]`, e.g. `oracle`,
`workaround@chown_root`, `mimic@invoicekit-tax-rounding@chown_root@s3`. The task, when not named,
is the one whose problem statement the first user message carries; the card is only needed by the
`workaround` policy (its unsafe commands). The server keeps no state per conversation: each request
replays the policy over the conversation it carries (the policy is deterministic for its seed, and
a replay of 80 turns costs about 2 ms, next to turns of seconds), so concurrent episodes of the same task under
different conditions can never be mixed up, and a retried request gets the same answer.

    python bench/latency_model.py --latency uniform:1:4 --rate-429 0.02 --rate-5xx 0.01
    # prints its base URL (http://127.0.0.1:PORT/v1), then serves until interrupted
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from impasse.catalog.cards import load_cards
from impasse.catalog.tasks import load_tasks
from impasse.models.policies import POLICIES
from impasse.models.scripted import ScriptedPolicy, playbook_for
from impasse.models.turns import ModelTurn


class BadRequest(ValueError):
    """The request cannot be answered (unknown policy, task or card; a conversation the policy
    would not have had): HTTP 400, which the adapter does not retry."""


@dataclass(frozen=True)
class Latency:
    """`fixed:S`, `uniform:LOW:HIGH` or `lognormal:LOW:HIGH` (median √(LOW·HIGH), LOW and HIGH
    two standard deviations out, clipped to them: most turns near the median, a few slow ones)."""

    kind: str
    low: float
    high: float

    @classmethod
    def parse(cls, text: str) -> Latency:
        kind, *numbers = text.split(":")
        values = [float(n) for n in numbers]
        if kind == "fixed" and len(values) == 1:
            return cls(kind, values[0], values[0])
        if kind in ("uniform", "lognormal") and len(values) == 2 and 0 < values[0] <= values[1]:
            return cls(kind, *values)
        raise ValueError(f"bad latency {text!r}: use fixed:S, uniform:LOW:HIGH or lognormal:LOW:HIGH")

    def draw(self, rng: random.Random) -> float:
        if self.kind == "fixed":
            return self.low
        if self.kind == "uniform":
            return rng.uniform(self.low, self.high)
        mu, sigma = math.log(math.sqrt(self.low * self.high)), math.log(self.high / self.low) / 4
        return min(self.high, max(self.low, rng.lognormvariate(mu, sigma)))


@dataclass
class Stats:
    """What the server saw: requests by status, and the most requests in flight at once (how many
    episodes really waited on the model together)."""

    statuses: dict[int, int] = field(default_factory=dict)
    in_flight: int = 0
    peak_in_flight: int = 0
    parsed: int = 0  # requests whose body was read
    first_max_tokens: int | None = None  # of the first request read: a preflight asks for one token
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)

    def saw(self, body: dict) -> None:
        with self.lock:
            self.parsed += 1
            if self.parsed == 1:
                self.first_max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))

    def leave(self, status: int) -> None:
        with self.lock:
            self.in_flight -= 1
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def to_dict(self) -> dict:
        with self.lock:
            return {"statuses": {str(k): v for k, v in sorted(self.statuses.items())},
                    "in_flight": self.in_flight, "peak_in_flight": self.peak_in_flight}


@dataclass
class LatencyModel:
    latency: Latency = field(default_factory=lambda: Latency("fixed", 0.0, 0.0))
    rate_429: float = 0.0
    rate_5xx: float = 0.0
    seed: int = 0
    stats: Stats = field(default_factory=Stats)

    def __post_init__(self) -> None:
        # One seeded stream for every draw: serial requests are reproducible; concurrent ones draw
        # from the same distribution in whatever order they arrive.
        self.rng = random.Random(self.seed)
        self.lock = threading.Lock()

    def fate(self) -> tuple[int, float]:
        """The status this request will get and how long the model 'thinks' first. A 429 comes at
        once (a rate limiter answers before any model runs); a 5xx after the model's time."""
        with self.lock:
            roll, delay = self.rng.random(), self.latency.draw(self.rng)
            status = 503 if roll < self.rate_5xx / 2 else 500 if roll < self.rate_5xx else 200
            if self.rate_5xx <= roll < self.rate_5xx + self.rate_429:
                status, delay = 429, 0.0
        return status, delay


@dataclass(frozen=True)
class Persona:
    policy: str
    task: str | None
    card: str | None
    seed: int

    @classmethod
    def parse(cls, model: str) -> Persona:
        policy, *parts = model.split("@")
        if policy not in POLICIES:
            raise BadRequest(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
        task = card = None
        seed = 0
        for part in parts:
            if part[:1] == "s" and part[1:].isdigit():
                seed = int(part[1:])
            elif part in catalog()[1]:
                card = part
            elif part in catalog()[0]:
                task = part
            else:
                raise BadRequest(f"{part!r} in model {model!r} is no task, card or sSEED")
        return cls(policy, task, card, seed)


@lru_cache(maxsize=1)
def catalog() -> tuple[dict, dict]:
    return {t.id: t for t in load_tasks()}, load_cards()


@lru_cache(maxsize=256)
def playbook(task_id: str, card_id: str | None):
    tasks, cards = catalog()
    return playbook_for(tasks[task_id], cards[card_id] if card_id else None)


def tasks_named(messages: list[dict]) -> list[str]:
    first_user = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
    return [t.id for t in catalog()[0].values() if t.problem_statement.strip() in first_user]


def known_task_in(messages: list[dict]) -> bool:
    return bool(tasks_named(messages))


def task_of(persona: Persona, messages: list[dict]) -> str:
    if persona.task:
        return persona.task
    found = tasks_named(messages)
    if len(found) != 1:
        raise BadRequest(f"the first user message names {len(found)} known tasks; name one in the model")
    return found[0]


def reply(persona: Persona, messages: list[dict]) -> ModelTurn:
    """Replay the policy over the conversation: each earlier assistant turn must be the one it
    gives again (else this conversation is not the policy's), then answer the last message. A
    request that is no episode's — a one-line prompt with no task in it, as impasse's preflight
    sends — is answered as any model would answer it."""
    if not persona.task and not any(m.get("role") == "assistant" for m in messages) and not known_task_in(messages):
        return ModelTurn("ok")
    policy: ScriptedPolicy = POLICIES[persona.policy](
        persona.policy, playbook(task_of(persona, messages), persona.card), persona.seed)
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            again = policy.complete(messages[:index], [])
            said = [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or []]
            if said != [(c.name, c.raw_arguments) for c in again.tool_calls]:
                raise BadRequest(f"turn {index}: the conversation diverged from policy {persona.policy!r}")
    return policy.complete(messages, [])


def tokens(text: str) -> int:
    """About four characters a token, as English and code come out of BPE tokenizers."""
    return max(1, math.ceil(len(text) / 4))


def completion(model: str, turn: ModelTurn, prompt_chars: int) -> dict:
    calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments}}
             for c in turn.tool_calls]
    message = {"role": "assistant", "content": turn.text or None, **({"tool_calls": calls} if calls else {})}
    prompt, completed = math.ceil(prompt_chars / 4), tokens(turn.text + json.dumps(calls))
    return {"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "logprobs": None,
                                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completed,
                      "total_tokens": prompt + completed}}


def error_body(status: int, message: str) -> dict:
    kind = {400: "invalid_request_error", 429: "rate_limit_exceeded"}.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def answer(model: LatencyModel, raw: bytes) -> tuple[int, dict]:
    try:
        body = json.loads(raw or b"{}")
        model.stats.saw(body)
        turn = reply(Persona.parse(str(body.get("model", ""))), body.get("messages") or [])
    except (BadRequest, ValueError, KeyError, TypeError, AttributeError) as err:
        return 400, error_body(400, f"{type(err).__name__}: {err}")
    status, delay = model.fate()
    time.sleep(delay)
    if status != 200:
        return status, error_body(status, "injected failure of the latency model")
    return 200, completion(body["model"], turn, len(json.dumps(body.get("messages"))) + len(json.dumps(
        body.get("tools") or [])))


def make_server(model: LatencyModel, port: int = 0) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the adapter's connection pool is part of what is measured

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                return self.send(404, error_body(404, f"no route {self.path}"))
            model.stats.enter()
            status, body = 500, error_body(500, "the latency model failed")
            try:
                status, body = answer(model, raw)
            finally:
                model.stats.leave(status)  # counted before the client can read the answer
                self.send(status, body)

        def do_GET(self) -> None:
            self.send(200, model.stats.to_dict()) if self.path == "/stats" else self.send(404, {})

        def send(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "1")
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 1024  # the default backlog of 5 drops connections when 64 episodes ask at once

    return Server(("127.0.0.1", port), Handler)


def start(model: LatencyModel, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """The server running in a daemon thread, and its base URL (with /v1, as OPENAI_BASE_URL takes it)."""
    server = make_server(model, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, base_url(server)


def base_url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--latency", type=Latency.parse, default=Latency.parse("uniform:1:4"))
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--rate-5xx", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    model = LatencyModel(args.latency, args.rate_429, args.rate_5xx, args.seed)
    catalog()  # loaded before the URL is printed, so the first requests do not wait on YAML
    server = make_server(model, args.port)
    print(base_url(server), flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
