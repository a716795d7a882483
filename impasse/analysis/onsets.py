"""Where a card's blocker shows in a step: its signatures matched on the step's observations (tool
output and exit status, never the agent's own words), with the filters for walls the agent made
itself where nothing is known of what was injected."""

from __future__ import annotations

from impasse.analysis.compiled_card import CompiledCard, Match
from impasse.analysis.failure_lines import in_a_warnings_chain
from impasse.analysis.first_look import may_match
from impasse.analysis.normal_form import NStep, NTrajectory, Obs
from impasse.analysis.onset_rules import (
    absent_by_probe,
    agent_made_the_command,
    agent_started_it,
    commands_behind,
    hidden_by_own_path,
    is_credential,
    kind_counts,
    line_counts,
    probed_command,
    ran_as_program,
    refused_by_probe,
    sensor_reading,
    set_by_agent,
)
from impasse.analysis.self_caused import (
    agent_wrote_it,
    passing_test_run,
    ran_from_backticks,
    said_at_start_up,
    walked_past,
)
from impasse.catalog.frames import unframed

SHORT = 200


def matching_line(text: str, start: int) -> str:
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    return text[begin:end if end >= 0 else None].strip()[:SHORT]


def signature_match(compiled: CompiledCard, obs: Obs, step: NStep, trajectory: NTrajectory,
                    locals_: set[str]) -> Match | None:
    if obs.injected:
        return Match(step.index, f"harness-injected failure ({obs.injected})", obs.output.strip()[:SHORT])
    if not obs.executed:
        return None
    sensed = obs.sensors and sensor_reading(compiled.card.sensors, obs.sensors)  # per step: skip when none
    if sensed:
        return Match(step.index, f"runtime sensor ({sensed})", obs.output.strip()[-SHORT:])
    if (compiled.first_look is not None and not may_match(compiled.first_look, obs.output)) \
            or not kind_counts(obs, step) or (compiled.foreign and passing_test_run(obs.output, obs.exit_code)):
        return None  # the cheap tests first
    output = unframed(obs.output)
    for regex, signature in compiled.signatures:
        if signature.exit_codes and (obs.exit_code not in signature.exit_codes or obs.timed_out):
            continue
        for found in regex.finditer(output):
            line = matching_line(output, found.start()) if signature.pattern else ""
            # A zero or unrecorded status hides nothing: the line itself must say it failed.
            if signature.pattern and (not line_counts(line, obs.exit_code)
                                      or in_a_warnings_chain(output, found.start())):
                continue
            name = found.groupdict().get("name")
            if compiled.foreign and name is not None and (
                    (signature.injected == "python_packages" and (name.split(".")[0] in locals_
                                                                  or ran_as_program(name, obs, step)))
                    or (signature.injected == "binaries" and (agent_made_the_command(name, obs, step)
                                                              or hidden_by_own_path(name, step, trajectory)))
                    or (signature.injected == "secrets" and (not is_credential(name)
                                                             or set_by_agent(name, step, trajectory)))):
                continue
            if compiled.foreign and agent_started_it(compiled.self_caused, trajectory.steps, step.index, line):
                return None
            if compiled.foreign and (agent_wrote_it(trajectory.steps, step.index, line) or walked_past(line)
                                     or said_at_start_up(line) or ran_from_backticks(line, step)):
                continue
            return Match(step.index, signature.reason, line or f"exit status {obs.exit_code}", name,
                         signature.injected)
    return None


def probe_match(compiled: CompiledCard, obs: Obs, command: str, step: NStep) -> Match | None:
    """A binary the agent's own probe (`command -v X || echo …`) found absent: often the only place it shows."""
    names = [n for n in absent_by_probe(command, obs.output, obs.exit_code)
             if compiled.probed.fullmatch(n) and not (compiled.foreign and agent_made_the_command(n, obs, step))]
    if not names:
        return None
    said = next((line.strip() for line in obs.output.splitlines() if names[0].lower() in line.lower()), "")
    return Match(step.index, f"the agent's own probe found it absent ({command.strip()[:80]})",
                 said[:SHORT] or f"no output, exit status {obs.exit_code}", names[0], "binaries")


def connect_match(compiled: CompiledCard, obs: Obs, step: NStep, index: int, trajectory: NTrajectory) -> Match | None:
    """A service on this machine the agent's own connection probe found not answering (`curl -s
    localhost:8888/health || echo "down"`), unless the agent had started it itself."""
    command = commands_behind(step, index)
    said = refused_by_probe(command, obs.output)
    if not said or (compiled.foreign and agent_started_it(compiled.self_caused, trajectory.steps, step.index, said)):
        return None
    return Match(step.index, f"the agent's own probe found nothing answering ({command.strip()[:80]})", said[:SHORT])


def step_onset(compiled, step, trajectory, locals_) -> Match | None:
    for i, obs in enumerate(step.observations):
        match = signature_match(compiled, obs, step, trajectory, locals_) or (
            compiled.probed and obs.executed and probe_match(compiled, obs, probed_command(step, i), step)) or (
            compiled.connects and obs.executed and connect_match(compiled, obs, step, i, trajectory))
        if match:
            return match
    return None


def lone_onset(compiled: CompiledCard, step: NStep) -> Match | None:
    """The onset in one step seen on its own — a card proof, the live gold, an atlas sample — with no
    trajectory around it (and so nothing earlier that the agent could have caused)."""
    trajectory = NTrajectory("lone", "impasse", "-", "-", compiled.card.id, "-", [step], "unknown")
    return step_onset(compiled, step, trajectory, set())
