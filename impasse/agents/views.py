"""What the model behind the relay is shown, and how its turn goes back to the agent.

Two views of one conversation. A model that speaks the agent's tools (a real provider's) sees
them unchanged: the agent's tool names, its results as the agent wrote them. A scripted policy
speaks impasse's four tools: it sees its own calls in impasse's names and each result as impasse's
loop renders an observation (`exit code: N` and the output), and never the relay's plumbing."""

from __future__ import annotations

import json

from impasse.agents.agent_calls import AgentCall, Offered
from impasse.agents.exchange import Exchange, Reply
from impasse.agents.specs import load_specs
from impasse.agents.tool_names import to_agent, to_impasse
from impasse.agents.tool_specs import AgentTools
from impasse.episode.tools import TOOLS, render
from impasse.models.turns import ModelTurn, ToolCall
from impasse.vocabulary import TERMINAL_TOOLS, Tool


def wire_message(call: AgentCall) -> dict:
    """An agent's call in the model protocol's form: namespaced names flattened, freeform input
    as `{"input": …}`, as the tools were offered to the model."""
    name = f"{call.namespace}__{call.name}" if call.namespace else call.name
    raw = json.dumps({"input": call.text}) if call.freeform else call.raw
    return {"id": call.id, "type": "function", "function": {"name": name, "arguments": raw}}


def native_messages(exchange: Exchange) -> list[dict]:
    messages: list[dict] = []
    for turn in exchange.turns:
        if turn.role in ("system", "user"):
            messages.append({"role": turn.role, "content": turn.text})
        elif turn.role == "assistant":
            message: dict = {"role": "assistant", "content": turn.text}
            if turn.calls:
                message["tool_calls"] = [wire_message(call) for call in turn.calls]
            if turn.carry:
                message["carry"] = list(turn.carry)
            messages.append(message)
        else:
            messages += [{"role": "tool", "tool_call_id": r.call_id, "content": r.text} for r in turn.results]
    return merged_systems(messages)


def merged_systems(messages: list[dict]) -> list[dict]:
    """The leading system entries as one (an OpenAI-style prompt has one system message first);
    a later one (Claude Code's role:system reminders) stays where it is."""
    head = 0
    while head < len(messages) and messages[head]["role"] == "system":
        head += 1
    if head <= 1:
        return messages
    return [{"role": "system", "content": "\n\n".join(m["content"] for m in messages[:head])}] + messages[head:]


def policy_messages(exchange: Exchange, issued: dict[str, ToolCall], hidden: set[str],
                    observed: dict[str, tuple[str, int | None]], not_found: tuple[str, ...] = ()) -> list[dict]:
    """The conversation in impasse's terms: the relay's own calls (`issued`, by wire id) in the
    policy's form, hidden calls and their results left out, each result as the observation read
    from it (`observed`: output and exit code by call id) rendered as impasse's loop renders it;
    `not_found`: the agent's own words for an edit's old text not found, beside every spec's."""
    messages: list[dict] = []
    for turn in exchange.turns:
        if turn.role in ("system", "user"):
            messages.append({"role": turn.role, "content": turn.text})
        elif turn.role == "assistant":
            calls = [issued.get(c.id) or to_impasse(c) for c in turn.calls if c.id not in hidden]
            if turn.calls and not calls and not turn.text:
                continue  # the relay's own turn (a poll of a running command): not the policy's
            message: dict = {"role": "assistant", "content": turn.text}
            if calls:
                message["tool_calls"] = [c.to_message() for c in calls]
            messages.append(message)
        else:
            for result in turn.results:
                if result.call_id in hidden:
                    continue
                output, code = in_impasse_words(issued.get(result.call_id), *observed[result.call_id],
                                                not_found=NOT_FOUND + not_found)
                content = output if code is None else render(output, code)
                messages.append({"role": "tool", "tool_call_id": result.call_id, "content": content})
    return merged_systems(messages)


# How each agent says that an edit's old text is not in the file: each spec's `tools.result.not_found`.
NOT_FOUND = tuple(phrase for spec in load_specs().values() for phrase in spec.tools.result.not_found)


def in_impasse_words(call: ToolCall | None, output: str, code: int | None,
                     not_found: tuple[str, ...] = NOT_FOUND) -> tuple[str, int | None]:
    """An edit whose old text is not in the file, said as impasse's edit says it (`edit_file: old_str
    not found`, exit 1): the policies read those words as "this edit is already in" and go on."""
    if call is not None and call.name == Tool.EDIT_FILE and code != 0 and any(w in output for w in not_found):
        return f"edit_file: old_str not found in {(call.arguments or {}).get('path', '')}\n{output}", 1
    if call is not None and call.name in TERMINAL_TOOLS:  # a verdict tool's reply: its words
        return output, None
    return output, code


def policy_tools() -> list[dict]:
    return TOOLS


def from_native(turn: ModelTurn, offered: Offered) -> list[AgentCall]:
    """A real model's calls back on the agent's wire: a flattened name to its namespace, a
    freeform tool's `input` to its text."""
    calls = []
    for call in turn.tool_calls:
        arguments = call.arguments if call.arguments is not None else {}
        if call.name in offered.namespaced:
            namespace, name = offered.namespaced[call.name]
            calls.append(AgentCall(call.id, name, arguments, namespace=namespace))
        elif call.name in offered.search:
            calls.append(AgentCall(call.id, call.name, arguments, search=True))
        elif call.name in offered.custom:
            calls.append(AgentCall(call.id, call.name, text=str(arguments.get("input", call.raw_arguments))))
        else:
            calls.append(AgentCall(call.id, call.name, arguments))
    return calls


def from_policy(turn: ModelTurn, tools: AgentTools, offered: Offered, workdir: str,
                edit_script: str) -> list[AgentCall]:
    return [wire for call in turn.tool_calls for wire in to_agent(call, tools, offered, workdir, edit_script)]


def reply_of(turn: ModelTurn, calls: list[AgentCall]) -> Reply:
    return Reply(turn.text, calls, turn.usage, list(turn.carry))
