#!/usr/bin/env bash
# Install widthbench as a user does and use it away from the checkout.
#
#   bash scripts/wheel_smoke.sh            # builds dist/widthbench-*.whl, installs it into a fresh
#                                          # venv in a temporary folder, runs the commands there
#
# Every command's exit code is checked (bad input must exit 2); report.html must be written. The
# checkout is never on the path: the commands run from the temporary folder, with the wheel's copy of
# every module, prompt template, PDDL file and report asset. .ci/run runs this after the test suite.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/widthbench-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
start=$SECONDS

step() { printf '[wheel] %s\n' "$*"; }
fail() { printf '[wheel] FAILED: %s\n' "$*" >&2; exit 1; }

step "building the wheel from a clean copy of the tracked files"
mkdir -p "$work/src" "$work/dist"
(cd "$repo" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
    [ -f "$f" ] && { mkdir -p "$work/src/$(dirname "$f")"; cp -p "$f" "$work/src/$f"; }
done)
python3 -m pip wheel -q --no-deps -w "$work/dist" "$work/src"
wheel="$(ls "$work"/dist/widthbench-*.whl)"
mkdir -p "$repo/dist" && cp "$wheel" "$repo/dist/"

step "installing $(basename "$wheel") into a fresh venv"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"
wb="$work/venv/bin/widthbench"
cd "$work" && rm -rf src dist

expect() {  # expect CODE COMMAND...: run it, check the exit code
    local want=$1; shift
    local got=0
    "$@" >"$work/out.txt" 2>"$work/err.txt" || got=$?
    if [ "$got" -ne "$want" ]; then
        cat "$work/out.txt" "$work/err.txt" >&2
        fail "exit $got (wanted $want): $*"
    fi
    if grep -q "Traceback" "$work/err.txt"; then cat "$work/err.txt" >&2; fail "traceback from: $*"; fi
    step "ok (exit $got): widthbench ${*:2}"
}

"$work/venv/bin/python" - <<'EOF' || fail "widthbench imported from the checkout, not from the wheel"
import widthbench, widthbench.commands, widthbench.searches
assert "site-packages" in widthbench.__file__ and "site-packages" in widthbench.searches.__file__, widthbench.__file__
EOF
expect 0 "$wb" --help
expect 0 "$wb" demo
expect 0 "$wb" generate blocksworld --count 4 --blocks 4 --seed 1 --out sets/bw
expect 0 "$wb" plan blocksworld sets/bw/instance-0001.pddl
cp "$work/out.txt" plan.txt
expect 0 "$wb" validate blocksworld sets/bw/instance-0001.pddl plan.txt
expect 2 "$wb" validate blocksworld sets/bw/instance-0001.pddl no-such-plan.txt
expect 0 "$wb" widths sets/bw --max-width 2 --out runs/widths
expect 0 "$wb" score --subtask all --count 3 --model sim:noisy:0.1 --thinking off \
    --domain sets/bw/domain.pddl --instances sets/bw --out runs/score
expect 0 "$wb" report runs/score
[ -s runs/score/report.html ] || fail "report.html was not written"
grep -q "SIMULATED" runs/score/table.md || fail "the table does not say the model was simulated"
step "passed in $((SECONDS - start)) s"
