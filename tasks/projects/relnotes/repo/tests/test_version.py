import pytest

from relnotes.conventional import parse_message
from relnotes.version import Bump, Version, bump_for


def changes(*messages):
    return [parse_message(f"{i:040d}", m) for i, m in enumerate(messages)]


def test_parse_and_print():
    assert Version.parse("v1.2.3") == Version(1, 2, 3)
    assert str(Version(1, 2, 3)) == "1.2.3"
    with pytest.raises(ValueError):
        Version.parse("v1.2")


@pytest.mark.parametrize("bump,expected", [(Bump.PATCH, "1.4.3"), (Bump.MINOR, "1.5.0"),
                                           (Bump.MAJOR, "2.0.0"), (Bump.NONE, "1.4.2")])
def test_bumps(bump, expected):
    assert str(Version(1, 4, 2).bumped(bump)) == expected


def test_breaking_before_one_point_oh_bumps_minor():
    assert str(Version(0, 6, 1).bumped(Bump.MAJOR)) == "0.7.0"


def test_fixes_bump_patch_and_features_minor():
    assert bump_for(changes("fix: a", "docs: b")) is Bump.PATCH
    assert bump_for(changes("fix: a", "feat: b")) is Bump.MINOR
    assert bump_for(changes("docs: only docs")) is Bump.NONE


def test_breaking_bang_bumps_major():
    assert bump_for(changes("fix: a", "feat(api)!: remove v1")) is Bump.MAJOR
