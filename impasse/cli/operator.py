"""`impasse operator agree`: the operator's rule held to hand-labelled escalations
(operator/agreement.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from impasse.cli.common import fail, must_be_writable, must_exist, out

app = typer.Typer(no_args_is_help=True, help="The simulated operator that answers escalations.")


@app.command("agree")
def agree(labels: Annotated[Path, typer.Argument(help="Labelled escalations (JSONL), e.g. "
                                                      "tests/data/operator/escalations.jsonl.")],
          json_file: Annotated[Path | None, typer.Option("--json", help="The figures and every disagreement.")] = None,
          ) -> None:
    """How often the operator's verdict agrees with a person's label: a confusion table (label by
    verdict), the agreement share, and every disagreement."""
    from impasse.operator.agreement import agreement
    must_exist([labels], "labels file")
    if json_file:
        must_be_writable(json_file, "--json")
    try:
        result = agreement(labels)
    except ValueError as err:  # an unknown task, a bad line (read_labelled names it)
        raise fail(f"{labels}: {err}", code=2) from None
    out.print(confusion_table(result))
    out.print(disagreement_table(result))
    agreed = len(result.verdicts) - len(result.disagreements())
    out.print(f"agreement {agreed}/{len(result.verdicts)} = {result.share:.1%}", highlight=False)
    for name, figures in result.by_split().items():
        vague, wrong = share_text(figures["vague_lifted"]), share_text(figures["wrong_cause_lifted"])
        other = share_text(figures["wrong_cause_other_card"])
        out.print(f"{name} folds: {figures['items']} texts, agreement {figures['agreement']:.1%}, vague lifted "
                  f"{vague}, wrong-cause lifted {wrong} (another card acted on, answered checked: {other})",
                  highlight=False)
    if json_file:
        json_file.write_text(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n")


def share_text(share: float | None) -> str:
    return "–" if share is None else f"{share:.1%}"


def confusion_table(result) -> Table:
    from impasse.operator.agreement import COLUMNS
    table = Table("label \\ verdict", *COLUMNS, title="the operator's verdict against the labels")
    for label, row in result.confusion().items():
        table.add_row(label, *(str(row[c]) for c in COLUMNS))
    return table


def disagreement_table(result) -> Table:
    table = Table("card", "label", "verdict", "text", "source", title="disagreements")
    for v in result.disagreements():
        table.add_row(v.item.card, v.item.label, v.column, escape(v.item.text), escape(v.item.source))
    return table
