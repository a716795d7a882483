from impasse.infra.bounded_output import BoundedOutput


def test_short_output_is_kept_whole():
    buf = BoundedOutput(head=10, tail=10)
    buf.feed(b"hello ")
    buf.feed(b"world")
    assert buf.text() == "hello world"
    assert buf.dropped == 0


def test_long_output_keeps_head_and_tail_and_counts_the_rest():
    buf = BoundedOutput(head=4, tail=4)
    for chunk in (b"abcdef", b"0123456789", b"WXYZ"):
        buf.feed(chunk)
    assert buf.dropped == 20 - 8
    text = buf.text()
    assert text.startswith("abcd")
    assert text.endswith("WXYZ")
    assert "12 bytes of output elided" in text


def test_memory_stays_bounded_over_megabytes():
    buf = BoundedOutput(head=1000, tail=1000)
    for _ in range(5000):
        buf.feed(b"x" * 10_000)
    assert len(buf.head) + len(buf.tail) == 2000
    assert buf.dropped == 50_000_000 - 2000


def test_invalid_utf8_is_replaced_not_raised():
    buf = BoundedOutput()
    buf.feed(b"ok \xff\xfe binary")
    assert "\ufffd" in buf.text()
