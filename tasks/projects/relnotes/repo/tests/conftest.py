import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
           "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com",
           "GIT_AUTHOR_DATE": "2026-02-01T12:00:00Z", "GIT_COMMITTER_DATE": "2026-02-01T12:00:00Z",
           "GIT_CONFIG_GLOBAL": "/dev/null"}


class Repo:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.run("init", "-q", "-b", "main")

    def run(self, *args: str) -> str:
        env = {**os.environ, **GIT_ENV}
        return subprocess.run(["git", "-C", str(self.path), *args], check=True, env=env,
                              capture_output=True, text=True).stdout

    def commit(self, message: str) -> str:
        note = self.path / "CHANGES.txt"
        with note.open("a") as out:
            out.write(message.splitlines()[0] + "\n")
        self.run("add", "CHANGES.txt")
        self.run("commit", "-q", "-m", message)
        return self.run("rev-parse", "HEAD").strip()

    def tag(self, name: str) -> None:
        self.run("tag", name)


@pytest.fixture
def repo(tmp_path) -> Repo:
    return Repo(tmp_path / "project")

