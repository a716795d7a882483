# impasse — every target sets up what it needs (venv, Docker engine, images) by itself.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
IMPASSE := $(BIN)/impasse
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
WORKERS ?= 2

.PHONY: demo test unit integration images engine lint clean matrix bench venv

venv: $(STAMP)
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -e '.[dev,report,openai,anthropic]'
	@rm -f $(VENV)/.installed-* && touch $@

engine: venv
	@$(IMPASSE) engine up

images: engine
	@$(IMPASSE) images build

demo: images
	$(IMPASSE) doctor

unit: venv
	$(BIN)/pytest -q tests/unit

integration: images
	$(BIN)/pytest -q -n $(WORKERS) tests/integration

test: images
	$(BIN)/pytest -q -n $(WORKERS) tests
	@$(IMPASSE) gc >/dev/null

lint: venv
	$(BIN)/ruff check impasse tests harness

clean:
	-$(IMPASSE) gc
	-docker images -q --filter label=impasse=1 | xargs -r docker rmi -f
	rm -rf $(VENV) runs .pytest_cache
