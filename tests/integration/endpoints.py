"""Local HTTP servers that speak the real wire formats of OpenAI chat completions (tool_calls) and
Anthropic messages (tool_use), answering from a script. No model API is reachable here."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def openai_tool_call(name: str, arguments: str, text: str = "") -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": text or None,
                "tool_calls": [{"id": f"call_{time.monotonic_ns()}", "type": "function",
                                "function": {"name": name, "arguments": arguments}}]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def openai_text(text: str) -> dict:
    return {"id": "chatcmpl-2", "object": "chat.completion", "created": 0, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def anthropic_tool_use(name: str, arguments: dict, text: str = "") -> dict:
    content = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": f"toolu_{time.monotonic_ns()}", "name": name, "input": arguments}]
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "test-model", "content": content,
            "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}


class Script:
    """Replies in order: a dict is sent as JSON (200); an int is sent as that HTTP status; a float
    is a hang of that many seconds before a reply."""

    def __init__(self, replies: list) -> None:
        self.replies = list(replies)
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            return self.replies.pop(0) if self.replies else 500


def serve(script: Script) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            script.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
            reply = script.next()
            if isinstance(reply, float):
                time.sleep(reply)
                reply = 500
            if isinstance(reply, int):
                self.send_response(reply)
                data = json.dumps({"error": {"message": "scripted failure", "type": "server_error"}}).encode()
            else:
                self.send_response(200)
                data = json.dumps(reply).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
