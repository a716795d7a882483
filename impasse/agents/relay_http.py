"""The relay's HTTP side: each request read, logged to the run's `relay.jsonl` before its answer
goes out, and answered by the relay it serves (`server.relay`: `answer`, `wire_for`, `log`,
`flush`, `steps`; `heard` set at the first request) in the API's own shape, streamed as server-sent
events where the agent asked.
Served on a unix socket (an agent in the container, through its forwarder) or on 127.0.0.1 TCP
(an agent on the host)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import socket
import socketserver
import time
from http.server import BaseHTTPRequestHandler

from impasse.agents import wire_anthropic
from impasse.agents.exchange import Exchange, Reply, WireError

ESCALATION_PATH = "/impasse/escalation"  # the MCP server's way to the operator (agents/relay.py)


class Refused(Exception):
    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind = status, kind



class RelayServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, relay) -> None:
        self.relay = relay
        super().__init__(path, Handler)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: RelayServer

    def log_message(self, *args) -> None:  # requests go to relay.jsonl; a unix peer has no address
        pass

    def parse_request(self) -> bool:
        self.server.relay.heard = True  # a request of any kind, before its answer: the agent has started
        return super().parse_request()

    def do_POST(self) -> None:
        """Each request is logged before its answer goes out, so the log is whole once the agent has it."""
        started = time.monotonic()
        path = self.path.split("?", 1)[0].rstrip("/")
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        wire = self.server.relay.wire_for(path)
        entry = {"at": time.time(), "method": "POST", "path": self.path}
        refused = None
        try:
            send = self.answer(wire, path, body, entry)
        except (json.JSONDecodeError, WireError) as err:
            refused = Refused(400, "invalid_request_error", str(err))
        except Refused as err:
            refused = err
        if refused is not None:
            entry |= {"kind": "refused", "status": refused.status, "error": str(refused)}
            send = functools.partial(self.send_error_body, wire or self.server.relay.error_wire, refused)
        entry["ms"] = round((time.monotonic() - started) * 1000, 3)
        self.server.relay.log(entry)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # an agent gone (timed out, stopped)
            send()
        self.server.relay.flush()

    def answer(self, wire, path: str, body: bytes, entry: dict):
        """What to send back, as a call to make once the request is logged."""
        if path == ESCALATION_PATH:
            request = json.loads(body or b"null")
            entry["kind"] = "escalation"
            answered = self.server.relay.escalation(request if isinstance(request, dict) else {})
            entry["answered"] = answered["answered"]
            return lambda: self.send_json(200, answered)
        if wire is None:
            raise Refused(404, "not_found_error", f"no such endpoint: POST {path}")
        request = json.loads(body or b"null")
        if not isinstance(request, dict):
            raise WireError("the body is not a JSON object")
        if path == "/v1/messages/count_tokens":
            entry["kind"] = "count_tokens"
            return lambda: self.send_json(200, wire_anthropic.count_tokens(request))
        # Gemini's model and streaming are in the path (its query too: `alt=sse`)
        exchange = wire.read_request(request, self.path)  # Gemini's model and stream flag are in the path
        key = hashlib.blake2b(body, digest_size=16).hexdigest()
        reply, entry["kind"] = self.server.relay.answer(exchange, key)
        entry["step"] = self.server.relay.steps
        return lambda: self.send_reply(wire, reply, exchange)

    def refuse_method(self) -> None:
        self.server.relay.log({"at": time.time(), "method": self.command, "path": self.path, "kind": "refused",
                               "status": 404})
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.send_error_body(self.server.relay.error_wire, Refused(
                404, "not_found_error", f"no such endpoint: {self.command} {self.path}"))

    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = refuse_method

    def send_reply(self, wire, reply: Reply, exchange: Exchange) -> None:
        if not exchange.stream:
            self.send_json(200, wire.reply_body(reply, exchange.model))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        asked = {"usage": True} if exchange.usage_chunk else {}
        chunks = (sse_event(kind, data) for kind, data in wire.events(reply, exchange.model, **asked))
        self.wfile.write("".join(chunks).encode())
        self.wfile.flush()
        with contextlib.suppress(OSError):  # the stream's end, now: the agent need not wait for the step's write
            self.connection.shutdown(socket.SHUT_WR)

    def send_error_body(self, wire, err: Refused) -> None:
        kind = err.kind if wire is wire_anthropic else {"not_found_error": "not_found",
                                                        "api_error": "server_error"}.get(err.kind, err.kind)
        self.send_json(err.status, wire.error(kind, str(err)))

    def send_json(self, status: int, data: dict) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)



def sse_event(kind: str | None, data: dict | str) -> str:
    """One server-sent event; Chat Completions' chunks have no event name, and its end is `[DONE]`."""
    name = f"event: {kind}\n" if kind else ""
    return f"{name}data: {data if isinstance(data, str) else json.dumps(data)}\n\n"


class TcpRelayServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], relay) -> None:
        self.relay = relay
        super().__init__(address, Handler)
