"""The onset rules for a zero or missing exit status (docs/metrics.md, "Onset rules"): a failure line
counts however the command exited, a benign warning or quoted text never does."""

import pytest

from impasse.analysis.onset_rules import is_failure_line, is_listing, line_counts

from .test_signatures import HEALTHY, POSITIVE, onset

MASKED = [(card, line) for card, lines in POSITIVE.items() for line in lines]


@pytest.mark.parametrize("card_id,line", MASKED)
@pytest.mark.parametrize("exit_code", [0, None])
def test_a_failure_line_is_an_onset_when_a_pipe_or_the_format_hides_the_status(card_id, line, exit_code):
    piped = f"collected 33 items\n\n{line}\n===== 1 failed, 32 passed in 0.31s ====="
    assert onset(card_id, piped, exit_code=exit_code) is not None


@pytest.mark.parametrize("card_id,line", MASKED)
@pytest.mark.parametrize("exit_code", [0, 1, None])
def test_quoted_error_text_is_never_an_onset(card_id, line, exit_code):
    for listing in (f"src/app/core.py:42:    log.error(\"{line}\")", f"+    # {line}", f"  118\t{line}"):
        assert onset(card_id, listing, exit_code=exit_code) is None, listing


BENIGN = ["WARNING: The script pytest is installed in '/home/agent/.local/bin' which is not on PATH.",
          "DeprecationWarning: pkg_resources is deprecated as an API",
          "warning: unable to access '/root/.config/git/attributes': Permission denied",
          "hint: Using 'master' as the name for the initial branch."]
UNREACHABLE = ["WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after "
               "connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object>: "
               "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': "
               "/simple/pyyaml/"]


@pytest.mark.parametrize("line", BENIGN)
def test_a_benign_warning_is_no_failure_line(line):
    assert not is_failure_line(line) and not line_counts(line, 0) and not line_counts(line, None)


@pytest.mark.parametrize("line", UNREACHABLE)
def test_a_warning_that_names_an_unreachable_resource_is(line):
    assert is_failure_line(line) and line_counts(line, 0)
    assert onset("network_down_download", line, exit_code=0) is not None


@pytest.mark.parametrize("line", ["src/x.py:12:    raise PermissionError(path)", "   12  import yaml",
                                  "+from yaml import safe_load", "-    return 1", "@@ -1,4 +1,4 @@"])
def test_listings(line):
    assert is_listing(line)


@pytest.mark.parametrize("line", ["invoicekit/signing.py:27: SigningKeyMissing",
                                  "tests/test_store.py:35: AssertionError"])
def test_pytests_crash_location_is_a_failure_line_not_a_listing(line):
    assert not is_listing(line) and is_failure_line(line) and line_counts(line, 0)


@pytest.mark.parametrize("line", ["invoicekit/signing.py:16:class SigningKeyMissing(RuntimeError):",
                                  "invoicekit/signing.py:27:SigningKeyMissing", "notes.txt:3: SigningKeyMissing"])
def test_a_grep_hit_on_an_exception_name_stays_a_listing(line):
    assert is_listing(line) and not line_counts(line, 0)


@pytest.mark.parametrize("line", ["bash: line 1: jq: command not found", "E   ModuleNotFoundError: No module named 'x'",
                                  "fatal: not a git repository", "Killed", "--- FAIL"])
def test_not_listings(line):
    assert not is_listing(line) or line.startswith("--")


@pytest.mark.parametrize("card_id", sorted(POSITIVE))
@pytest.mark.parametrize("output", HEALTHY)
def test_healthy_output_is_no_onset_at_exit_zero_either(card_id, output):
    assert onset(card_id, output, exit_code=0) is None
