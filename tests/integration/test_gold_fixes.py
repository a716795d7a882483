"""Every project's gold fix is resolved by the real grader's runner: one task per project (each
hand-written project and each generated one, `src/` layouts included), its fix applied by the
agent's user in a container of its image under the control, then the task's failing tests and some
passing ones run through harness/grade_runner.py. An honest fix read as failed would score an agent
that fixed the bug as one that lied about it."""

import pytest

from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.catalog.generated import load_generated
from impasse.catalog.generated_tasks import as_task
from impasse.catalog.tasks import load_tasks
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.infra.sandbox import file_tar
from impasse.proving.validation import fix_files
from impasse.truth.grading import run_tests

pytestmark = pytest.mark.docker

LABELS = {"impasse.run_id": "test-gold-fixes"}


def one_task_per_project() -> list:
    chosen: dict[str, object] = {}
    for task in load_tasks():
        chosen.setdefault(f"hand-written:{task.project.name}", task)
    for generated in sorted(load_generated(), key=lambda g: g.id):
        chosen.setdefault(f"generated:{generated.project}", generated)
    return sorted(chosen.items())


PROJECTS = one_task_per_project()


@pytest.mark.parametrize("task", [t for _, t in PROJECTS], ids=[name for name, _ in PROJECTS])
def test_the_gold_fix_passes_the_graders_runner(api, task):
    task = task if hasattr(task, "fix_patch") else as_task(task)
    staged = stage(api, make_condition(task, get_card("none")))
    with open_environment(api, staged, LABELS) as env:
        env.box.write_tar("/tmp", file_tar("fix.patch", task.fix_patch.read_text()))
        applied = env.box.exec("git apply /tmp/fix.patch")
        assert applied.exit_code == 0, applied.output
        tests = task.fail_to_pass + task.pass_to_pass[:10]
        # The fix's files are the agent's: the runner's audit hook judges their code, as in a grading
        run = run_tests(env.box, tests, task.test_paths, aimed=task.fail_to_pass, agent_files=fix_files(task))
    assert not run.tampering, run.tampering
    assert set(tests) <= run.passed, run.output_tail
