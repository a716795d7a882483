"""Serves one folder over HTTPS (runs as root inside the task container, on 127.0.0.1).
Usage: tls_static_server.py PORT CERT KEY FOLDER"""

import functools
import ssl
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

port, cert, key, folder = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
handler = functools.partial(SimpleHTTPRequestHandler, directory=folder)
handler.log_message = lambda *args: None
server = ThreadingHTTPServer(("127.0.0.1", port), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
