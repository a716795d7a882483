import pytest

from relnotes.conventional import parse_message


def test_plain_feature():
    change = parse_message("a" * 40, "feat: add dark mode")
    assert (change.type, change.scope, change.subject, change.breaking) == \
        ("feat", None, "add dark mode", False)
    assert change.short_sha == "aaaaaaa"


@pytest.mark.parametrize("scope", ["api", "http-client", "ui/forms", "v2.io"])
def test_scopes_may_contain_hyphens_slashes_and_dots(scope):
    change = parse_message("b" * 40, f"fix({scope}): handle timeouts")
    assert (change.type, change.scope, change.subject) == ("fix", scope, "handle timeouts")


def test_bang_marks_a_breaking_change():
    change = parse_message("c" * 40, "feat(api)!: drop the v1 endpoints")
    assert change.breaking
    assert change.breaking_note == "drop the v1 endpoints"


def test_breaking_footer_marks_a_breaking_change():
    change = parse_message("d" * 40, "refactor: new config loader\n\nBREAKING CHANGE: the INI "
                                     "format is gone")
    assert change.breaking and change.breaking_note == "the INI format is gone"


def test_unconventional_message_is_other():
    change = parse_message("e" * 40, "Merge branch 'main' into feature")
    assert change.type == "other" and not change.breaking
