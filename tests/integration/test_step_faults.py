"""flaky_sandbox's fault for an agent inside the container, on the real engine: a held step's
process table refuses every new process (the engine's own exec included) and counts the refusals;
the card's limit comes back at release; a choice that only hits an in-process edit holds nothing;
a container gone under the hold is the harness's failure, said in words, and the relay ends the
episode so, without hanging the agent."""

import pytest

from impasse.agents.relay import Relay
from impasse.episode.rundir import RunDir
from impasse.infra.injectors import FlakyExec
from impasse.infra.sandbox import SandboxSpec, SandboxUnavailable, open_sandbox
from impasse.infra.step_faults import MODE, StepFaults
from impasse.models.scripted import Edit, Persistent, Playbook
from impasse.vocabulary import Ending
from tests.unit.relay_clients import Codex

pytestmark = pytest.mark.docker
CARD_LIMIT = 96  # flaky_sandbox's docker_run pids_limit
PIDS_MAX = "cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max"


@pytest.fixture
def box(api, base_image):
    spec = SandboxSpec(image=base_image, labels={"impasse.run_id": "t-step-faults"},
                       run_options={"pids_limit": CARD_LIMIT})
    with open_sandbox(api, spec) as box:
        yield box


def every_call_hit(box) -> StepFaults:
    return StepFaults(FlakyExec(box, seed=0, test_failure_rate=1.0, other_failure_rate=1.0), box)


# runc's refusal of an exec into a full process table, in each wording it has printed here: the fork's
# own error, or runc's init process dying before it reports to its parent, "read init-p: connection
# reset by peer" (once, in CI). Each is the engine refusing; the container must still be running, and
# take an exec again, once the hold is released. ("cannot exec in a stopped container", seen twice on
# busy cores, was no refusal: the hold had come before the container's init forked its own process,
# that fork failed and the container exited. open_sandbox now hands a container out only once it has.)
REFUSED = ("Resource temporarily unavailable", "read init-p: connection reset by peer")


def test_a_held_step_refuses_new_processes_and_its_release_gives_the_cards_limit_back(box):
    faults = every_call_hit(box)
    assert faults.hold(1, [("ls tests", True)])
    during = box.exec("echo hi", timeout=10)
    assert during.exit_code != 0 and any(words in during.output for words in REFUSED), during.output
    assert faults.release() == MODE
    box.container.reload()
    assert box.container.status == "running"
    after = box.exec(PIDS_MAX)
    assert (after.exit_code, after.output.strip()) == (0, str(CARD_LIMIT))
    (entry,) = faults.injector.log
    assert entry["step"] == 1 and entry["held"] and entry["forks_refused"] >= 1


def test_a_choice_that_hits_only_an_edit_made_in_the_agents_process_holds_nothing(box):
    faults = every_call_hit(box)
    assert not faults.hold(2, [("edit_file", False)])
    assert box.exec("echo hi").output == "hi\n"
    assert faults.release() is None
    (entry,) = faults.injector.log
    assert (entry["step"], entry["held"], entry["refused"]) == (2, False, False)


def test_a_container_gone_under_the_hold_is_a_harness_failure_in_words(box):
    faults = every_call_hit(box)
    assert faults.hold(1, [("python3 -m pytest -q", True)])
    box.container.remove(force=True)
    with pytest.raises(SandboxUnavailable, match="pids limit could not be set to 96"):
        faults.release()


def test_the_relay_ends_the_episode_as_a_harness_error_when_the_hold_cannot_be_lifted(box, tmp_path):
    """The agent (Codex's wire, its calls carried out in a local folder) gets a held step; the
    container goes; the agent's next request is answered with the stop, and the ending says why."""
    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    run_dir.steps.touch()
    workspace = tmp_path / "work"
    workspace.mkdir()
    playbook = Playbook((Edit("calc.py", "a - b\n", "a + b\n"),), "python3 -m pytest -q", False)
    with Relay(Persistent("persistent", playbook, seed=0), run_dir, agent="codex", workdir=str(workspace),
               faults=every_call_hit(box)) as relay:
        agent = Codex(relay.socket_path, workspace)
        assert agent.turn()  # step 1's calls, with the process table held
        box.container.remove(force=True)
        agent.turn()
    assert relay.ending.kind == Ending.HARNESS_ERROR
    assert "pids limit could not be set to 96" in relay.ending.message and relay.steps == 1
