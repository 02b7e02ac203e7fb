#!/usr/bin/env bash
# serve_qwen.sh — start the vLLM server that widthbench evaluates (Qwen3-14B on GPUs by default).
#
# Usage: scripts/serve_qwen.sh [OPTIONS] [-- EXTRA VLLM ARGS...]
#
# The first run creates a separate virtual environment with vLLM (vLLM pins lark==1.2.2, which
# clashes with widthbench's pddl==0.5.1, so the two never share an environment; widthbench talks to
# the server over HTTP). Later runs reuse it. Then it runs, in the foreground:
#
#     vllm serve MODEL --reasoning-parser qwen3 --max-model-len LEN --port PORT --host HOST \
#         --tensor-parallel-size TP --gpu-memory-utilization UTIL [--served-model-name NAME]
#
# Thinking text comes back in `message.reasoning`; thinking is switched off per request with
# chat_template_kwargs {"enable_thinking": false}. Prefix caching is on by default in vLLM.
# Do not add --enable-reasoning: current vLLM rejects it (--reasoning-parser is enough).
#
# Options:
#   --model ID                  Hugging Face id or local path (default Qwen/Qwen3-14B)
#   --served-model-name NAME    name clients send as `model` (default: the model id)
#   --port N                    port (default 8000)
#   --host ADDR                 bind address (default 127.0.0.1; 0.0.0.0 to serve other machines)
#   --max-model-len N           context length, prompt + thinking + answer (default 32768,
#                               Qwen3's native context)
#   --tensor-parallel-size N    GPUs to shard the model over (default 1; Qwen3-14B in bf16 needs
#                               ~30 GB of weights, so 1 x 80 GB or 2 x 40/48 GB)
#   --gpu-memory-utilization F  fraction of each GPU's memory vLLM may take (default 0.90)
#   --venv DIR                  the vLLM environment (default $WIDTHBENCH_VLLM_GPU_VENV or
#                               $HOME/.cache/widthbench/vllm-venv)
#   --vllm SPEC                 pip requirement installed on first use (default vllm==0.33.0)
#   --setup-only                create the environment and exit
#   --dry-run                   print the server command instead of running it
#   -h, --help                  this text
#
# Then, e.g.:  widthbench ... --model openai:Qwen/Qwen3-14B --base-url http://127.0.0.1:8000/v1
# For tests on a CPU-only machine see scripts/vllm_cpu_server.sh (same server code, tiny models).
set -euo pipefail

MODEL="Qwen/Qwen3-14B"
SERVED=""
PORT=8000
HOST=127.0.0.1
MAX_LEN=32768
TP=1
GPU_UTIL=0.90
VENV="${WIDTHBENCH_VLLM_GPU_VENV:-$HOME/.cache/widthbench/vllm-venv}"
VLLM_SPEC="vllm==0.33.0"
SETUP_ONLY=0
DRY_RUN=0
EXTRA=()

die() { echo "serve_qwen.sh: $*" >&2; exit 2; }
usage() { sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; }
need() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --model) need "$@"; MODEL="$2"; shift 2 ;;
        --served-model-name) need "$@"; SERVED="$2"; shift 2 ;;
        --port) need "$@"; PORT="$2"; shift 2 ;;
        --host) need "$@"; HOST="$2"; shift 2 ;;
        --max-model-len) need "$@"; MAX_LEN="$2"; shift 2 ;;
        --tensor-parallel-size) need "$@"; TP="$2"; shift 2 ;;
        --gpu-memory-utilization) need "$@"; GPU_UTIL="$2"; shift 2 ;;
        --venv) need "$@"; VENV="$2"; shift 2 ;;
        --vllm) need "$@"; VLLM_SPEC="$2"; shift 2 ;;
        --setup-only) SETUP_ONLY=1; shift ;;
        --dry-run) DRY_RUN=1; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; EXTRA=("$@"); break ;;
        --enable-reasoning) die "--enable-reasoning is rejected by current vLLM; --reasoning-parser qwen3 is already set" ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
[[ "$PORT" =~ ^[0-9]+$ ]] || die "--port must be a number, got $PORT"
[[ "$MAX_LEN" =~ ^[0-9]+$ ]] || die "--max-model-len must be a number, got $MAX_LEN"
[[ "$TP" =~ ^[0-9]+$ ]] || die "--tensor-parallel-size must be a number, got $TP"
[[ "$GPU_UTIL" =~ ^(0?\.[0-9]+|1(\.0*)?)$ ]] || die "--gpu-memory-utilization must be in (0, 1], got $GPU_UTIL"

CMD=("$VENV/bin/vllm" serve "$MODEL" --reasoning-parser qwen3 --max-model-len "$MAX_LEN"
     --host "$HOST" --port "$PORT" --tensor-parallel-size "$TP"
     --gpu-memory-utilization "$GPU_UTIL")
[[ -n "$SERVED" ]] && CMD+=(--served-model-name "$SERVED")
CMD+=("${EXTRA[@]}")

if [[ $DRY_RUN == 1 ]]; then
    printf '%q ' "${CMD[@]}"; echo
    exit 0
fi

MARKER="$VENV/.widthbench-setup-ok"
if [[ ! -f "$MARKER" ]]; then
    command -v nvidia-smi >/dev/null || echo "serve_qwen.sh: warning: no nvidia-smi; vLLM needs a GPU (for CPU tests use scripts/vllm_cpu_server.sh)" >&2
    echo "serve_qwen.sh: creating $VENV with $VLLM_SPEC (once; several minutes)" >&2
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install "$VLLM_SPEC"
    "$VENV/bin/python" -c 'import vllm; print(vllm.__version__)' >"$MARKER"
fi
echo "serve_qwen.sh: vllm $(cat "$MARKER") in $VENV" >&2
[[ $SETUP_ONLY == 1 ]] && exit 0

echo "serve_qwen.sh: OpenAI-compatible API at http://$HOST:$PORT/v1 once /health answers" >&2
exec "${CMD[@]}"
