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
#   4. the test suite (.venv/bin/python -m pytest -q), and with no arguments also the built wheel,
#      installed and used away from the checkout (scripts/wheel_smoke.sh)
#
# Every step that can take long prints a line every 30 s (scripts/progress.sh). Exit code: pytest's
# (or the wheel check's), or 1 when a set-up step failed. Under CI=true (.ci/run runs exactly this) a
# component the tests cannot have fails its tests instead of skipping them (tests/conftest.py).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/progress.sh
. scripts/system_packages.sh

say() { printf 'widthbench tests: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }
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
.venv/bin/python -m pytest -q "$@"
code=$?
if [[ "$code" -eq 5 ]]; then
    say "pytest collected no tests"
    exit 1
fi
if [[ "$code" -ne 0 || $# -gt 0 ]]; then
    exit "$code"
fi
bash scripts/wheel_smoke.sh
