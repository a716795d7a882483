"""A Gemini CLI chat kept as the Gemini API's history: a JSON array of `{role: user|model, parts}`
contents, as `/chat share <file>.json` writes it and as the CLI's `/chat save` checkpoints
(`~/.gemini/tmp/<project>/checkpoint-<tag>.json`) hold it. A run of `model` contents is one step;
its text parts (not its thoughts) are the step's text and its `functionCall` parts the calls. Their
results are the `functionResponse` parts of the `user` contents that follow, up to the next model
content, each paired with its call by `id`, or by order where the history keeps no ids. A `user`
content without a function response is the human: it ends the run and is no observation. The
calls are read as the CLI's own session file reads them (gemini_cli.gemini_steps)."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import ImportProblem, verdict_of
from impasse.analysis.formats.gemini_cli import gemini_steps
from impasse.analysis.normal_form import NTrajectory
from impasse.analysis.session_log import StepFacts

ROLES = ("user", "model")


def is_gemini_contents(data) -> bool:
    """A list of API contents only: each an object whose `role` is user or model and whose `parts`
    is a list, at least one of them the model's."""
    return isinstance(data, list) and bool(data) and all(
        isinstance(c, dict) and c.get("role") in ROLES and isinstance(c.get("parts"), list) for c in data) \
        and any(c["role"] == "model" for c in data)


def is_response(part) -> bool:
    return isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)


def is_human(content: dict) -> bool:
    return content["role"] == "user" and not any(is_response(p) for p in content["parts"])


def as_messages(contents: list[dict]) -> list[dict]:
    """The contents as the session file's messages (one `gemini` message per run of model contents,
    `user` ones as they are), each call and its response given the same id where the history has none."""
    messages: list[dict] = []
    waiting: list[dict] = []  # the current step's calls whose response has not come yet, in order
    for content in contents:
        parts = [dict(p) if isinstance(p, dict) else p for p in content["parts"]]
        if content["role"] == "model":
            if not (messages and messages[-1]["type"] == "gemini"):
                messages.append({"type": "gemini", "id": f"m{len(messages)}", "content": []})
                waiting = []
            for part in parts:
                call = part.get("functionCall") if isinstance(part, dict) else None
                if isinstance(call, dict):
                    part["functionCall"] = call = {"id": f"{messages[-1]['id']}c{len(waiting)}", **call}
                    waiting.append(call)
            messages[-1]["content"].extend(parts)
            continue
        for part in parts:
            if is_response(part):
                response = part["functionResponse"]
                match = next((c for c in waiting if response.get("id") is not None and c["id"] == response["id"]),
                             waiting[0] if waiting else None)
                if match is not None:
                    waiting.remove(match)
                    part["functionResponse"] = {**response, "id": match["id"]}
        messages.append({"type": "user", "content": parts})
    return messages


def contents_facts(contents: list[dict]) -> list[StepFacts]:
    """For each step, what the history knows of it: whether a person spoke next (a user content with
    no function response)."""
    facts: list[StepFacts] = []
    previous = None
    for content in contents if is_gemini_contents(contents) else []:
        if content["role"] == "model" and previous != "model":
            facts.append(StepFacts())
        elif facts and is_human(content):
            facts[-1].human_after = True
        previous = content["role"]
    return facts


def from_gemini_contents(data, path: Path) -> NTrajectory:
    if not is_gemini_contents(data):
        raise ImportProblem(f"{path}: not a Gemini API history (a list of `user`/`model` contents with `parts`)")
    steps = gemini_steps(as_messages(data))
    return NTrajectory(run_id=path.stem, source="gemini-cli", path=str(path), model="unknown", condition=None,
                       task=path.stem, steps=steps, ending=verdict_of(steps))
