"""The wheel store: checked wheels kept for the next fetch, each checked again on every use."""

import hashlib

from impasse.agents.install_wheels import from_store, keep_in_store
from impasse.agents.pins import PinnedFile


def pinned(name: str, data: bytes) -> PinnedFile:
    return PinnedFile(name, hashlib.sha256(data).hexdigest(), len(data))


def test_a_kept_wheel_is_taken_and_a_missing_or_altered_one_is_fetched(tmp_path):
    store, download, fetched = tmp_path / "store", tmp_path / "download", tmp_path / "fetched"
    download.mkdir()
    fetched.mkdir()
    good, altered, absent = (pinned(f"{n}-1.0-py3-none-any.whl", n.encode() * 100)
                             for n in ("good", "altered", "absent"))
    for wheel in (good, altered):
        (fetched / wheel.path).write_bytes(wheel.path.split("-")[0].encode() * 100)
    keep_in_store(store, [good, altered], fetched)
    (store / altered.path).write_bytes(b"x" * altered.size)  # same size, other bytes
    missing = from_store(store, (good, altered, absent), download)
    assert missing == [altered, absent]
    assert (download / good.path).read_bytes() == b"good" * 100
    assert sorted(p.name for p in download.iterdir()) == [good.path]


def test_keeping_leaves_no_part_file(tmp_path):
    fetched = tmp_path / "fetched"
    fetched.mkdir()
    wheel = pinned("w-1.0-py3-none-any.whl", b"w" * 10)
    (fetched / wheel.path).write_bytes(b"w" * 10)
    keep_in_store(tmp_path / "store", [wheel], fetched)
    assert [p.name for p in (tmp_path / "store").iterdir()] == [wheel.path]
