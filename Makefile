# Sparrow — every command of the course. Each target is a thin wrapper over a `python -m …`
# command (see README.md), so the course also works without make (Windows, Colab).
#
#   make chapter-1   check your chapter 1 (sets everything up on first use)
#   make test        the repository's whole test suite (what CI runs)
#
# PYTHON=/path/to/python uses an existing interpreter as it is (nothing is installed);
# otherwise `make setup` builds .venv with BOOTSTRAP (default python3) and pip.
# LAB_ARGS passes options to JupyterLab, e.g. `make lab LAB_ARGS="--no-browser"`.

BOOTSTRAP ?= python3
ifeq ($(origin PYTHON),undefined)
PY := .venv/bin/python
SETUP := $(BOOTSTRAP) -m tools.setup
else
PY := $(PYTHON)
SETUP := $(PY) -m tools.setup --current
endif

.PHONY: help setup env progress lab test lint stubs reset
.DEFAULT_GOAL := help

help:
	@sed -n '1,10p' Makefile | sed 's/^# \{0,1\}//'
	@echo "Targets: setup chapter-N progress lab test lint stubs reset TASK=N.k"

setup:
	@$(SETUP)

# what every other target needs first: the same set-up, silent when nothing is to be done
env:
	@$(SETUP) --quiet

chapter-%: env
	@$(PY) -m autograder check $*

progress: env
	@$(PY) -m autograder progress

lab: env
	$(PY) -m jupyterlab --notebook-dir=chapters $(LAB_ARGS)

lint: env
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The repository's tests, then every notebook run against the reference (nbval, lax mode:
# outputs are not compared, errors and failed asserts are).
test: env lint
	$(PY) -m pytest tests
	SPARROW_IMPL=solutions PYTHONPATH="$(CURDIR)" $(PY) -m pytest --nbval-lax \
		--nbval-current-env -p no:cacheprovider chapters

stubs: env
	$(PY) -m tools.stubs $(if $(FORCE),--force)

reset: env
	@test -n "$(TASK)" || { echo "usage: make reset TASK=1.3"; exit 2; }
	$(PY) -m tools.stubs reset $(TASK)
