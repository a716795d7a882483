"""The price table and a run's cost, held to hand-computed figures: tokens × the table's prices to
the cent, cached reads at their own price, an unknown price or count unknown (never 0), a user's
table and a matrix's price over the repo's, a malformed file named with its entry."""

from __future__ import annotations

import re

import pytest

from impasse.models import make_model
from impasse.models.pricing import SCRIPTED, CostMeter, Price, PriceTable, PriceTableError, cost_of
from impasse.models.turns import usage
from tests.integration.endpoints import anthropic_tool_use, openai_tool_call

# The models docs/models.md promises a price for (dated snapshots are matched to these).
COVERED = ("openai:gpt-5", "openai:gpt-5-mini", "openai:gpt-5-nano", "openai:gpt-4.1", "openai:gpt-4.1-mini",
           "openai:gpt-4.1-nano", "openai:gpt-4o", "openai:gpt-4o-mini", "openai:o3", "openai:o4-mini",
           "anthropic:claude-opus-4-1", "anthropic:claude-opus-4-5", "anthropic:claude-sonnet-4-5",
           "anthropic:claude-sonnet-4", "anthropic:claude-haiku-4-5", "anthropic:claude-3-7-sonnet",
           "anthropic:claude-3-5-sonnet", "anthropic:claude-3-5-haiku")


@pytest.fixture
def table(monkeypatch) -> PriceTable:
    monkeypatch.delenv("IMPASSE_PRICES", raising=False)
    return PriceTable.load()


def test_a_runs_cost_is_its_tokens_times_the_tables_prices_to_the_cent(table):
    price = table.price("openai:gpt-5-2025-08-07")
    assert (price.input, price.cache_read, price.output) == (1.25, 0.125, 10.00)
    meter = CostMeter(price)
    for _ in range(40):
        # Per step, by hand: 10,000 uncached × $1.25 + 40,000 cached × $0.125 + 2,000 out × $10
        # = $0.0125 + $0.005 + $0.02 = $0.0375; 40 steps: $1.50.
        meter.add(usage(50_000, 2_000, cached_tokens=40_000, reasoning_tokens=1_500))
    assert round(meter.usd, 2) == 1.50 and meter.usd == pytest.approx(1.5)
    assert meter.to_dict() == {
        "usd": 1.5, "price": price.to_dict(),
        "tokens": {"prompt_tokens": 2_000_000, "completion_tokens": 80_000, "cached_tokens": 1_600_000,
                   "reasoning_tokens": 60_000}}


def test_anthropic_cache_reads_and_writes_are_billed_at_their_own_rates(table):
    price = table.price("anthropic:claude-sonnet-4-5-20250929")
    assert (price.input, price.cache_write, price.cache_read, price.output) == (3.00, 3.75, 0.30, 15.00)
    meter = CostMeter(price)
    # step 1: 2,000 × 3 + 10,000 written × 3.75 + 800 × 15                      = 55,500 µ$-per-M
    # step 2: 2,300 × 3 + 10,000 read × 0.30 + 1,200 written × 3.75 + 1,500 × 15 = 36,900
    # step 3: 2,800 × 3 + 11,200 read × 0.30 + 1,000 written × 3.75 + 2,000 × 15 = 45,510
    steps = [usage(12_000, 800, cache_write_tokens=10_000),
             usage(13_500, 1_500, cached_tokens=10_000, cache_write_tokens=1_200),
             usage(15_000, 2_000, cached_tokens=11_200, cache_write_tokens=1_000)]
    assert [meter.add(step) for step in steps] == pytest.approx([0.0555, 0.0369, 0.04551])
    assert meter.to_dict()["usd"] == 0.13791
    everything_as_input = sum((s["prompt_tokens"] * 3 + s["completion_tokens"] * 15) / 1e6 for s in steps)
    assert round(everything_as_input, 4) == 0.186  # 40,500 × 3 + 4,300 × 15: what ignoring the cache claims


def test_an_unknown_price_makes_the_cost_unknown_never_zero(table):
    assert table.price("openai:qwen2.5-coder-32b") is None  # a local vLLM model nobody priced
    meter = CostMeter(None)
    assert meter.add(usage(1_000, 10)) is None
    assert meter.to_dict() == {"usd": None, "tokens": {"prompt_tokens": 1_000, "completion_tokens": 10},
                               "price": None}


def test_a_missing_count_or_an_unpriced_cache_makes_the_cost_unknown_and_it_stays_unknown():
    no_cache_rates = Price(1.0, 2.0)
    assert cost_of({}, no_cache_rates) is None  # a response without usage
    assert cost_of(usage(100, None), no_cache_rates) is None
    assert cost_of(usage(100, 10, cached_tokens=50), no_cache_rates) is None  # cached, and no rate for it
    assert cost_of(usage(100, 10, cached_tokens=0), no_cache_rates) == pytest.approx(120 / 1e6)
    assert cost_of(usage(100, 10, cached_tokens=80, cache_write_tokens=40), Price(1.0, 2.0, 0.1, 1.25)) is None
    meter = CostMeter(no_cache_rates)
    meter.add(usage(100, 10))
    meter.add({})
    meter.add(usage(100, 10))
    assert meter.usd is None and meter.tokens == {"prompt_tokens": 200, "completion_tokens": 20}


def test_a_scripted_policy_costs_zero_by_definition(table):
    assert table.price("scripted:oracle") == SCRIPTED
    meter = CostMeter(SCRIPTED)
    meter.add({})  # scripted turns report no usage: nothing was billed, so nothing is unknown
    assert meter.to_dict()["usd"] == 0.0


def test_a_user_file_replaces_entries_whole_and_a_matrix_price_wins(tmp_path, monkeypatch):
    user = tmp_path / "prices.yaml"
    user.write_text("openai:gpt-5:\n  input: 2\n  output: 20\n  checked: 2026-11-30\n  source: our contract\n"
                    "openai:qwen2.5-coder-32b:\n  input: 0\n  output: 0\n  source: our own vLLM\n"
                    "openai:local-model:\n  input: 1\n  output: 1\n  cache_read: input\n")
    monkeypatch.setenv("IMPASSE_PRICES", str(user))
    table = PriceTable.load()
    gpt5 = table.price("openai:gpt-5-2025-08-07")  # the user's family entry, matched like the repo's
    assert (gpt5.input, gpt5.output, gpt5.cache_read, gpt5.checked) == (2.0, 20.0, None, "2026-11-30")
    assert table.price("openai:gpt-5-mini").input == 0.25  # the repo's, untouched
    assert cost_of(usage(1_000, 100, cached_tokens=900), table.price("openai:qwen2.5-coder-32b")) == 0.0
    assert cost_of(usage(1_000, 0, cached_tokens=900), table.price("openai:local-model")) == pytest.approx(1e-3)
    override = table.price("openai:gpt-5", {"input": 0.5, "output": 4, "cache_read": 0.05})
    assert (override.input, override.output, override.cache_read) == (0.5, 4.0, 0.05)
    explicit = tmp_path / "other.yaml"
    explicit.write_text("openai:gpt-5: {input: 3, output: 30}\n")
    assert PriceTable.load(explicit).price("openai:gpt-5").input == 3.0  # --prices wins over the variable


@pytest.mark.parametrize(("text", "said"), [
    ("openai:gpt-5: [1, 2\n", "not YAML"),
    ("- openai:gpt-5\n", "maps model specs"),
    ("openai:gpt-5:\n  input: 1.25\n", "openai:gpt-5: output missing"),
    ("openai:gpt-5:\n  input: 1.25\n  output: -1\n", "openai:gpt-5: output is -1"),
    ("openai:gpt-5:\n  input: cheap\n  output: 10\n", "openai:gpt-5: input is 'cheap'"),
    ("openai:gpt-5:\n  input: 1\n  output: 10\n  cache_reads: 0.1\n", "openai:gpt-5: unknown keys ['cache_reads']"),
    ("openai:gpt-5: 1.25\n", "openai:gpt-5: a price is a mapping"),
])
def test_a_malformed_price_file_is_a_clear_error_naming_the_file_and_the_entry(tmp_path, text, said):
    bad = tmp_path / "mine.yaml"
    bad.write_text(text)
    with pytest.raises(PriceTableError, match=re.escape(said)) as raised:
        PriceTable.load(bad)
    assert str(raised.value).startswith(f"{bad}:")


def test_a_missing_price_file_and_a_bad_matrix_price_are_clear_errors(tmp_path, table):
    with pytest.raises(PriceTableError, match="none.yaml: cannot read the price file"):
        PriceTable.load(tmp_path / "none.yaml")
    with pytest.raises(PriceTableError, match="price of openai:gpt-5: input missing"):
        table.price("openai:gpt-5", {"output": 10})


def test_the_repo_table_covers_the_current_models_and_dates_and_sources_every_price(table):
    assert [spec for spec in COVERED if table.price(spec) is None] == []
    for spec, price in table.entries.items():
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", price.checked), spec
        assert price.source.startswith("https://"), spec
        assert price.output >= price.input > 0, spec
    assert [spec for spec, p in table.entries.items() if p.cache_read is None] == ["openai:gpt-4o-2024-05-13"]
    assert all(p.cache_write for s, p in table.entries.items() if s.startswith("anthropic:"))


def test_a_snapshot_is_priced_as_its_family_unless_it_has_its_own_entry(table):
    assert table.price("anthropic:claude-haiku-4-5-20251001") == table.price("anthropic:claude-haiku-4-5")
    assert table.price("anthropic:claude-3-7-sonnet-latest") == table.price("anthropic:claude-3-7-sonnet")
    assert table.price("openai:o4-mini-2025-04-16") == table.price("openai:o4-mini")
    assert table.price("openai:gpt-4o-2024-08-06") == table.price("openai:gpt-4o")
    assert table.price("openai:gpt-4o-2024-05-13").input == 5.00  # priced apart from its family
    assert table.price("openai-responses:gpt-5") == table.price("openai:gpt-5")
    assert table.price("anthropic:claude-sonnet-4-5-extra") is None  # no guessing past the rule


TOOLS = [{"type": "function", "function": {"name": "bash", "description": "run",
                                             "parameters": {"type": "object", "properties": {}}}}]
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "fix it"}]




def with_usage(reply: dict, reported: dict) -> dict:
    return {**reply, "usage": reported}


def test_anthropic_usage_as_the_api_reports_it_is_billed_to_the_cent(endpoint, table):
    # The Messages API's `input_tokens` leaves out the cached parts; they come as their own counts.
    reported = [{"input_tokens": 2_000, "cache_creation_input_tokens": 10_000, "cache_read_input_tokens": 0,
                 "output_tokens": 800},
                {"input_tokens": 2_300, "cache_creation_input_tokens": 1_200, "cache_read_input_tokens": 10_000,
                 "output_tokens": 1_500},
                {"input_tokens": 2_800, "cache_creation_input_tokens": 1_000, "cache_read_input_tokens": 11_200,
                 "output_tokens": 2_000}]
    _, url = endpoint([with_usage(anthropic_tool_use("bash", {"command": "ls"}), u) for u in reported])
    model = make_model("anthropic:claude-sonnet-4-6", base_url=url)
    meter = CostMeter(table.price("anthropic:claude-sonnet-4-6"))  # $3 / $3.75 / $0.30 / $15, as 4.5
    for _ in reported:
        meter.add(model.complete(MESSAGES, TOOLS).usage)
    # The same three requests as the hand-computed run above: $0.0555 + $0.0369 + $0.04551.
    assert meter.to_dict()["usd"] == 0.13791
    assert meter.tokens == {"prompt_tokens": 40_500, "completion_tokens": 4_300, "cached_tokens": 21_200,
                            "cache_write_tokens": 12_200}


def test_openai_usage_as_the_api_reports_it_is_billed_to_the_cent(endpoint, table):
    reported = {"prompt_tokens": 50_000, "completion_tokens": 2_000, "total_tokens": 52_000,
                "prompt_tokens_details": {"cached_tokens": 40_000},
                "completion_tokens_details": {"reasoning_tokens": 1_500}}
    _, url = endpoint([with_usage(openai_tool_call("bash", '{"command": "ls"}'), reported)] * 4 + [
        with_usage(openai_tool_call("bash", '{"command": "ls"}'), None)])
    model = make_model("openai:gpt-5-mini", base_url=url)
    meter = CostMeter(table.price("openai:gpt-5-mini"))
    for _ in range(4):
        meter.add(model.complete(MESSAGES, TOOLS).usage)
    # Per request: 10,000 × $0.25 + 40,000 × $0.025 + 2,000 × $2 = $0.0025 + $0.001 + $0.004 = $0.0075.
    assert meter.to_dict()["usd"] == 0.03 and meter.tokens["reasoning_tokens"] == 6_000
    meter.add(model.complete(MESSAGES, TOOLS).usage)  # an answer that reports no usage: billed, but how much?
    assert meter.to_dict()["usd"] is None
