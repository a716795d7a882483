"""Inspect's extension entry point (pyproject's `[project.entry-points.inspect_ai]`): importing it
registers the `impasse` sandbox type."""

from impasse.inspect_ext.sandbox import ImpasseSandbox

__all__ = ["ImpasseSandbox"]
