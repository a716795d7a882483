"""Against real git repositories made in a temporary folder."""

from datetime import date

from relnotes.release import plan_release
from relnotes.version import Bump, Version


def test_first_release_from_scratch(repo):
    repo.commit("feat: initial import")
    release = plan_release(repo.path, date(2026, 2, 1))
    assert release.previous is None and str(release.version) == "0.1.0"


def test_release_since_the_last_tag(repo):
    repo.commit("feat: initial import")
    repo.tag("v1.3.0")
    repo.commit("fix(parser): accept empty lines")
    repo.commit("docs: explain the cache")
    release = plan_release(repo.path, date(2026, 2, 1))
    assert release.previous == Version(1, 3, 0)
    assert release.bump is Bump.PATCH and str(release.version) == "1.3.1"
    assert "**parser:** accept empty lines" in release.notes


def test_breaking_release_from_real_history(repo):
    repo.commit("feat: initial import")
    repo.tag("v1.3.0")
    repo.commit("feat(http-client)!: requests are async now")
    repo.commit("fix: flaky retry")
    release = plan_release(repo.path, date(2026, 2, 1))
    assert str(release.version) == "2.0.0"
    assert "### ⚠ Breaking changes" in release.notes
    assert "**http-client:** requests are async now" in release.notes


def test_nothing_to_release(repo):
    repo.commit("feat: initial import")
    repo.tag("v0.2.0")
    repo.commit("docs: readme")
    assert plan_release(repo.path, date(2026, 2, 1)) is None
