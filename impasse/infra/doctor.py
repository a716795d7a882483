"""`impasse doctor`: one table of what impasse needs from this machine, each red line with a fix."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from impasse.infra import engine

MIN_FREE_GIB = 5


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    value: str
    fix: str = ""


def disk_check(name: str, path: Path) -> Check:
    free = shutil.disk_usage(path if path.exists() else path.parent).free / 1024**3
    return Check(name, free >= MIN_FREE_GIB, f"{free:.1f} GiB free at {path}",
                 f"free at least {MIN_FREE_GIB} GiB (make clean; docker system prune)")


def image_checks() -> list[Check]:
    from impasse.infra import images
    api = images.client(timeout=30)
    rootfs = images.rootfs_tag()
    base = images.base_layer(rootfs).tag
    checks = [Check("base rootfs", images.exists(api, rootfs), rootfs, "make images"),
              Check("base image", images.exists(api, base), base, "make images")]
    checks.append(disk_check("disk (docker root)", images.docker_root(api)))
    return checks


def run_checks() -> list[Check]:
    checks = [Check("docker CLI", bool(shutil.which("docker")), shutil.which("docker") or "missing",
                    "apt-get install docker.io (root) or install Docker Engine")]
    status = engine.probe()
    checks.append(Check("docker engine", status.reachable,
                        status.server_version or status.detail or "not reachable",
                        "make engine (root on Debian) or start dockerd"))
    if status.reachable:
        checks.extend(image_checks())
    checks.append(disk_check("disk (temp)", Path(tempfile.gettempdir())))
    debootstrap = shutil.which("debootstrap") or (
        "/usr/sbin/debootstrap" if Path("/usr/sbin/debootstrap").exists() else "")
    checks.append(Check("debootstrap", bool(debootstrap), debootstrap or "missing",
                        "apt-get install debootstrap (needed only without a registry)"))
    return checks


def show(checks: list[Check], console: Console) -> None:
    table = Table(title="impasse doctor")
    for column in ("check", "", "value", "what to do"):
        table.add_column(column)
    for check in checks:
        mark = "[green]ok[/]" if check.ok else "[red]FAIL[/]"
        table.add_row(check.name, mark, check.value, "" if check.ok else check.fix)
    console.print(table)
