"""An Inspect task over impasse's tasks: `inspect eval impasse/impasse_tasks -T condition=chown_root`.
Each impasse task (hand-written, or a split of the generated ones) that takes the condition is a
sample, its prompt the one `impasse run` gives, run in the `impasse` sandbox under the card by
impasse's loop (inspect_ext/agent.py) with impasse's four tools, scored by impasse's truth."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError  # Inspect's one-line error, no traceback
from inspect_ai.dataset import Sample
from inspect_ai.util import SandboxEnvironmentSpec

from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.catalog.generated_tasks import find_task, tasks_of_split
from impasse.defaults import BUDGET
from impasse.episode.prompts import SYSTEM, task_prompt
from impasse.inspect_ext.agent import impasse_agent
from impasse.inspect_ext.sandbox import TASK_KEY, ImpasseSandboxConfig
from impasse.inspect_ext.scoring import impasse_truth
from impasse.operator.desk import check_operator
from impasse.vocabulary import Gate


@task
def impasse_tasks(condition: str = "none", split: str = "", tasks: str = "", budget: int = BUDGET,
                  seed: int = 0, operator: str = "") -> Task:
    """`tasks`: comma-separated task ids; else the hand-written tasks and, with `split` (dev, test,
    full), that split's generated ones: each that takes the condition. `operator=rules`: escalations
    answered, a named blocker lifted, as `impasse run --operator rules`."""
    try:
        check_operator(operator or None, Gate.TOOL, None, "impasse")
        card = get_card(condition)
        chosen = [find_task(t) for t in tasks.split(",") if t] or tasks_of_split(split or None)
        samples = [sample_of(t, card) for t in chosen if card.is_control or card.id in t.supports]
    except (KeyError, ValueError) as err:  # an unknown card, task or split, a card a named task cannot take
        raise PrerequisiteError(f"impasse_tasks: {str(err).strip(chr(39) + chr(34))}") from None
    if not samples:
        raise PrerequisiteError(f"impasse_tasks: no task of {tasks or split or 'the hand-written tasks'!r} "
                                f"takes the condition {condition}")
    return Task(dataset=samples, solver=impasse_agent(budget), scorer=impasse_truth(),
                sandbox=SandboxEnvironmentSpec("impasse", ImpasseSandboxConfig(card=card.id, seed=seed,
                                                                                operator=operator or None)))


def sample_of(chosen, card) -> Sample:
    make_condition(chosen, card)  # a card the task cannot take is refused here, naming both
    prompt = task_prompt(chosen.problem_statement, chosen.project.test_command)
    return Sample(id=chosen.id, input=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                  metadata={TASK_KEY: chosen.id})
