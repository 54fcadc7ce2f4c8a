# LabourCrew — every set-up step lives here; `make run` and `make test` work on a fresh machine
# that reaches only PyPI and Debian. Re-running is fast: pip runs only when requirements.txt changes.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
TORCH_VERSION := 2.13.0
TESTS ?= tests
PYTEST_ARGS ?=

# One stamp per (requirements.txt content, torch pin): a changed file gets a new stamp name.
REQ_SHA := $(shell sha256sum requirements.txt 2>/dev/null | cut -c1-64)
STAMP := $(VENV)/.installed-$(REQ_SHA)-torch$(TORCH_VERSION)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Never prompt, never fetch model weights or data sets from a hub, no telemetry.
export PIP_NO_INPUT := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1
export DEBIAN_FRONTEND := noninteractive
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export STREAMLIT_BROWSER_GATHER_USAGE_STATS := false

.PHONY: help run test bench setup deps sysdeps index clean-index

help: ## show this help
	@echo "LabourCrew make targets:"
	@grep -E '^[a-z][a-z-]*:.*## ' $(firstword $(MAKEFILE_LIST)) | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  make %-12s %s\n", $$1, $$2}'
	@echo "Variables: PYTHON=$(PYTHON) PORT=$(PORT) TESTS=$(TESTS) PYTEST_ARGS=$(PYTEST_ARGS)"

run: setup ## set up, then serve the dashboard on http://localhost:8501 (PORT=...)
	@echo "LabourCrew dashboard: http://localhost:$(PORT)"
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true

test: sysdeps setup ## set up (browser + Bangla fonts too), then lint (ruff) and run the test suite
	$(PY) -m ruff check labourcrew tests pages app.py
	@rc=0; $(PY) -m pytest -q $(TESTS) $(PYTEST_ARGS) || rc=$$?; \
	if [ "$$rc" -eq 5 ]; then \
	  if [ -z "$$(find $(TESTS) -name 'test_*.py' -o -name '*_test.py' 2>/dev/null | head -n 1)" ]; then \
	    echo "WARNING: pytest ran no test: there are no test files under $(TESTS)/ yet." >&2; \
	    rc=0; \
	  else \
	    echo "ERROR: pytest collected no tests although $(TESTS)/ has test files" \
	         "(a selection matched nothing, or collection found no test functions)." >&2; \
	  fi; \
	fi; \
	exit $$rc

bench: setup ## run the benchmarks and print JSON
	$(PY) -m labourcrew bench --json

setup: deps index ## venv + Python packages + index (no-op when current)

deps: $(STAMP) ## create .venv and install torch (CPU) and requirements.txt

$(PY):
	$(PYTHON) -m venv $(VENV)

# torch first and pinned: a plain `torch` requirement would pull a multi-GB CUDA build.
$(STAMP): | $(PY)
	$(PY) -m pip install --progress-bar off "torch==$(TORCH_VERSION)"
	$(PY) -m pip install --progress-bar off -r requirements.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

index: deps ## build whatever index is missing (idempotent)
	$(PY) -m labourcrew index build

clean-index: ## delete the Milvus Lite files (rebuilt by `make index`); keeps the embedding cache
	@find data/index -maxdepth 1 -name '*.db*' -print -exec rm -rf {} + 2>/dev/null || true

# System packages for the browser test and Bangla fonts: only when missing, only as root with apt.
# Never fatal: without them the browser test skips with its reason. (grep without -q: with
# pipefail, -q would SIGPIPE fc-list and read as "missing".)
sysdeps: ## install Chromium, ChromeDriver and Bangla fonts if missing (root + apt only)
	@need=""; \
	command -v chromium >/dev/null 2>&1 || need="$$need chromium"; \
	command -v chromedriver >/dev/null 2>&1 || need="$$need chromium-driver"; \
	if ! fc-list 2>/dev/null | grep -i bengali >/dev/null; then need="$$need fonts-noto-core fonts-beng"; fi; \
	if [ -z "$$need" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "WARNING: missing system packages:$$need (need root and apt-get to install;" \
	       "browser tests will skip)." >&2; \
	  exit 0; \
	fi; \
	echo "Installing system packages:$$need"; \
	if apt-get update -qq && apt-get install -y -qq --no-install-recommends $$need; then \
	  fc-cache -f >/dev/null 2>&1 || true; \
	else \
	  echo "WARNING: apt-get could not install$$need; browser tests will skip." >&2; \
	fi
