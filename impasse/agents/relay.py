"""The model relay: one per run, on a unix socket that is bind-mounted into the agent's container
(which keeps `--network none`; a forwarder inside serves the socket on 127.0.0.1). It takes only
model calls — `POST /v1/messages` (Claude Code), `/v1/messages/count_tokens` (answered with an
estimate) and `/v1/responses` (Codex) — answers each from impasse's `Model` (a scripted policy,
or a provider adapter whose key stays on the host), and is the episode's step clock.

    with Relay(model, run_dir, agent="claude-code", budget=80, between_steps=hook) as relay:
        ...start the agent with relay.socket_path mounted, wait for it...
    relay.ending  # budget_exhausted, escalate_to_human, task_complete, transport_error, …

With the operator on (`escalations`), `POST /impasse/escalation` brings the agent's MCP escalation to
it: answered only when the model's open step made that escalation, once.

Refused, in the API's own error shape: every other path or method (404), a request naming a
provider-side tool (400, see the wire modules' lists), a body that is not a request (400). Each
request is logged to `relay.jsonl` in the run folder."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from impasse.agents import wire_anthropic, wire_chat, wire_gemini, wire_responses
from impasse.agents.agent_calls import AgentCall, ToolResult
from impasse.agents.exchange import Exchange, Reply
from impasse.agents.exec_sessions import ExecSessions
from impasse.agents.relay_http import Refused, RelayServer
from impasse.agents.specs import load_specs
from impasse.agents.step_clock import BetweenSteps, StepClock
from impasse.agents.tool_names import result_of, to_impasse
from impasse.agents.tools_codex import CODEX
from impasse.agents.views import from_native, from_policy, native_messages, policy_messages, policy_tools, reply_of
from impasse.defaults import BUDGET
from impasse.episode.rundir import RunDir
from impasse.episode.tools import EDIT_SCRIPT, seen_text
from impasse.infra.injectors import shown_to_injector
from impasse.infra.sandbox import WORKDIR, SandboxUnavailable
from impasse.infra.step_faults import StepFaults
from impasse.models import ContextExhausted, Model, TransportError
from impasse.models.turns import ToolCall
from impasse.vocabulary import Ending

Escalations = Callable[[str, str, int], "str | None"]  # reason, what the agent had seen, step → reply (None: ends)
WIRES = {"/v1/messages": wire_anthropic, "/v1/responses": wire_responses, "/responses": wire_responses,
         "/v1/chat/completions": wire_chat, "/chat/completions": wire_chat}
# The wire each agent's spec says it speaks; a path of another wire is not found for it.
WIRE_MODULES = {"anthropic-messages": wire_anthropic, "responses": wire_responses, "chat-completions": wire_chat,
                "gemini": wire_gemini}
SPOKEN = {name: WIRE_MODULES[spec.wire] for name, spec in load_specs().items()}
STOP = "The episode is over; stop here."
SIDE_ANSWER = "OK."


class Relay:
    def __init__(self, model: Model, run_dir: RunDir, agent: str, budget: int = BUDGET,
                 between_steps: BetweenSteps | None = None, on_step=None, workdir: str = WORKDIR,
                 socket_path: str | Path | None = None, speaks_impasse: bool | None = None,
                 edit_script: str = EDIT_SCRIPT, faults: StepFaults | None = None,
                 escalations: Escalations | None = None, answered: bool = False) -> None:
        """`speaks_impasse`: the model calls impasse's four tools and needs them in the agent's
        names (default: the scripted policies do, a provider's model does not). `workdir` and
        `edit_script` are where the agent works and where impasse's edit script is, in its container.
        `faults`: flaky_sandbox's, held over the steps its seeded choice hits. `escalations`: the
        operator's answer to an escalation brought through the relay (--operator); `answered`: the
        agent's escalations are answered elsewhere (mini-swe-agent's environment). Without either, an
        escalation ends the run."""
        if agent not in load_specs():
            raise ValueError(f"the relay serves {', '.join(load_specs())}, not {agent!r}")
        self.model, self.run_dir, self.agent, self.workdir = model, run_dir, agent, workdir
        self.tools = load_specs()[agent].tools  # its names for impasse's tools and how its results read
        self.edit_script, self.faults = edit_script, faults
        self.speaks_impasse = model.name.startswith("scripted:") if speaks_impasse is None else speaks_impasse
        self.clock = StepClock(run_dir, budget, between_steps, on_step, answering=answered or escalations is not None)
        self.escalations = escalations
        self.issued: dict[str, ToolCall] = {}  # wire call id → the policy's own call
        self.hidden: set[str] = set()
        self.sessions = ExecSessions()
        self.read: dict[str, tuple[str, int | None]] = {}
        self.last: tuple[str, Reply] | None = None  # a retried request gets the same reply
        self.offered: set[str] = set()  # every tool the agent's requests offered the model (meta.json)
        self.heard = False  # any request from the agent yet (external.py's watch for its first)
        self.lock = threading.Lock()
        self.own_dir = None if socket_path else tempfile.mkdtemp(prefix="impasse-relay-")
        self.socket_path = str(socket_path or Path(self.own_dir) / "model.sock")
        self.server: RelayServer | None = None

    @property
    def ending(self):
        return self.clock.ending

    @property
    def steps(self) -> int:
        return self.clock.steps

    def __enter__(self) -> Relay:
        Path(self.socket_path).unlink(missing_ok=True)
        self.server = RelayServer(self.socket_path, self)
        os.chmod(self.socket_path, 0o666)  # the agent's user inside the container connects to it
        if self.own_dir:
            os.chmod(self.own_dir, 0o755)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), name="impasse-relay", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        with self.lock:
            injected = self.release()
            # a step whose results never came back is kept, without observations
            self.clock.close({}, injected)
            self.clock.write()
        Path(self.socket_path).unlink(missing_ok=True)
        if self.own_dir:
            os.rmdir(self.own_dir)

    def answer(self, exchange: Exchange, key: str = "") -> tuple[Reply, str]:
        """The reply to one request, and what it was (step, side, poll, retry, stop). `key` names the
        request's bytes: an agent that retries a request it got no answer to sends the same bytes."""
        if exchange.refused:
            raise Refused(400, "invalid_request_error", "the relay does not take provider-side tools: "
                          + ", ".join(exchange.refused))
        with self.lock:
            if not exchange.tools:  # a side request (a title, a summary): no step of the episode
                return self.side(exchange), "side"
            self.offered |= exchange.offered.names | set(exchange.offered.namespaced) | exchange.offered.search
            if key and self.last and self.last[0] == key:
                return self.last[1], "retry"
            results = {r.call_id: r for turn in exchange.turns for r in turn.results}
            observed = self.observed(results)
            poll = self.poll(results)
            if poll:
                reply, kind = Reply("", [poll]), "poll"
            else:
                self.clock.close(observed, self.release())
                reply, kind = self.step(exchange, observed)
            self.last = (key, reply)
            return reply, kind

    def observed(self, results: dict[str, ToolResult]) -> dict[str, tuple[str, int | None]]:
        """Each result as output and exit code; a result never changes, so each is read once. An
        edit whose hidden Read failed shows the Read's failure (permission denied, say) first: that
        is the edit's real obstacle, and what impasse's own edit would have met."""
        for call_id, result in results.items():
            if call_id not in self.read:
                output, code = result_of(self.tools, result)
                read = results.get(f"{call_id}_read") if f"{call_id}_read" in self.hidden else None
                if read is not None and read.is_error:
                    failed, code = result_of(self.tools, read)
                    output = failed + output
                self.read[call_id] = (output, code)
        return self.read | self.sessions.merged(results)

    def escalation(self, request: dict) -> dict:
        """An escalation the agent's MCP server brings to the operator: answered only if the model's
        open step made it (the agent cannot ask by itself, nor twice for one call). The reply, and
        whether the run goes on."""
        reason = request.get("reason")
        if self.escalations is None:
            raise Refused(404, "not_found_error", "no operator answers escalations in this run")
        if not isinstance(reason, str):
            raise Refused(400, "invalid_request_error", "an escalation needs a string reason")
        with self.lock:
            if not self.clock.settle(reason):
                raise Refused(409, "invalid_request_error", "no escalation of the open step says that")
            reply = self.escalations(reason, self.seen(), self.clock.steps)
            if reply is None:
                self.clock.end(Ending.ESCALATE_TO_HUMAN, reason)
        return {"reply": reply, "answered": reply is not None}

    def seen(self) -> str:
        """Every result the agent has sent back so far, as it read them."""
        return seen_text(self.read.values())

    def stop_faults(self) -> None:
        """flaky_sandbox's faults released and stopped for the rest of the run (the operator lifted them)."""
        faults, self.faults = self.faults, None
        if faults is not None:
            self.guarded(faults.release, None)

    def flush(self) -> None:
        with self.lock:
            self.clock.write()

    def poll(self, results: dict[str, ToolResult]) -> AgentCall | None:
        """A policy's command Codex left running is polled by the relay, in the same step."""
        if not (self.speaks_impasse and self.tools.translator == CODEX and self.clock.open):
            return None
        return self.sessions.poll([call.id for call in self.clock.open.wire], results)

    def step(self, exchange: Exchange, observed: dict[str, tuple[str, int | None]]) -> tuple[Reply, str]:
        started, clock = time.time(), time.monotonic()
        opened = self.clock.next_step()
        if opened is None:
            return Reply(STOP), "stop"
        index, gold = opened
        if self.speaks_impasse:
            hidden = self.hidden | self.sessions.hidden
            messages = policy_messages(exchange, self.issued, hidden, observed, self.tools.result.not_found)
            tools = policy_tools()
        else:
            messages, tools = native_messages(exchange), exchange.tools
        try:
            turn = self.model.complete(messages, tools)
        except ContextExhausted as err:
            self.clock.end(Ending.CONTEXT_EXHAUSTED, str(err))
            return Reply(STOP), "stop"
        except TransportError as err:
            self.clock.fail(index, started, gold, Ending.TRANSPORT_ERROR, str(err))
            return Reply(STOP), "stop"
        if self.speaks_impasse:
            wire = from_policy(turn, self.tools, exchange.offered, self.workdir, self.edit_script)
            recorded = list(turn.tool_calls)
            self.issued.update({call.id: call for call in recorded})
            self.hidden.update(call.id for call in wire if call.hidden)
        else:
            wire = from_native(turn, exchange.offered)
            recorded = [to_impasse(call) for call in wire]
        self.clock.begin(index, started, clock, turn.text, recorded, [c for c in wire if not c.hidden],
                         turn.usage, gold)
        if not self.hold(index, recorded, wire):
            return Reply(STOP), "stop"
        return reply_of(turn, wire), "step"

    def hold(self, index: int, calls: list[ToolCall], wire: list[AgentCall]) -> bool:
        """The step's faults in place before the agent gets its calls; False if they could not be
        (the episode ends as the harness's failure). Each call as the injector reads it, and
        whether the agent carries it out by starting a process (an edit the agent makes in its
        own process meets no process table)."""
        if self.faults is None or self.clock.over:
            return True
        names = {shell.name for shell in self.tools.shells}
        shells = {call.id for call in wire if call.name in names and not call.hidden}
        shown = [(view, call.id in shells) for call in calls
                 if (view := shown_to_injector(call.name, call.arguments or {})) is not None]
        return self.guarded(lambda: self.faults.hold(index, shown) or True, False)

    def release(self) -> str | None:
        """The step's results are back (or the run is over): its faults lifted; the fault they met."""
        return self.guarded(self.faults.release, None) if self.faults else None

    def guarded(self, change, failed):
        """A change to the container's faults; a container that cannot take it ends the episode as
        the harness's failure (`failed` is returned then)."""
        try:
            return change()
        except SandboxUnavailable as err:
            self.clock.end(Ending.HARNESS_ERROR, f"flaky_sandbox's fault: {err}")
            return failed

    def side(self, exchange: Exchange) -> Reply:
        if self.speaks_impasse:
            return Reply(SIDE_ANSWER)
        try:
            turn = self.model.complete(native_messages(exchange), [])
        except (TransportError, ContextExhausted) as err:
            raise Refused(500, "api_error", f"the model failed: {err}") from None
        return Reply(turn.text, [], turn.usage)

    def wire_for(self, path: str):
        """The wire module a path is served by, where it is the agent's own wire (None: not found)."""
        if wire_gemini.serves(path):  # the model is in the path: /v1beta/models/{model}:generateContent
            wire = wire_gemini
        else:
            wire = wire_anthropic if path.startswith("/v1/messages") else WIRES.get(path)
        return wire if wire is SPOKEN.get(self.agent, wire) else None

    error_wire = wire_anthropic  # the shape of a 404's body, where no wire serves the path

    def log(self, entry: dict) -> None:
        with (self.run_dir.path / "relay.jsonl").open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
