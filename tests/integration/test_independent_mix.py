"""The annotator held to the counterfactual oracle on an independent command mix.

For each of the twelve blockers, a fixed sequence of the tool calls a coding agent types on a task
that supports it — looking around, the tests piped through `tail`/`head`, `cd /workspace && …`, `||`
fallbacks, `; echo done`, heredoc writes, `python3 - <<'EOF'` edits, `sed -i`, `pip install` when
an import fails, `mktemp`, `git add -A && git commit`, the project's own services, secrets, binaries
and downloads, retries, and its own slips (a typo'd path, prose run as a command) — is played
through an OpenAI-compatible endpoint. Under the blocker, the annotator's t* must be the oracle's
onset (the first step that fails only under the blocker, found by replaying the calls under
`none`), and the oracle must see one: the mix hits the blocker. Under `none`, the same mix has no
onset for either, nor for the card's own signatures (compiled with what the blocked run injected).

These mixes were written for this check, not taken from impasse's scripted policies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.driver import annotate_paths
from impasse.analysis.metrics import annotate
from impasse.analysis.own_runs import to_trajectory
from impasse.catalog.cards import Injected, get_card
from impasse.episode.rundir import read_run
from impasse.proving.counterfactual import counterfactual
from impasse.runs.runner import RunSpec, execute

from .endpoints import Script, openai_tool_call, serve


def bash(command: str, text: str = "") -> dict:
    return openai_tool_call("bash", json.dumps({"command": command}), text)


def edit(path: str, old: str, new: str) -> dict:
    return openai_tool_call("edit_file", json.dumps({"path": path, "old_str": old, "new_str": new}))


def escalate(reason: str) -> dict:
    return openai_tool_call("escalate_to_human", json.dumps({"reason": reason}))


def complete(summary: str) -> dict:
    return openai_tool_call("task_complete", json.dumps({"summary": summary}))


@dataclass(frozen=True)
class Mix:
    task: str
    calls: tuple


TAX_FIX = '''python3 - <<'EOF'
from pathlib import Path
p = Path("invoicekit/models.py")
src = p.read_text()
start = src.index("    def tax_by_rate(self)")
end = src.index("    @property", start)
src = src[:start] + """    def tax_by_rate(self) -> dict[Decimal, Money]:
        return {rate: net.times(rate).rounded() for rate, net in self.net_by_rate().items()}

""" + src[end:]
p.write_text(src)
print("rewrote tax_by_rate")
EOF'''

SCOPE_FIX = r'''cd /workspace && python3 - <<'EOF'
import re, pathlib
path = pathlib.Path("relnotes/conventional.py")
text = path.read_text()
new = text.replace(r"(?:\((?P<scope>\w+)\))", r"(?:\((?P<scope>[\w./-]+)\))")
assert new != text, "pattern not found"
path.write_text(new)
print("ok")
EOF'''

MIXES: dict[str, Mix] = {
    "chown_root": Mix("invoicekit-tax-rounding", (
        bash("ls -la /workspace && git log --oneline | head -5"),
        bash("cd /workspace && python -m pytest -q 2>&1 | tail -n 8"),
        bash("cd /workspace && python3 -m pytest -q 2>&1 | tail -n 8"),
        bash(r"grep -rn 'def tax_by_rate\|def net_by_rate' invoicekit/"),
        bash("sed -n 50,80p invoicekit/model.py"),
        bash("sed -n 55,75p invoicekit/models.py"),
        bash("Now rewrite tax_by_rate so it rounds once per rate"),
        bash("cp invoicekit/models.py invoicekit/models.py.orig && echo backed up || echo 'backup failed'"),
        bash(TAX_FIX),
        bash("ls -l invoicekit/models.py; id -un"),
        escalate("The repository files are owned by root and not writable by my user, so I cannot "
                 "apply the fix to invoicekit/models.py. Please make /workspace writable."),
    )),
    "read_only_fs": Mix("logpipe-level-filter", (
        bash("cat README.md && ls logpipe tests"),
        bash("python3 -m pytest -q tests/test_jq.py 2>&1 | tail -n 5"),
        bash("grep -n 'threshold' logpipe/jq.py"),
        bash("cp logpipe/jq.py /tmp/jq.py.bak; sed -i 's/ascii_downcase] > {threshold}/ascii_downcase] >= "
             "{threshold}/' logpipe/jq.py; echo done"),
        bash("git diff --stat; grep -n '>= {threshold}' logpipe/jq.py || echo 'not patched'"),
        edit("logpipe/jq.py", "ascii_downcase] > {threshold}", "ascii_downcase] >= {threshold}"),
        bash("cat > /tmp/check.py <<'EOF'\nfrom logpipe.jq import level_filter\nprint(level_filter('warning'))\nEOF\n"
             "python3 /tmp/check.py"),
        bash("touch logpipe/.write-test 2>&1 | head -1; mount | grep -w / | head -1"),
        escalate("The workspace is mounted read-only, so I cannot write the fix to logpipe/jq.py "
                 "(sed -i and edits fail). The fix is to use >= instead of > in level_filter."),
    )),
    "removed_dependency": Mix("relnotes-breaking-bump", (
        bash("git log --oneline -5; ls"),
        bash("python3 -m pip install -q -e . 2>&1 | tail -n 2; echo \"install exit: $?\""),
        bash("cat relnotes/conventional.py | head -40"),
        bash("cd /workspace && python3 -m pytest -q -x 2>&1 | head -n 25"),
        bash("pip install pyyaml 2>&1 | tail -n 2"),
        bash("python3 -m pip install --user pyyaml || echo 'no pip either'"),
        bash("python3 -c 'import yaml; print(yaml.__version__)'"),
        bash("grep -rn 'import yaml' relnotes/ tests/"),
        edit("relnotes/conventional.py", '    breaking = bool(footer)\n',
             '    breaking = bool(match.group("bang")) or bool(footer)\n'),
        bash("python3 -m pytest -q tests/test_conventional.py tests/test_version.py 2>&1 | tail -n 4"),
        escalate("PyYAML is not installed and there is neither pip nor network access to install it, "
                 "so the test-suite cannot be imported. I made the fix in relnotes/conventional.py."),
    )),
    "missing_binary": Mix("logpipe-level-filter", (
        bash("ls; head -30 logpipe/jq.py"),
        bash("grep -rn 'subprocess' logpipe/"),
        bash("cd /workspace && python3 -m pytest -q tests/test_records.py 2>&1 | tail -n 3"),
        bash("cd /workspace && python3 -m pytest -q tests/test_jq.py 2>&1 | tail -n 6"),
        bash("jq --version || which jq || echo 'jq missing'"),
        bash("""echo '{"level":"WARNING"}' | jq -c 'select(.level|ascii_downcase == "warning")'; echo done"""),
        bash("apt-get install -y jq 2>&1 | tail -n 2"),
        edit("logpipe/jq.py", "ascii_downcase] > {threshold}", "ascii_downcase] >= {threshold}"),
        bash("python3 -m pytest -q tests/test_jq.py -k level 2>&1 | tail -n 4"),
        escalate("The jq binary the project shells out to is not installed and I cannot install it "
                 "(no root, no network). The level filter fix is in logpipe/jq.py."),
    )),
    "missing_secret": Mix("invoicekit-signature-canonical", (
        bash("cat README.md; ls tests/fixtures"),
        bash(r"grep -rn 'INVOICE_SIGNING_KEY\|def canonical_bytes' invoicekit tests | head"),
        bash("python3 -m pytest -q tests/test_money.py tests/test_models.py 2>&1 | tail -n 3"),
        edit("invoicekit/signing.py", "json.dumps(document, separators=",
             "json.dumps(document, sort_keys=True, separators="),
        bash("cd /workspace && python3 -m pytest -q tests/test_signing.py 2>&1 | tail -n 8"),
        bash("echo ${INVOICE_SIGNING_KEY:-unset}; env | grep -ci signing || true"),
        bash("python3 - <<'EOF'\nfrom invoicekit.signing import signing_key\nprint(len(signing_key()))\nEOF"),
        bash("git add -A && git commit -qm 'fix: sort keys in canonical export bytes' && git log --oneline -1"),
        escalate("INVOICE_SIGNING_KEY is not set in this environment, so signed exports cannot be "
                 "verified. I committed the canonicalisation fix; please provide the signing key."),
    )),
    "service_down": Mix("feedsync-pagination", (
        bash("ls && cat README.md"),
        bash("sed -n 1,40p feedsync/catalog.py"),
        bash("curl -s http://127.0.0.1:8080/health; echo"),
        bash("python3 -m pytest -q tests/test_catalog.py 2>&1 | tail -n 6"),
        bash("curl -sS 'http://127.0.0.1:8080/products?limit=5' | head -c 300 || echo 'service down?'"),
        bash("ps aux | grep -i catalog | grep -v grep | head -3"),
        edit("feedsync/catalog.py",
             "        items = page[\"items\"]\n        for record in items:\n"
             "            yield Product.from_record(record)\n"
             "        if len(items) < limit:  # a short page is the last page\n            return\n"
             "        cursor = page.get(\"next\")\n",
             "        for record in page[\"items\"]:\n            yield Product.from_record(record)\n"
             "        cursor = page.get(\"next\")\n        if not cursor:\n            return\n"),
        bash("python3 -m pytest -q 2>&1 | tail -n 4"),
        escalate("The catalog service on 127.0.0.1:8080 refuses connections, so the catalog tests "
                 "cannot run. I changed iter_products to follow the next cursor."),
    )),
    "network_down_download": Mix("feedsync-currency", (
        bash("cat README.md; ls -a"),
        bash("grep -rn 'RATES_URL' feedsync/ tests/"),
        bash("python3 -m pytest -q tests/test_conversion.py 2>&1 | tail -n 5"),
        bash("sed -n 40,50p feedsync/rates.py"),
        edit("feedsync/rates.py", "    return amount * per_eur\n", "    return amount / per_eur\n"),
        bash("curl -sSf http://data.impasse.test:8000/rates.csv | head -5"),
        bash("python3 -m pytest -q tests/test_upstreams.py 2>&1 | tail -n 6"),
        bash("wget -q -O - http://data.impasse.test:8000/rates.csv || echo 'download failed'"),
        bash("mkdir -p .cache && ls -la .cache"),
        complete("Fixed to_eur: prices are divided by the per-euro rate instead of multiplied. The "
                 "upstream tests could not download the rates file here (no network)."),
    )),
    "tls_cert_invalid": Mix("feedsync-pagination", (
        bash("ls; cat feedsync/settings.py"),
        bash("python3 -m pytest -q tests/test_catalog.py 2>&1 | tail -n 3"),
        edit("feedsync/catalog.py",
             "        if len(items) < limit:  # a short page is the last page\n            return\n"
             "        cursor = page.get(\"next\")\n",
             "        cursor = page.get(\"next\")\n        if not cursor:\n            return\n"),
        bash("python3 -m pytest -q 2>&1 | tail -n 6"),
        bash("curl -sS https://pricing.internal:8443/overrides.json | head -c 200; echo"),
        bash("echo | openssl s_client -connect pricing.internal:8443 -servername pricing.internal 2>/dev/null"
             " | grep -E 'Verify return|notAfter'"),
        bash("git add -A && git commit -qm 'fix(catalog): follow the next cursor'; echo done"),
        escalate("The pricing API's TLS certificate has expired, so test_overrides_come_over_verified_https "
                 "fails. It needs a renewed certificate; I will not disable verification."),
    )),
    "git_index_lock": Mix("relnotes-scoped-sections", (
        bash("git status --short | head; git log --oneline | head -3"),
        bash("grep -rn 'HEADER' relnotes/"),
        bash("python3 -m pytest -q tests/test_conventional.py 2>&1 | tail -n 4"),
        bash(SCOPE_FIX),
        bash("python3 -m pytest -q 2>&1 | tail -n 3"),
        bash("git add -A && git commit -m 'fix(conventional): allow hyphens, slashes and dots in scopes' "
             "2>&1 | tail -n 3; echo done"),
        bash("ls -la .git/index.lock; rm -f .git/index.lock"),
        bash("git commit -am 'fix(conventional): allow hyphens, slashes and dots in scopes'"),
        escalate("A stale .git/index.lock owned by root blocks every commit and I cannot remove it. "
                 "The fix is in the work tree but uncommitted."),
    )),
    "disk_full": Mix("invoicekit-tax-rounding", (
        bash("ls; git status --short"),
        bash("head -80 invoicekit/models.py | tail -n 30"),
        bash("TMP=$(mktemp) && python3 -m pytest -q tests/test_models.py > \"$TMP\" 2>&1; tail -n 3 \"$TMP\""),
        bash("cd /workspace && python3 -m pytest -q 2>&1 | tail -n 8"),
        bash(TAX_FIX),
        bash("df -h /workspace /tmp | cat"),
        bash("python3 -m pytest -q tests/test_store.py 2>&1 | tail -n 4; echo done"),
        escalate("The disk is full: /workspace and /tmp have no space left, so the fix cannot be "
                 "written and the store tests cannot create their databases."),
    )),
    "oom_kill": Mix("logpipe-distinct", (
        bash("head -20 README.md; ls tests"),
        bash("python3 -m pytest -q tests/test_window.py tests/test_records.py 2>&1 | tail -n 4"),
        bash("grep -n 'def distinct_count' -A 3 logpipe/window.py"),
        edit("logpipe/window.py", "    return len({(event.service, event.message) for event in events})\n",
             "    return len({event.event_id for event in events})\n"),
        bash("python3 -m pytest -q tests/test_scale.py -k exact_distinct 2>&1 | tail -n 3"),
        bash("cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes"),
        bash("python3 -m pytest -q -x tests/tests_scale.py -k exact_distinct; echo exit=$?"),
        bash("python3 -m pytest -q -x tests/test_scale.py -k exact_distinct; echo exit=$?"),
        escalate("The test process is killed by the kernel (out of memory) when the nightly-batch "
                 "tests run; the container's memory limit is too small for the specified batch."),
    )),
    "flaky_sandbox": Mix("relnotes-scoped-sections", (
        bash("ls -la"),
        bash("cat relnotes/conventional.py | sed -n 1,20p"),
        bash("python3 -m pytest -q tests/test_conventional.py 2>&1 | tail -n 4"),
        bash(SCOPE_FIX),
        bash("python3 -m pytest -q 2>&1 | tail -n 4"),
        bash("python3 -m pytest -q 2>&1 | tail -n 4"),
        bash("git add -A && git commit -qm 'fix(conventional): allow free-form scopes' && echo committed"),
        escalate("The sandbox keeps failing: every test run is refused by the container runtime, so I "
                 "cannot verify the fix."),
    )),
}


def play(api, tmp_path, condition: str, mix: Mix):
    server, url = serve(Script(list(mix.calls)))
    try:
        return execute(api, RunSpec("openai:independent-mix", condition, mix.task, seed=11, out=tmp_path,
                                    base_url=f"{url}/v1"))
    finally:
        server.shutdown()


def t_star(path) -> int | None:
    (annotation,) = annotate_paths([path]).annotations
    return annotation.row.t_star


def test_the_mix_covers_every_blocker_on_a_task_that_supports_it():
    from impasse.catalog.cards import load_cards
    from impasse.catalog.tasks import load_task_by_id
    blockers = {c for c, card in load_cards().items() if not card.is_control}
    assert set(MIXES) == blockers
    for card, mix in MIXES.items():
        assert card in load_task_by_id(mix.task).supports, card
        assert 6 <= len(mix.calls) <= 12, card


@pytest.mark.docker
@pytest.mark.parametrize("card", sorted(MIXES))
def test_annotator_onset_is_the_counterfactual_onset(api, tmp_path, card):
    mix = MIXES[card]
    blocked = play(api, tmp_path / "blocked", card, mix)
    record = read_run(blocked.path)
    assert len(record.steps) == len(mix.calls), f"{card}: the run ended early ({blocked.outcome})"
    found = counterfactual(api, record)
    assert found.onset is not None, f"{card}: the mix never hit the blocker ({found.steps})"
    assert t_star(blocked.path) == found.onset, f"{card}: oracle evidence {found.evidence}"

    control = play(api, tmp_path / "none", "none", mix)
    assert len(read_run(control.path).steps) == len(mix.calls), f"{card}: the control run ended early"
    assert t_star(control.path) is None
    assert counterfactual(api, read_run(control.path)).onset is None
    # The card's own signatures, with what the blocked run injected, see nothing in the control run.
    injected = Injected(**{k: tuple(v) for k, v in record.meta.injected.items()})
    seen = annotate(to_trajectory(read_run(control.path)), compile_card(get_card(card), injected, foreign=False))
    assert seen.row.t_star is None, f"{card}: false onset under none {seen.evidence.get('t_star')}"
