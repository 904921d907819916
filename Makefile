# Tablebook: `make run` to serve, `make test` to test. See README.md.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make run HOST=... PORT=...`, else TABLEBOOK_HOST / TABLEBOOK_PORT, else 127.0.0.1:8000 (expanded once)
ifeq ($(origin HOST),undefined)
HOST := $(or $(TABLEBOOK_HOST),127.0.0.1)
endif
ifeq ($(origin PORT),undefined)
PORT := $(or $(TABLEBOOK_PORT),8000)
endif
export TABLEBOOK_DATABASE_URL ?= sqlite:///./data/tablebook.db

.PHONY: run test services lint typecheck format bench reliability cluster cluster-stop lock clean help

help:
	@echo "make run          create .venv, migrate ./data/tablebook.db, record demo games if empty, serve on $(HOST):$(PORT)"
	@echo "make test         install Chromium and start PostgreSQL if needed, then ruff, mypy, the import contracts and the whole test suite"
	@echo "make lock         re-resolve requirements.lock after a change to pyproject.toml (keeps the other pins)"
	@echo "make bench        benchmarks: append and fold rates beside raw ceilings; their tables in docs/performance.md"
	@echo "make reliability  the long reliability runs (with the failover run on a Patroni cluster)"
	@echo "make cluster      a primary, two replicas, Patroni and etcd on this machine (docs/replication.md)"
	@echo "make cluster-stop stop it (the data stays in \$$TABLEBOOK_CLUSTER_DIR, default /tmp/tablebook-cluster)"

# the venv, with the tested versions of requirements.lock (dev and postgres extras), then the project itself
$(BIN)/.installed: pyproject.toml requirements.lock setup.py projections/games/schnapsen/_fastsolver.c \
  projections/games/schnapsen/_fasttable.h projections/games/seven_and_a_half/_fastreview.c \
  projections/games/seven_and_a_half/_fastreview_search.h
	@PYTHON=$(PYTHON) bash scripts/ensure-services run
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

run: export TABLEBOOK_HOST := $(HOST)
run: export TABLEBOOK_PORT := $(PORT)
run: $(BIN)/.installed
	@mkdir -p data
	$(BIN)/tablebook migrate
	$(BIN)/tablebook demo --if-empty
	$(BIN)/tablebook demo-keys
	@echo ""
	$(BIN)/tablebook serve

# Chromium for tests/browser (installed as root), PostgreSQL at 127.0.0.1:5432 (started when down)
services:
	@PYTHON=$(PYTHON) bash scripts/ensure-services test

# the services while the venv is made, then the lint beside the suite (scripts/make-test says why)
test:
	@PYTHON=$(PYTHON) MAKE="$(MAKE)" bash scripts/make-test

# ruff, mypy (strict), and the import contracts of pyproject.toml ([tool.importlinter]: layers, no circles)
lint: $(BIN)/.installed
	$(BIN)/ruff check events projections api migrations tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

typecheck: lint

format: $(BIN)/.installed
	$(BIN)/ruff format events projections api migrations tests bench
	$(BIN)/ruff check --fix events projections api migrations tests bench

# each benchmark's output is shown and kept in bench/results/NAME.txt; then bench/report.py writes the tables
# of docs/performance.md from them (`python -m bench.report run NAME MODULE` runs one alone)
BENCH_RUN := $(BIN)/python -m bench.report run
bench: $(BIN)/.installed
	$(BENCH_RUN) main bench
	$(BENCH_RUN) folds bench.folds
	$(BENCH_RUN) bulk_export bench.bulk_export
	$(BENCH_RUN) state_at bench.state_at
	$(BENCH_RUN) store_appends bench.store_appends
	$(BENCH_RUN) group_commit bench.group_commit
	$(BENCH_RUN) growth bench.growth
	$(BENCH_RUN) streams bench.streams
	$(BENCH_RUN) ratings bench.ratings
	$(BENCH_RUN) review bench.review
	bash scripts/ensure-wrk
	$(BENCH_RUN) http_appends bench.http_appends
	$(BENCH_RUN) appends_under_load bench.appends_under_load
	$(BIN)/python -m bench.report

reliability: $(BIN)/.installed
	$(BIN)/python -m pytest tests/reliability -m "reliability or not reliability" --full-reliability
	$(BIN)/python -m pytest -m slow --run-slow

# PostgreSQL streaming replication managed by Patroni, with etcd (installed with apt-get when root)
cluster:
	bash scripts/cluster start

cluster-stop:
	bash scripts/cluster stop

lock: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile --quiet --universal --python-version 3.11 --extra dev --extra postgres \
	  --custom-compile-command "make lock" pyproject.toml -o requirements.lock

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache .hypothesis
