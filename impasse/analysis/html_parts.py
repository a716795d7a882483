"""The small pieces the report is written with: escaped cells, tables, anchors to a run."""

from __future__ import annotations

import html


def anchor(run_id: str) -> str:
    return "run-" + "".join(c if c.isalnum() else "-" for c in run_id)


def esc(value) -> str:
    return html.escape("–" if value is None else str(value))


def html_table(header: list[str], rows: list[list]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def cells_md(values) -> str:
    """One Markdown table row; a cell's own pipes and line breaks cannot break the table."""
    return "| " + " | ".join(str(v).replace("|", "\\|").replace("\n", " ") for v in values) + " |"
