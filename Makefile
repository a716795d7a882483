# impasse — every target sets up what it needs (venv, Docker engine, images) by itself.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
IMPASSE := $(BIN)/impasse
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
WORKERS ?= 2
DEMO_TASK ?= invoicekit-tax-rounding
DEMO_OUT ?= runs/demo
DEMO_INSPECT_OUT ?= runs/demo-inspect

.PHONY: demo demo-agents demo-operator demo-inspect test unit integration images engine browser lint clean matrix bench venv atlas

venv: $(STAMP)
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -e '.[dev,report,openai,anthropic,ray,mini,inspect]'
	@rm -f $(VENV)/.installed-* && touch $@

engine: venv
	@$(IMPASSE) engine up

images: engine
	@$(IMPASSE) images build

# Headless Chromium, for the check that `impasse report`'s page renders in a real browser
# (tests/unit/test_report_browser.py): Debian's package, installed with apt as root when absent
# (quick when present); elsewhere, or when IMPASSE_NO_SELF_INSTALL is set, that test skips and says why.
BROWSERS := chromium chromium-browser google-chrome
browser:
	@for b in $(BROWSERS); do command -v $$b >/dev/null && exit 0; done; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && [ -z "$$IMPASSE_NO_SELF_INSTALL" ]; then \
		echo "installing chromium with apt-get ..."; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
			|| echo "chromium could not be installed: the report's browser check will skip"; \
	else echo "no chromium, and none installed here (root with apt-get only): the report's browser check will skip"; fi

# The main job on the built-in default: the oracle policy on one task, blocked (chown_root) and
# unblocked (none), then the annotation of both.
demo: images
	@rm -rf $(DEMO_OUT)
	$(IMPASSE) run --model scripted:oracle --condition chown_root --task $(DEMO_TASK) --out $(DEMO_OUT)
	$(IMPASSE) run --model scripted:oracle --condition none --task $(DEMO_TASK) --out $(DEMO_OUT)
	$(IMPASSE) annotate $(DEMO_OUT)

# The real, pinned Claude Code and Codex binaries (fetched once with npm, checked, cached) and
# mini-swe-agent (the venv's `mini` extra) under chown_root, driven offline by the scripted oracle
# through impasse's model relay, then the annotation.
DEMO_AGENTS_OUT ?= runs/demo-agents
demo-agents: images
	@rm -rf $(DEMO_AGENTS_OUT)
	for agent in claude-code codex opencode gemini-cli qwen-code cecli mini-swe-agent; do \
	  $(IMPASSE) run --agent $$agent --model scripted:oracle --condition chown_root --task $(DEMO_TASK) --out $(DEMO_AGENTS_OUT) || exit 1; \
	done
	$(IMPASSE) annotate $(DEMO_AGENTS_OUT)

# The operator (--operator rules): a precise escalation under chown_root is answered, the blocker
# lifted and the run resolved; a vague one under the same blocker is not. Then the annotation.
DEMO_OPERATOR_OUT ?= runs/demo-operator
demo-operator: images
	@rm -rf $(DEMO_OPERATOR_OUT)
	$(IMPASSE) run --model scripted:oracle --condition chown_root --task $(DEMO_TASK) --operator rules --out $(DEMO_OPERATOR_OUT)
	$(IMPASSE) run --model scripted:asker-vague --condition chown_root --task $(DEMO_TASK) --operator rules --out $(DEMO_OPERATOR_OUT)
	$(IMPASSE) run --model scripted:oracle --condition chown_root --task $(DEMO_TASK) --operator rules --agent claude-code --out $(DEMO_OPERATOR_OUT)
	$(IMPASSE) annotate $(DEMO_OPERATOR_OUT)

# impasse inside Inspect: Inspect's own `inspect eval` of impasse's task under none and chown_root, its
# model impasse's scripted oracle (offline), its log left in DEMO_INSPECT_OUT, then read by impasse annotate.
demo-inspect: images
	@rm -rf $(DEMO_INSPECT_OUT)
	for condition in none chown_root; do \
	  $(BIN)/inspect eval impasse/impasse_tasks -T condition=$$condition -T tasks=$(DEMO_TASK) \
	    --model impasse/oracle --log-dir $(DEMO_INSPECT_OUT) --display plain || exit 1; \
	done
	@echo "Inspect logs: $(DEMO_INSPECT_OUT)"
	$(IMPASSE) annotate $(DEMO_INSPECT_OUT)

unit: venv browser
	$(BIN)/pytest -q tests/unit

integration: images
	$(BIN)/pytest -q -n $(WORKERS) --dist worksteal tests/integration

# --dist worksteal: xdist's default hands each worker a quarter of the collection at the start, so one
# worker held nearly every integration test while the other ran the unit tests and then stood idle; a
# worker that runs dry takes half of what the other still has queued.
test: images browser
	$(BIN)/pytest -q -n $(WORKERS) --dist worksteal --durations=30 tests
	@$(IMPASSE) gc --stale >/dev/null

# The full scripted matrix (every policy × every condition × every supporting task), then the report.
matrix: images
	$(IMPASSE) matrix --file harness/matrix.yaml --workers $(WORKERS)
	$(IMPASSE) report runs/matrix --html runs/matrix/report.html --md runs/matrix/report.md

# The error atlas: each blocker card's commands run for real, blocked and under none, into the
# fixtures of tests/unit/test_atlas.py (tests/data/atlas).
atlas: images
	$(IMPASSE) cards atlas

# Benchmarks (never timed tests): per-command overhead against mini-swe-agent, an 80-step episode,
# the machine CPU of one episode and who spends it,
# cached image rebuild, annotation throughput (and 1,000 Claude Code and Codex sessions in their stores), latency-bound matrix scaling (1-64 workers against the
# latency model), the relay's overhead per step on every wire it serves, each container agent's start-up
# (~30 minutes on 2 cores). Results are written up in docs/benchmarks.md.
bench: images
	$(BIN)/pip install -q --disable-pip-version-check 'mini-swe-agent>=2' 2>/dev/null || echo "mini-swe-agent not installable: its column stays empty"
	$(BIN)/python bench/exec_overhead.py
	$(BIN)/python bench/episode_cost.py
	$(BIN)/python bench/annotate_throughput.py --steps 100000 --runs 500
	$(BIN)/python bench/annotate_sessions.py --sessions 1000 --steps 40
	$(BIN)/python bench/annotate_inspect.py --sessions 1000 --steps 40
	$(BIN)/python bench/inspect_exec_overhead.py --commands 200
	$(BIN)/python bench/latency_scaling.py --workers 1,2,4,8,16,32,64 --latency uniform:1:4 --budget 30
	$(BIN)/python bench/sensor_cost.py
	$(BIN)/python bench/relay_overhead.py
	$(BIN)/python bench/agent_startup.py --runs 2
	$(BIN)/python bench/forwarder_overhead.py
	$(BIN)/python bench/grading_cost.py
	$(BIN)/python bench/operator_cost.py

lint: venv
	$(BIN)/ruff check impasse tests harness bench

clean:
	-$(IMPASSE) gc
	-docker images -q --filter label=impasse=1 | xargs -r docker rmi -f
	rm -rf $(VENV) runs .pytest_cache
