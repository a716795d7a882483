"""A sandbox is handed out only once its own process runs: the engine says a container started when
its init runs, and a pids limit lowered before the init has forked the TTL sleep (flaky_sandbox's
hold) fails that fork and takes the container down."""

from pathlib import Path

import docker.errors
import pytest

from impasse.infra import sandbox
from impasse.infra.sandbox import SandboxUnavailable, own_processes, wait_for_own_process


class Container:
    """The two things the wait reads of a container: its id and the engine's `top`."""

    def __init__(self, processes: list[int] | None = None, stopped: bool = False) -> None:
        self.id, self.short_id = "c0ffee", "c0ffee"
        self.processes, self.stopped, self.tops = processes or [], stopped, 0

    def top(self) -> dict:
        self.tops += 1
        if self.stopped:
            raise docker.errors.APIError("409 Conflict: container c0ffee is not running")
        return {"Processes": [["root", str(pid)] for pid in self.processes]}


def counted_in(tmp_path: Path, counts: list[str], monkeypatch) -> Path:
    """A pids cgroup whose `pids.current` says each of `counts` in turn, one read each."""
    current = tmp_path / "pids.current"
    left = iter(counts)

    def cgroup_file(container_id, templates):
        current.write_text(next(left, counts[-1]))
        return current

    monkeypatch.setattr(sandbox, "cgroup_file", cgroup_file)
    return current


def test_the_wait_lasts_until_the_init_has_started_its_process(tmp_path, monkeypatch):
    counted_in(tmp_path, ["1\n", "1\n", "2\n"], monkeypatch)
    container = Container()
    wait_for_own_process(container)
    assert own_processes(container) == 2 and container.tops == 0  # the cgroup read, not the engine


def test_where_the_cgroup_is_not_on_this_host_the_engine_is_asked(monkeypatch):
    monkeypatch.setattr(sandbox, "cgroup_file", lambda container_id, templates: None)
    container = Container(processes=[1, 7])
    wait_for_own_process(container)
    assert container.tops == 1


def test_a_container_that_stopped_as_it_started_is_unavailable_in_words(monkeypatch):
    monkeypatch.setattr(sandbox, "cgroup_file", lambda container_id, templates: None)
    with pytest.raises(SandboxUnavailable, match="c0ffee stopped as it started: .*not running"):
        wait_for_own_process(Container(stopped=True))


def test_an_init_that_never_starts_its_process_is_unavailable_after_the_patience(tmp_path, monkeypatch):
    counted_in(tmp_path, ["1\n"], monkeypatch)
    with pytest.raises(SandboxUnavailable, match="did not start its process in 0 s"):
        wait_for_own_process(Container(), patience=0.05)
