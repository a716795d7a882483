import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
SERVICES = ("api", "billing", "search", "worker")
LEVEL_WEIGHTS = {"debug": 30, "info": 45, "warning": 15, "error": 8, "critical": 2}


def generate_log(path: Path, count: int, seed: int = 1) -> Path:
    """A deterministic JSON-lines log. Every tenth line is a retry: the previous event again, with
    the same id, one second later and a 'retry' note in its message."""
    rng = random.Random(seed)
    levels, weights = zip(*LEVEL_WEIGHTS.items())
    with path.open("w", encoding="utf-8") as out:
        previous = None
        for i in range(count):
            if previous and i % 10 == 9:
                record = dict(previous, ts=previous["ts"].replace("Z", ".5Z"),
                              msg=previous["msg"] + " (retry)")
            else:
                level = rng.choices(levels, weights)[0]
                record = {"id": f"evt-{i:08d}", "ts": (START + timedelta(seconds=7 * i)).isoformat()
                          .replace("+00:00", "Z"), "level": level.upper() if i % 7 == 0 else level,
                          "service": SERVICES[i % len(SERVICES)], "msg": f"{level} event {i % 50}"}
            out.write(json.dumps(record) + "\n")
            previous = record
    return path


@pytest.fixture
def small_log(tmp_path) -> Path:
    return generate_log(tmp_path / "app.log", 2000)
