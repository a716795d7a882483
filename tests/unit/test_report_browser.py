"""`impasse report` on foreign logs, opened in a real browser (headless Chromium): the page renders
the verdict of every session, draws something, and asks the network for nothing. `make test`
installs Chromium where it can (Debian's package, as root); elsewhere this skips and says why."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from impasse.analysis.incident_report import write_session_report
from tests.unit.test_incidents import claude_store, codex_store
from tests.unit.test_session_stores import openhands_events, openhands_session

BROWSER = next((found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))),
               None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no headless Chromium on this machine "
                                                        "(make test installs Debian's chromium as root)")
# Chromium's own background traffic (updates, sync, accounts) is switched off where it can be; what
# remains is told from the page's requests by whose behalf it was made (network_isolation_key).
QUIET = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync", "--disable-default-apps",
         "--disable-background-networking", "--disable-component-update", "--disable-domain-reliability")


def browse(page: Path, work: Path, *extra: str) -> tuple[str, list[str]]:
    """(the DOM after the page rendered, the URLs the page itself asked the network for)."""
    netlog = work / f"{page.stem}.netlog.json"
    done = subprocess.run([BROWSER, *QUIET, f"--user-data-dir={work / 'profile'}", f"--log-net-log={netlog}",
                           *extra, page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, page_requests(netlog)


def page_requests(netlog: Path) -> list[str]:
    events = json.loads(netlog.read_text())["events"]
    return sorted({p["url"] for e in events if (p := e.get("params") or {}).get("url")
                   and str(p.get("network_isolation_key", "")).startswith("file://")
                   and not p["url"].startswith("file:")})


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    logs = tmp_path_factory.mktemp("logs")
    claude_store(logs)
    codex_store(logs)
    openhands_session(logs, "5f0c2a", openhands_events())
    page = logs.parent / "report.html"
    write_session_report([logs], page, None)
    return page


def test_the_page_renders_every_sessions_verdict(report, tmp_path):
    dom, _ = browse(report, tmp_path, "--dump-dom")
    assert "<h1>Sessions and their walls</h1>" in dom
    for session in ("a1.jsonl", "b2.jsonl", "rollout-2026-02-01T09-00-00-r1.jsonl", "5f0c2a"):
        assert f"<td>{session}</td>" in dom
    assert "escalated to the human" in dom and "claimed done" in dom and "jq: command not found" in dom
    assert dom.count("<svg") == 5  # a strip per session, drawn inline


def test_the_page_asks_the_network_for_nothing(report, tmp_path):
    _, requested = browse(report, tmp_path, "--dump-dom")
    assert requested == []
    linked = tmp_path / "linked.html"  # the check itself sees a page that does fetch
    linked.write_text("<html><body><img src='http://impasse-report.invalid/strip.png'>x</body></html>")
    assert browse(linked, tmp_path, "--dump-dom")[1] == ["http://impasse-report.invalid/strip.png"]


def test_the_page_draws_a_screenshot_of_substance(report, tmp_path):
    shot = tmp_path / "shot.png"
    browse(report, tmp_path, f"--screenshot={shot}", "--window-size=1400,900")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a blank page of this size is ~5 kB
