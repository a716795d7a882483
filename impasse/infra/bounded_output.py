"""A command's output kept within a fixed size: its head and its tail, and a count of what was dropped
between them."""

from __future__ import annotations

OUTPUT_HEAD = 10_000
OUTPUT_TAIL = 10_000


class BoundedOutput:
    """Keeps the first and last bytes of a stream and counts what was dropped between them, so a
    command printing 50 MB costs the host a fixed amount of memory."""

    def __init__(self, head: int = OUTPUT_HEAD, tail: int = OUTPUT_TAIL) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail += chunk
        overflow = len(self.tail) - self.tail_limit
        if overflow > 0:
            del self.tail[:overflow]
            self.dropped += overflow

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail
        return f"{head}\n[... {self.dropped} bytes of output elided ...]\n{tail}"
