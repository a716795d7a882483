from pathlib import Path

import pytest

from impasse.hashing import hash_tree
from impasse.infra import images


def test_same_content_same_hash_and_any_change_changes_it(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.txt").write_text("one")
    first = hash_tree([tmp_path / "a"])
    assert hash_tree([tmp_path / "a"]) == first
    (tmp_path / "a" / "f.txt").write_text("two")
    assert hash_tree([tmp_path / "a"]) != first


def test_caches_do_not_change_the_hash(tmp_path: Path):
    (tmp_path / "f.py").write_text("x = 1\n")
    before = hash_tree([tmp_path])
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "f.pyc").write_bytes(b"junk")
    assert hash_tree([tmp_path]) == before


def test_layer_tag_depends_on_parent_and_buildargs(tmp_path: Path):
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text("FROM x\n")
    layer = images.Layer(repo="r", dockerfile=dockerfile, files={}, parent="p:1")
    assert layer.tag == images.Layer(repo="r", dockerfile=dockerfile, files={}, parent="p:1").tag
    assert layer.tag != images.Layer(repo="r", dockerfile=dockerfile, files={}, parent="p:2").tag
    with_arg = images.Layer(repo="r", dockerfile=dockerfile, files={}, parent="p:1",
                            buildargs={"A": "1"})
    assert with_arg.tag != layer.tag


def test_too_small_disk_is_refused_before_any_work(tmp_path: Path):
    with pytest.raises(images.DiskTooSmall) as err:
        images.require_free_space(tmp_path, 10**18, "the base rootfs")
    message = str(err.value)
    assert "not enough disk to build the base rootfs" in message
    assert "GiB free" in message
