from datetime import date

from relnotes.config import NotesConfig
from relnotes.conventional import parse_message
from relnotes.render import render
from relnotes.version import Version

MESSAGES = ["feat(http-client): retry idempotent requests", "fix(ui/forms): keep focus on error",
            "fix: typo in help", "chore: bump deps", "feat(api)!: remove the v1 endpoints"]


def notes(include_other=False):
    changes = [parse_message(f"{i:07d}" + "0" * 33, m) for i, m in enumerate(MESSAGES)]
    return render(Version(2, 0, 0), changes, NotesConfig(include_other=include_other),
                  date(2026, 2, 1))


def test_sections_list_scoped_entries():
    text = notes()
    assert text.startswith("## v2.0.0 (2026-02-01)\n")
    features = text.split("### Features\n\n")[1].split("\n\n")[0].splitlines()
    assert features == ["- **http-client:** retry idempotent requests (0000000)",
                        "- **api:** remove the v1 endpoints (0000004)"]
    fixes = text.split("### Bug fixes\n\n")[1].split("\n\n")[0].splitlines()
    assert fixes == ["- **ui/forms:** keep focus on error (0000001)", "- typo in help (0000002)"]


def test_breaking_changes_come_first():
    text = notes()
    assert text.index("Breaking changes") < text.index("### Features")
    assert "- remove the v1 endpoints (0000004)" in text


def test_other_commits_only_when_asked():
    assert "### Other" not in notes()
    assert "- bump deps (0000003)" in notes(include_other=True)
    assert "### Other" in notes(include_other=True)
