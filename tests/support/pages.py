"""A local web page for agents' fetch tools to read in tests (nothing leaves the machine)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE_TEXT = "fetched-page-marker-77"


class _Page(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        body = f"<html><body><p>{PAGE_TEXT}</p></body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def served_page(port: int = 0) -> Iterator[str]:
    """The URL of a page holding :data:`PAGE_TEXT`, served while the block runs (on
    ``port``, or any free one).
    """
    server = ThreadingHTTPServer(("127.0.0.1", port), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/page"
    finally:
        server.shutdown()
        server.server_close()
