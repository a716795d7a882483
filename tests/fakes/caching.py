"""Prompt caching as the providers do it, on the fake's token count.

A request is a sequence of blocks in the order the provider caches them (tools, system, then each
message's content). Anthropic caches the prefix up to each `cache_control` breakpoint: a prefix
written before, at or shortly before a breakpoint, is read from the cache; the rest up to the last
breakpoint is written to it.
OpenAI caches automatically: the longest prefix seen before is read, counted in steps of 128 tokens.
Neither caches a prefix shorter than its minimum (1024 tokens)."""

from __future__ import annotations

import hashlib
import json
import math
import threading

LOOKBACK = 20  # Anthropic: "about 20 blocks" before a breakpoint are checked for a cache hit


def blocks_of(items: list[dict], role: str = "") -> list[tuple[str, bool]]:
    """Each block as its canonical JSON (without its cache marker, which is not content), and
    whether it carries a breakpoint."""
    out = []
    for item in items:
        bare = {k: v for k, v in item.items() if k != "cache_control"}
        out.append((json.dumps({"role": role, **bare} if role else bare, sort_keys=True), "cache_control" in item))
    return out


def anthropic_blocks(body: dict) -> list[tuple[str, bool]]:
    system = body.get("system") or []
    system = [{"type": "text", "text": system}] if isinstance(system, str) else system
    blocks = blocks_of(body.get("tools") or []) + blocks_of(system, "system")
    for message in body.get("messages", []):
        content = message["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks += blocks_of(content, message["role"])
    return blocks


def chat_blocks(body: dict) -> list[tuple[str, bool]]:
    return blocks_of(body.get("tools") or []) + blocks_of(body.get("messages", []))


def response_blocks(body: dict) -> list[tuple[str, bool]]:
    items = body.get("input") or []
    items = [{"role": "user", "content": items}] if isinstance(items, str) else items
    instructions = [{"role": "developer", "content": body["instructions"]}] if body.get("instructions") else []
    return blocks_of(body.get("tools") or []) + blocks_of(instructions + items)


class PrefixCache:
    """The prefixes one provider has cached, by the hash of their blocks."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.lock = threading.Lock()

    def anthropic(self, blocks: list[tuple[str, bool]], minimum: int) -> tuple[int, int]:
        """(tokens read from the cache, tokens written to it) for one request."""
        every = list(prefixes(blocks))
        marks = [(key, size) for key, size, marked in every if marked]
        # Each breakpoint also finds an entry written at any of the LOOKBACK block boundaries before it
        # (so a conversation's breakpoint may move on each turn and still read the last turn's entry).
        looked = {j for i, (*_, marked) in enumerate(every) if marked for j in range(max(0, i - LOOKBACK), i + 1)}
        with self.lock:
            read = max((every[j][1] for j in looked if every[j][0] in self.seen), default=0)
            last = marks[-1][1] if marks else 0
            written = last - read if last >= minimum and last > read else 0
            self.seen.update(key for key, size in marks if size >= minimum)
        return read, written

    def automatic(self, blocks: list[tuple[str, bool]], minimum: int) -> int:
        """Tokens of the longest prefix seen before (OpenAI: in 128-token steps, at least `minimum`)."""
        every = [(key, size) for key, size, _ in prefixes(blocks)]
        with self.lock:
            hit = max((size for key, size in every if key in self.seen), default=0)
            self.seen.update(key for key, size in every if size >= minimum)
        return hit // 128 * 128 if hit >= minimum else 0


def prefixes(blocks: list[tuple[str, bool]]):
    """(hash of the prefix through this block, its tokens, whether the block is a breakpoint)."""
    digest, chars = hashlib.sha256(), 0
    for text, marked in blocks:
        digest.update(text.encode())
        chars += len(text)
        yield digest.hexdigest(), math.ceil(chars / 4), marked
