#!/usr/bin/env bash
# test.sh — the README's test command: on a fresh machine it sets up everything the tests need, then
# runs them. Arguments go to pytest (`bash scripts/test.sh tests/planners -x`).
#
#   1. the system packages of the browser and LaTeX tests (Debian's chromium, chromium-driver, and
#      pdflatex with booktabs): installed with apt-get when missing and this user may (root, or sudo
#      without a password); otherwise one line names them and the command that installs them
#   2. .venv with widthbench[test] (pip)
#   3. the vLLM CPU environment and the SmolLM2 checkpoint of the end-to-end tests, cached in
#      ~/.cache/widthbench (scripts/vllm_cpu_server.sh setup, setup-smollm2; WIDTHBENCH_VLLM=0 leaves
#      them out, and the end-to-end tests then skip, or fail under CI=true)
#   4. the test suite: with arguments, pytest with them; with none, in two phases (the tests that can
#      share the machine in parallel with pytest-xdist, then the end-to-end and toy-extension tests one
#      at a time: tests/conftest.py), then the built wheel, installed and used away from the checkout
#      (scripts/wheel_smoke.sh)
#
# Every step that can take long prints a line every 30 s (scripts/progress.sh). Exit code: pytest's
# (the first failing phase's), or the wheel check's, or 1 when a set-up step failed. Under CI=true
# (.ci/run runs exactly this) a component the tests cannot have fails its tests instead of skipping
# them (tests/conftest.py).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/progress.sh
. scripts/system_packages.sh

say() { printf 'widthbench tests: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }
# the parallel phase's workers, checked before any set-up step (a typo costs no install)
workers="${WIDTHBENCH_TEST_WORKERS:-2}"
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || fail "WIDTHBENCH_TEST_WORKERS must be a whole number of workers, 1 or more (got '$workers')"
logs="${TMPDIR:-/tmp}/widthbench-setup-logs"
mkdir -p "$logs"

# ---- 1. system packages -----------------------------------------------------------------------
ensure_system_packages "$logs"

# ---- 2. the Python environment ----------------------------------------------------------------
if [[ ! -x .venv/bin/python ]]; then
    python3 -m venv .venv || fail "python3 -m venv .venv failed (Python 3.11 or later with venv is needed)"
fi
say "installing widthbench[test] into .venv (about 5 min the first time on a busy 2-core machine)"
log="$logs/pip.log"
: >"$log"
run_with_progress "pip install -e '.[test]'" "5 min (the first time)" "$log" .venv/bin/pip install -q -e '.[test]' \
    || { grep -v "is ignored" "$log" | tail -n 20 >&2; fail "pip install -e '.[test]' failed (log: $log)"; }

# ---- 3. the vLLM CPU environment and SmolLM2 (the end-to-end tests) ----------------------------
if [[ "${WIDTHBENCH_VLLM:-1}" != 0 ]]; then
    bash scripts/vllm_cpu_server.sh setup >&2 || say "the vLLM CPU environment could not be built: the end-to-end tests will say why"
    if [[ "${WIDTHBENCH_SMOLLM2:-1}" != 0 ]]; then
        bash scripts/vllm_cpu_server.sh setup-smollm2 || say "SmolLM2 could not be set up: its end-to-end tests will say why"
    fi
fi

# ---- 4. the tests ------------------------------------------------------------------------------
# With arguments: pytest with them, as given. Without: the whole suite in two phases (tests/conftest.py
# says which test goes where): the tests that can share the machine in parallel, WIDTHBENCH_TEST_WORKERS
# of them at a time (default 2: the guide's machine has 2 cores; 1 runs them one by one), then one at a
# time the end-to-end tests (their vLLM servers take both cores) and the tests that write a toy
# extension into the checkout; then the built wheel, installed and used away from the checkout.
if [[ $# -gt 0 ]]; then
    .venv/bin/python -m pytest -q "$@"
    code=$?
    [[ "$code" -eq 5 ]] && { say "pytest collected no tests"; exit 1; }
    exit "$code"
fi
start=$SECONDS
say "phase 1 of 2: the tests that can run side by side, $workers at a time"
.venv/bin/python -m pytest -q -n "$workers" -m "not slow and not vllm and not serial"
first=$?
say "phase 1 took $((SECONDS - start)) s; phase 2 of 2: the end-to-end tests and the toy-extension tests, one at a time"
mid=$SECONDS
.venv/bin/python -m pytest -q -m "not slow and (vllm or serial)"
second=$?
say "phase 2 took $((SECONDS - mid)) s; the suite $((SECONDS - start)) s"
for code in "$first" "$second"; do
    if [[ "$code" -eq 5 ]]; then
        say "pytest collected no tests in a phase"
        exit 1
    fi
done
[[ "$first" -ne 0 ]] && exit "$first"
[[ "$second" -ne 0 ]] && exit "$second"
bash scripts/wheel_smoke.sh
