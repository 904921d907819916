# Tablebook: `make run` to serve, `make test` to test. See README.md.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
export TABLEBOOK_DATABASE_URL ?= sqlite:///./data/tablebook.db

.PHONY: run test lint typecheck format bench reliability clean help

help:
	@echo "make run          create .venv, migrate ./data/tablebook.db, record demo games if empty, serve on $(HOST):$(PORT)"
	@echo "make test         the whole test suite (SQLite and PostgreSQL), ruff and mypy"
	@echo "make bench        benchmarks: append and fold rates beside raw ceilings"
	@echo "make reliability  the long reliability runs"

$(BIN)/.installed: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

run: $(BIN)/.installed
	@mkdir -p data
	$(BIN)/tablebook migrate
	$(BIN)/tablebook demo --if-empty
	$(BIN)/tablebook demo-keys
	@echo ""
	@echo "Tablebook API:  http://$(HOST):$(PORT)/v1/games   (send: Authorization: Bearer <recorder key>)"
	@echo "API docs:       http://$(HOST):$(PORT)/docs"
	@echo "Replay page:    http://$(HOST):$(PORT)/replay/<game id>"
	@echo ""
	$(BIN)/tablebook serve --host $(HOST) --port $(PORT)

test: $(BIN)/.installed lint
	$(BIN)/python -m pytest

lint: $(BIN)/.installed
	$(BIN)/ruff check events projections api migrations tests bench
	$(BIN)/mypy

typecheck: lint

format: $(BIN)/.installed
	$(BIN)/ruff format events projections api migrations tests bench
	$(BIN)/ruff check --fix events projections api migrations tests bench

bench: $(BIN)/.installed
	$(BIN)/python -m bench
	$(BIN)/python -m bench.bulk_export

reliability: $(BIN)/.installed
	$(BIN)/python -m pytest tests/reliability -m "reliability or not reliability" --full-reliability

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache .hypothesis
