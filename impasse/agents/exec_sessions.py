"""Codex's unified exec hands back a running session (`Process running with session ID N`) when a
command outlasts its longest wait (30 s); a model then polls it with `write_stdin`. A scripted
policy knows nothing of sessions, so for it the relay polls on its own, in the same step: the
polls are hidden from the policy, and the command's observation is its outputs joined, with the
exit code of the last."""

from __future__ import annotations

import re

from impasse.agents.agent_calls import AgentCall, ToolResult
from impasse.agents.tool_results import codex_output

RUNNING = re.compile(r"^Process running with session ID (\d+)$", re.M)
POLL_WAIT_MS = 300000  # an empty poll waits up to five minutes for more output or the exit


class ExecSessions:
    def __init__(self) -> None:
        self.chains: dict[str, list[str]] = {}  # a command's call id → its polls' call ids, in order

    def poll(self, call_ids: list[str], results: dict[str, ToolResult]) -> AgentCall | None:
        """The next poll, when one of the open step's commands is still running."""
        for call_id in call_ids:
            chain = self.chains.setdefault(call_id, [])
            last = results.get(chain[-1] if chain else call_id)
            found = RUNNING.search(last.text.split("\nOutput:", 1)[0]) if last else None
            if found:
                poll_id = f"{call_id}_poll{len(chain) + 1}"
                chain.append(poll_id)
                return AgentCall(poll_id, "write_stdin", {"session_id": int(found.group(1)), "chars": "",
                                                          "yield_time_ms": POLL_WAIT_MS}, hidden=True)
        return None

    @property
    def hidden(self) -> set[str]:
        return {poll for chain in self.chains.values() for poll in chain}

    def merged(self, results: dict[str, ToolResult]) -> dict[str, tuple[str, int | None]]:
        """Each polled command's outputs joined, its exit code the last one's."""
        joined = {}
        for call_id, chain in self.chains.items():
            parts = [codex_output(results[i].text) for i in [call_id, *chain] if i in results]
            if chain and parts:
                joined[call_id] = ("".join(output for output, _ in parts), parts[-1][1])
        return joined
