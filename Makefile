# Knowledge Harness — the two commands are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGIN := obsidian-plugin
VAULT_DEMO := examples/vault
PORT ?= 8765
EVIDENCE_PORT ?= 8731

.PHONY: setup run demo-pipeline test lint typecheck pytest plugin-test plugin bench fuzz api-types clean

setup: $(VENV)/.installed $(PLUGIN)/node_modules/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,embeddings]'
	touch $@

$(PLUGIN)/node_modules/.installed: $(PLUGIN)/package.json $(PLUGIN)/package-lock.json
	cd $(PLUGIN) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

run: setup
	bash scripts/run-demo.sh $(VAULT_DEMO) $(PORT) $(EVIDENCE_PORT)

# The pipeline demo: a local blog repository and a configured copy of the example vault under
# .run/demo-pipeline/, the request captured, then served like `make run` (docs/pipeline.md, "Walkthrough").
demo-pipeline: setup
	bash scripts/demo-pipeline.sh $(PORT) $(EVIDENCE_PORT)

lint: setup
	$(BIN)/ruff check sidecar tests bench
	$(BIN)/ruff format --check sidecar tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m tests.architecture.redos knowledge_harness

pytest: setup
	$(BIN)/pytest -q -n 3 --dist loadfile

plugin-test: setup
	cd $(PLUGIN) && npm run --silent typecheck && npm run --silent lint && npm run --silent test && npm run --silent build

test: lint pytest plugin-test

# `make plugin VAULT=~/x`: make passes "~/x" unexpanded, so the recipe expands a leading ~ itself.
PLUGIN_VAULT = $(patsubst ~%,$(HOME)%,$(VAULT))
plugin: setup
	@test -n "$(VAULT)" || { echo "usage: make plugin VAULT=/path/to/vault" >&2; exit 2; }
	@test -d "$(PLUGIN_VAULT)" || { echo "no such vault folder: $(PLUGIN_VAULT)" >&2; exit 2; }
	cd $(PLUGIN) && npm run --silent build
	mkdir -p "$(PLUGIN_VAULT)/.obsidian/plugins/knowledge-harness"
	cp $(PLUGIN)/main.js $(PLUGIN)/manifest.json $(PLUGIN)/styles.css "$(PLUGIN_VAULT)/.obsidian/plugins/knowledge-harness/"
	@echo "Installed into $(PLUGIN_VAULT)/.obsidian/plugins/knowledge-harness — enable it in Settings → Community plugins."

api-types: setup
	cd $(PLUGIN) && npx --no-install jiti scripts/api-types.ts

bench: setup
	$(BIN)/python -m bench

fuzz: setup
	KH_FUZZ=1 HYPOTHESIS_PROFILE=fuzz timeout 3600 $(BIN)/pytest -q tests -m fuzz --hypothesis-profile=fuzz

clean:
	rm -rf $(VENV) $(PLUGIN)/node_modules $(PLUGIN)/main.js .run
