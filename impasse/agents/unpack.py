"""A checked npm tarball's files written into an agent's folder. Either only the files agents.lock
pins, each hashed as it is written and checked against its pin, or (a package kept whole, `keep: all`)
every regular file under the package's root: the tarball's pinned digest is then the check of them
all, and the pinned ones (the entry) are checked again as they are written. A symlink, a hard link,
a device or a name that climbs out of the root is refused, not followed: nothing is written outside
the folder. Each file is readable by the agent user; it is executable if it was in the tarball or the
spec lists it (`package.executable`)."""

from __future__ import annotations

import hashlib
import posixpath
import tarfile
from pathlib import Path
from typing import IO

from impasse.agents.pins import AgentSpec, PinnedFile

BLOCK = 1 << 20


class AgentInstallError(RuntimeError):
    """The agent could not be made ready: npm failed, a checksum did not match, a pin is missing."""


def mismatch(spec: AgentSpec, what: str, pinned: str, found: str) -> AgentInstallError:
    return AgentInstallError(f"{spec.label}: {what}: sha256 mismatch: pinned {pinned}, found {found}. "
                             "It is not the file agents.lock pins; nothing was kept.")


def extract_pinned(spec: AgentSpec, tarball: Path, root: str, files: tuple[PinnedFile, ...], staging: Path) -> None:
    """Only the pinned files, each hashed as it is written and checked against its pin."""
    with tarfile.open(tarball) as tar:
        for pinned in files:
            member_name = f"{root}/{pinned.path}"
            if escapes(pinned.path):
                raise AgentInstallError(f"{spec.label}: agents.lock pins {pinned.path}, which climbs out of the "
                                        "package: refused, nothing was kept")
            try:
                member = tar.getmember(member_name)
            except KeyError:
                raise AgentInstallError(f"{spec.label}: the package holds no {member_name}") from None
            if not member.isfile():
                raise AgentInstallError(f"{spec.label}: {member_name} in the package is not a regular file")
            write_checked(spec, tar, member, staging / pinned.path, pinned)


def extract_whole(spec: AgentSpec, tarball: Path, root: str, pinned: tuple[PinnedFile, ...], staging: Path,
                  reserved: tuple[str, ...] = ()) -> list[str]:
    """Every regular file under root, at its path relative to it; the pinned ones checked as they are
    written, each of them required. `reserved`: names at the folder's top that are not the package's
    (the marker, harness/'s scripts, the runtime's folder): a package file there is refused.
    Returns the paths written."""
    pins = {f.path: f for f in pinned}
    written: list[str] = []
    with tarfile.open(tarball) as tar:
        for member in tar:
            if member.name.startswith("/") or ".." in member.name.split("/"):
                raise AgentInstallError(f"{spec.label}: {member.name} in the package climbs out of it: refused, "
                                        "nothing was kept")
            name = posixpath.normpath(member.name)
            if not name.startswith(f"{root}/") or member.isdir():
                continue  # beside the root (npm's tarballs hold only package/), or a folder (made as needed)
            relative = name.removeprefix(f"{root}/")
            if not member.isfile():
                raise AgentInstallError(f"{spec.label}: {member.name} in the package is a link or a device, not a "
                                        "regular file: refused, nothing was kept")
            if relative.split("/")[0] in reserved:
                raise AgentInstallError(f"{spec.label}: {member.name} in the package would stand where impasse puts "
                                        f"its own {relative.split('/')[0]}: refused, nothing was kept")
            write_checked(spec, tar, member, staging / relative, pins.get(relative))
            written.append(relative)
    if missing := sorted(set(pins) - set(written)):
        raise AgentInstallError(f"{spec.label}: the package holds no {root}/{missing[0]}")
    return written


def escapes(path: str) -> bool:
    return path.startswith("/") or ".." in path.split("/")


def write_checked(spec: AgentSpec, tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path,
                  pinned: PinnedFile | None) -> None:
    source = tar.extractfile(member)
    if source is None:
        raise AgentInstallError(f"{spec.label}: {member.name} in the package is not a regular file")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with source, dest.open("wb") as out:
            digest, size = copy_hashed(source, out)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        raise AgentInstallError(f"{spec.label}: {member.name} in the package collides with another of its "
                                "files: refused, nothing was kept") from None
    if pinned is not None and digest != pinned.sha256:
        raise mismatch(spec, pinned.path, pinned.sha256, digest)
    if pinned is not None and size != pinned.size:
        raise AgentInstallError(f"{spec.label}: {pinned.path}: {size} bytes, pinned {pinned.size}; nothing was kept.")
    dest.chmod(0o755 if member.mode & 0o111 else 0o644)


def make_executable(spec: AgentSpec, folder: Path, paths: tuple[str, ...]) -> None:
    """The files the spec lists as executable (`package.executable`), whatever their mode in the tarball."""
    for path in paths:
        target = folder / path
        if escapes(path) or not target.is_file() or target.is_symlink():
            raise AgentInstallError(f"{spec.label}: package.executable names {path}, which is not a file kept "
                                    "from the package (keep: all, or pin it in agents.lock)")
        target.chmod(0o755)


def copy_hashed(source: IO[bytes], out: IO[bytes]) -> tuple[str, int]:
    """Copy in blocks, hashing on the way: one pass over a 400 MB binary, not two."""
    digest, size = hashlib.sha256(), 0
    while block := source.read(BLOCK):
        digest.update(block)
        out.write(block)
        size += len(block)
    return digest.hexdigest(), size
