"""The jq pre-filter, run through the real jq binary."""

import json

import pytest

from logpipe.jq import JqError, build_program, jq_version, level_filter, run_jq


def write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


LEVELS = [{"id": str(i), "level": lvl, "service": svc}
          for i, (lvl, svc) in enumerate([("debug", "api"), ("INFO", "api"), ("warning", "db"),
                                          ("Error", "api"), ("critical", "db")])]


def test_jq_is_available():
    assert jq_version().startswith("jq-")


def test_min_level_includes_the_threshold(tmp_path):
    source = write_lines(tmp_path / "l.log", LEVELS)
    kept = [json.loads(line)["id"] for line in run_jq(level_filter("warning"), source)]
    assert kept == ["2", "3", "4"]


def test_levels_match_whatever_their_case(tmp_path):
    source = write_lines(tmp_path / "l.log", LEVELS)
    assert len(run_jq(level_filter("info"), source)) == 4


def test_service_filter_combines_with_level(tmp_path):
    source = write_lines(tmp_path / "l.log", LEVELS)
    kept = run_jq(build_program("debug", ["db"]), source)
    assert [json.loads(line)["id"] for line in kept] == ["2", "4"]


def test_unknown_level_is_refused():
    with pytest.raises(ValueError):
        level_filter("loud")


def test_jq_errors_are_reported(tmp_path):
    source = write_lines(tmp_path / "l.log", LEVELS)
    with pytest.raises(JqError):
        run_jq("select(", source)
