"""Runs on disk: `runs/<run_id>/meta.json`, `steps.jsonl` (one line per step, appended, flushed and
fsynced as it happens, so a run killed at any moment leaves valid JSONL up to its last finished
step) and `result.json` (written last, atomically: its presence means the run finished)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from impasse.episode.records import Step
from impasse.episode.run_record import RunMeta, RunRecord, RunResult, TrajectoryError


def write_json_atomic(path: Path, data: dict, indent: int = 2) -> None:
    partial = path.with_suffix(path.suffix + ".part")
    with partial.open("w", encoding="utf-8") as out:
        json.dump(data, out, indent=indent, ensure_ascii=False, default=str)
        out.flush()
        os.fsync(out.fileno())
    partial.replace(path)


@dataclass
class RunDir:
    path: Path

    @property
    def meta(self) -> Path:
        return self.path / "meta.json"

    @property
    def steps(self) -> Path:
        return self.path / "steps.jsonl"

    @property
    def result(self) -> Path:
        return self.path / "result.json"

    @property
    def finished(self) -> bool:
        return self.result.exists()

    def start(self, meta: RunMeta) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        for stale in (self.steps, self.result):
            stale.unlink(missing_ok=True)
        write_json_atomic(self.meta, meta.to_dict())
        self.steps.touch()

    def amend_meta(self, **fields) -> None:
        """What is known of a run only once its agent has run (the tools it offered), added to meta.json."""
        write_json_atomic(self.meta, json.loads(self.meta.read_text(encoding="utf-8")) | fields)

    def append(self, step: Step) -> None:
        line = json.dumps(step.to_dict(), ensure_ascii=False, default=str)
        with self.steps.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
            out.flush()
            os.fsync(out.fileno())

    def finish(self, result: RunResult) -> None:
        write_json_atomic(self.result, result.to_dict())


def read_utf8(path: Path, error: type[Exception] = TrajectoryError) -> str:
    """A file's text, or `error` naming the file when it is not UTF-8. A leading byte-order mark is
    dropped: Windows tools (PowerShell's Out-File, some session exporters) write one."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text (a binary file?)") from None


def read_steps(path: Path) -> tuple[list[dict], list[str]]:
    """Steps from steps.jsonl, and a problem per line that could not be read. A torn last line
    (a run killed mid-write) is reported, not fatal."""
    text = read_utf8(path)
    try:  # the common case, a whole file of good lines, parsed in one go (JSON strings hold no raw newline)
        return json.loads("[" + text.strip().replace("\n", ",") + "]"), []
    except json.JSONDecodeError:
        pass
    steps, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            steps.append(json.loads(line))
        except json.JSONDecodeError as err:
            problems.append(f"{path}:{number}: invalid JSON ({err.msg})")
    return steps, problems


def read_json_file(path: Path) -> dict:
    try:
        data = json.loads(read_utf8(path))
    except json.JSONDecodeError as err:
        raise TrajectoryError(f"{path}:{err.lineno}: invalid JSON ({err.msg})") from None
    if not isinstance(data, dict):
        raise TrajectoryError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def read_run(path: Path) -> RunRecord:
    """The run folder, read once, into the dataclasses that wrote it."""
    run = RunDir(path)
    if not run.meta.exists():
        raise TrajectoryError(f"{run.meta}: missing (not an impasse run folder)")
    try:
        meta = RunMeta.from_dict(read_json_file(run.meta))
        steps, problems = read_steps(run.steps) if run.steps.exists() else ([], [f"{run.steps}: missing"])
        result = RunResult.from_dict({"run_id": meta.run_id} | read_json_file(run.result)) \
            if run.result.exists() else None
        return RunRecord(str(path), meta, steps, result, problems)
    except (TypeError, KeyError, AttributeError) as err:
        raise TrajectoryError(f"{path}: not a run folder impasse can read ({type(err).__name__}: {err})") from None
    except OSError as err:
        raise TrajectoryError(f"{err.filename or path}: cannot be read ({err.strerror})") from None
