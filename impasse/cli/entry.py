"""The `impasse` program: the command line, or one line and exit 2 where an agent spec shipped
beside it does not hold (the agents are read from their specs as the command line is imported)."""

from __future__ import annotations

import sys
from importlib import import_module

from impasse.agents.specs import AgentSpecError


def main() -> None:
    try:
        app = import_module("impasse.cli.main").app
    except AgentSpecError as err:
        print(f"impasse: an agent spec does not hold:\n{err}", file=sys.stderr)
        sys.exit(2)
    app()
