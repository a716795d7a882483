"""flaky_sandbox's fault for an agent inside the container, on the real engine: a held step's
process table refuses every new process (the engine's own exec included) and counts the refusals;
the card's limit comes back at release; a choice that only hits an in-process edit holds nothing;
a container gone under the hold is the harness's failure, said in words."""

import pytest

from impasse.infra.injectors import FlakyExec
from impasse.infra.sandbox import SandboxSpec, SandboxUnavailable, open_sandbox
from impasse.infra.step_faults import MODE, StepFaults

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


def test_a_held_step_refuses_new_processes_and_its_release_gives_the_cards_limit_back(box):
    faults = every_call_hit(box)
    assert faults.hold(1, [("ls tests", True)])
    during = box.exec("echo hi", timeout=10)
    assert during.exit_code != 0 and "Resource temporarily unavailable" in during.output
    assert faults.release() == MODE
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
