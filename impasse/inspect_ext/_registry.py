"""Inspect's extension entry point (pyproject's `[project.entry-points.inspect_ai]`): importing it
registers the `impasse` sandbox type, the `impasse/<policy>` model provider and the `impasse_tasks` task."""

from inspect_ai.model import modelapi

from impasse.inspect_ext.sandbox import ImpasseSandbox
from impasse.inspect_ext.task import impasse_tasks


@modelapi(name="impasse")
def scripted_policies():
    from impasse.inspect_ext.policies import ScriptedPolicies
    return ScriptedPolicies


__all__ = ["ImpasseSandbox", "impasse_tasks", "scripted_policies"]
