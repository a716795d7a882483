"""Layered images with content-hash tags: rootfs → base → task → condition (like SWE-bench's
base → env → instance). An unchanged input gives the same tag, and an existing tag is a cache hit.

Docker applies a tag only when a build or import has finished, and the rootfs is made in a private
temporary folder, so an interrupted build never leaves a half-built image under a final tag.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import docker
import docker.errors

from impasse.hashing import hash_text, hash_tree
from impasse.infra import engine
from impasse.locks import file_lock
from impasse.paths import DOCKERFILES, HARNESS

REGISTRY_BASE = "python:3.12-slim-bookworm"
DEBIAN_SUITE = "bookworm"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
ROOTFS_REPO = "impasse-rootfs"
BASE_REPO = "impasse-base"
ROOTFS_MIN_FREE = 2 * 1024**3
LAYER_MIN_FREE = 512 * 1024**2
LABELS = {"impasse": "1"}

Log = Callable[[str], None]


class ImageBuildError(RuntimeError):
    """A build failed; the message names the image and carries the end of the build log."""


class DiskTooSmall(ImageBuildError):
    pass


@dataclass(frozen=True)
class Layer:
    """One image built from a Dockerfile on top of a parent image, with a context assembled from files."""

    repo: str
    dockerfile: Path
    parent: str  # parent image reference, passed as build arg
    files: dict[str, Path] = field(default_factory=dict)  # context name -> source file or folder
    parent_arg: str = "BASE"
    buildargs: dict[str, str] = field(default_factory=dict)
    inline: dict[str, str] = field(default_factory=dict)  # context-relative name -> file content

    @property
    def tag(self) -> str:
        content = hash_tree([self.dockerfile, *(self.files[k] for k in sorted(self.files))],
                            self.parent, *sorted(self.files), str(sorted(self.buildargs.items())),
                            str(sorted(self.inline.items())))
        return f"{self.repo}:{content}"


def client(timeout: int = 600, pool: int = 16) -> docker.DockerClient:
    """One client shared by every thread (docker-py pools its HTTP connections)."""
    api = docker.from_env(timeout=timeout, max_pool_size=pool)
    if api.api.base_url.startswith("http+docker://"):
        # A local socket has no proxy: don't let requests read the environment's proxy settings
        # on every call (a fifth of the harness's CPU per exec, at dozens of episodes in flight).
        api.api.trust_env = False
    return api


def exists(api: docker.DockerClient, ref: str) -> bool:
    try:
        api.images.get(ref)
        return True
    except docker.errors.ImageNotFound:
        return False


def require_free_space(path: Path, needed: int, what: str) -> None:
    """Refuse before starting, rather than leaving a half-made rootfs on a full disk."""
    path = path if path.exists() else path.parent
    free = shutil.disk_usage(path).free
    if free < needed:
        raise DiskTooSmall(
            f"not enough disk to build {what}: {free / 1024**3:.1f} GiB free at {path}, "
            f"{needed / 1024**3:.1f} GiB needed. Free some space (e.g. `make clean`, "
            f"`docker system prune`) and run again.")


def docker_root(api: docker.DockerClient) -> Path:
    return Path(api.info().get("DockerRootDir", "/var/lib/docker"))


def rootfs_packages() -> list[str]:
    lines = (DOCKERFILES / "rootfs-packages.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]


def rootfs_tag() -> str:
    return f"{ROOTFS_REPO}:{hash_text(DEBIAN_SUITE, DEBIAN_MIRROR, *rootfs_packages())}"


def try_registry_base(api: docker.DockerClient, log: Log) -> str | None:
    """The normal way: pull the registry base. Returns None where no registry is reachable."""
    if exists(api, REGISTRY_BASE):
        return REGISTRY_BASE
    try:
        api.images.pull(REGISTRY_BASE)
        log(f"pulled {REGISTRY_BASE}")
        return REGISTRY_BASE
    except docker.errors.APIError as err:
        log(f"no registry ({str(err).splitlines()[0][:120]}); building the rootfs with debootstrap")
        return None


def build_debootstrap_rootfs(api: docker.DockerClient, tag: str, log: Log) -> str:
    """Debian rootfs from the package mirror, imported as an image. Cold: about a minute here."""
    debootstrap = engine.ensure_debootstrap(log)
    scratch_parent = Path(tempfile.gettempdir())
    require_free_space(scratch_parent, ROOTFS_MIN_FREE, "the base rootfs")
    require_free_space(docker_root(api), ROOTFS_MIN_FREE, "the base rootfs")
    scratch = Path(tempfile.mkdtemp(prefix="impasse-rootfs-", dir=scratch_parent))
    try:
        target = scratch / "rootfs"
        log(f"debootstrap {DEBIAN_SUITE} into {target} ...")
        run_logged([debootstrap, "--variant=minbase", f"--include={','.join(rootfs_packages())}",
                    DEBIAN_SUITE, str(target), DEBIAN_MIRROR], f"debootstrap for {tag}")
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for item in (target / junk).glob("*"):
                if item.is_file():
                    item.unlink()
        log(f"docker import {tag} ...")
        tar = subprocess.Popen(["tar", "-C", str(target), "--numeric-owner", "-c", "."],
                               stdout=subprocess.PIPE)
        run_logged(["docker", "import", "--change", 'CMD ["/bin/bash"]',
                    "--change", "LABEL impasse=1", "-", tag], f"docker import of {tag}",
                   stdin=tar.stdout)
        if tar.wait() != 0:
            raise ImageBuildError(f"tar of the rootfs for {tag} failed")
        return tag
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run_logged(argv: list[str], what: str, stdin=None) -> None:
    done = subprocess.run(argv, stdin=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise ImageBuildError(f"{what} failed (exit {done.returncode}):\n{tail}")


def ensure_rootfs(api: docker.DockerClient, log: Log) -> str:
    tag = rootfs_tag()
    if exists(api, tag):
        return tag
    with build_lock(tag):
        if exists(api, tag):
            return tag
        return try_registry_base(api, log) or build_debootstrap_rootfs(api, tag, log)


def base_layer(rootfs: str) -> Layer:
    return Layer(repo=BASE_REPO, dockerfile=DOCKERFILES / "base.Dockerfile", parent=rootfs,
                 parent_arg="ROOTFS",
                 files={"base-setup.sh": DOCKERFILES / "base-setup.sh",
                        "make-pki.sh": DOCKERFILES / "make-pki.sh",
                        "rootfs-packages.txt": DOCKERFILES / "rootfs-packages.txt",
                        **in_container_scripts()})


# Scripts that ride the external agents' read-only mount (agents/install.py), not the base: a change
# to them must not rebuild every image.
AGENT_MOUNT_SCRIPTS = ("impasse_mcp.py", "model_forwarder.py")


def in_container_scripts() -> dict[str, Path]:
    """The harness scripts that run inside containers (harness/*.py): only they go into the base, so
    editing an example matrix beside them does not rebuild every image."""
    return {f"harness/{p.name}": p for p in sorted(HARNESS.glob("*.py")) if p.name not in AGENT_MOUNT_SCRIPTS}


def build_lock(tag: str):
    """One build of a tag at a time on this host: two processes building the same layer at once
    make the engine's builder trip over its own intermediate containers."""
    return file_lock(Path(tempfile.gettempdir()) / f"impasse-build-{tag.replace(':', '-').replace('/', '-')}.lock")


def ensure_layer(api: docker.DockerClient, layer: Layer, log: Log) -> str:
    """Build the layer unless its content-hash tag exists already."""
    tag = layer.tag
    if exists(api, tag):
        return tag
    with build_lock(tag):
        if exists(api, tag):  # built by another process while this one waited
            return tag
        return build_layer(api, layer, tag, log)


def build_layer(api: docker.DockerClient, layer: Layer, tag: str, log: Log) -> str:
    require_free_space(docker_root(api), LAYER_MIN_FREE, tag)
    log(f"building {tag} ...")
    with tempfile.TemporaryDirectory(prefix="impasse-ctx-") as ctx:
        assemble_context(Path(ctx), layer)
        stream_build(api, Path(ctx), layer, tag)
    return tag


def assemble_context(ctx: Path, layer: Layer) -> None:
    shutil.copy(layer.dockerfile, ctx / "Dockerfile")
    for name, src in layer.files.items():
        dest = ctx / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        else:
            shutil.copy(src, dest)
    for name, text in layer.inline.items():
        (ctx / name).write_text(text)


def stream_build(api: docker.DockerClient, ctx: Path, layer: Layer, tag: str) -> None:
    lines: list[str] = []
    stream = api.api.build(path=str(ctx), tag=tag, rm=True, forcerm=True, decode=True,
                           network_mode="none", labels=LABELS,
                           buildargs={layer.parent_arg: layer.parent, **layer.buildargs})
    for chunk in stream:
        if "stream" in chunk:
            lines.extend(chunk["stream"].splitlines())
        if "error" in chunk:
            tail = "\n".join(lines[-25:])
            raise ImageBuildError(f"building {tag} failed: {chunk['error'].strip()}\n{tail}")


def ensure_base(api: docker.DockerClient, log: Log = print) -> str:
    return ensure_layer(api, base_layer(ensure_rootfs(api, log)), log)
