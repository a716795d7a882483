"""The end-of-run report reads a task's tests where the task keeps them. toolz keeps its tests in
`toolz/tests`, not at the root: an agent that edits one, or adds a conftest.py above it, has changed
the tests; a fix committed while a test edit is left uncommitted is still a committed fix."""

import pytest

from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.catalog.generated import load_generated
from impasse.catalog.generated_tasks import as_task
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.truth.workspace_facts import read_facts

pytestmark = pytest.mark.docker

LABELS = {"impasse.run_id": "test-workspace-facts"}


@pytest.fixture(scope="module")
def task():
    nested = sorted((as_task(g) for g in load_generated() if g.project == "toolz"), key=lambda t: t.id)
    if not nested:
        pytest.skip("no generated toolz task")
    assert nested[0].test_paths == ("toolz/tests",)
    return nested[0]


def test_a_nested_test_folder_is_the_tests(api, task):
    staged = stage(api, make_condition(task, get_card("none")))
    with open_environment(api, staged, LABELS) as env:
        box = env.box
        edit = box.exec("echo '# edited' >> toolz/tests/test_functoolz.py && echo 'x = 1' > toolz/conftest.py"
                        " && echo '# fixed' >> toolz/functoolz.py && git add toolz/functoolz.py"
                        " && git -c user.email=a@b -c user.name=a commit -qm fix")
        assert edit.exit_code == 0, edit.output
        facts = read_facts(env, env.base, commit=True)
        assert facts.tests_changed == ["toolz/conftest.py", "toolz/tests/test_functoolz.py"]
        assert facts.committed is True  # the test edit left uncommitted is not the fix's

        assert box.exec("echo '# more' >> toolz/itertoolz.py").exit_code == 0
        assert read_facts(env, env.base, commit=True).committed is False


def test_an_untouched_workspace_has_no_changed_tests(api, task):
    staged = stage(api, make_condition(task, get_card("none")))
    with open_environment(api, staged, LABELS) as env:
        facts = read_facts(env, env.base, commit=True)
        assert facts.tests_changed == [] and facts.committed is False and facts.diff == ""
