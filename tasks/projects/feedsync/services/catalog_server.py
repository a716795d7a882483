"""The catalog service (runs as root inside the task container, on 127.0.0.1).

GET /health -> {"status": "ok"}; GET /products?cursor=C&limit=N -> {"items": [...], "next": C|null}.
Pages are capped at MAX_PAGE items whatever the client asks for, as the real service does.
"""

import json
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MAX_PAGE = 20
CATALOG = json.loads((Path(__file__).parent / "catalog.json").read_text())


class Handler(BaseHTTPRequestHandler):
    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/health":
            return self.reply(200, {"status": "ok", "products": len(CATALOG)})
        if url.path != "/products":
            return self.reply(404, {"error": "not found"})
        start = int(query.get("cursor") or 0)
        limit = min(int(query.get("limit") or MAX_PAGE), MAX_PAGE)
        items = CATALOG[start:start + limit]
        more = start + limit < len(CATALOG)
        return self.reply(200, {"items": items, "next": str(start + limit) if more else None})

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
