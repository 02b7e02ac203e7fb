# progress.sh — sourced by scripts/test.sh and scripts/vllm_cpu_server.sh: long set-up steps say
# what they are doing while they run, instead of going quiet for minutes.
#
#   run_with_progress WHAT EXPECTED LOG COMMAND [ARGS...]
#
# runs COMMAND with its output appended to LOG and, every $WIDTHBENCH_PROGRESS_EVERY seconds
# (default 30) while it runs, prints one line on stderr: the step, the time elapsed, the time
# expected and the last line of the log (pip's "Downloading ..." tells where an install is). Returns
# COMMAND's exit code.

_progress_fmt() {  # seconds -> "1 min 05 s" / "42 s"
    local s=$1
    if (( s >= 60 )); then printf '%d min %02d s' $((s / 60)) $((s % 60)); else printf '%d s' "$s"; fi
}

_progress_last_line() {  # the log's last informative line, short
    [[ -f "$1" ]] || return 0
    # (progress bars and pip's "is ignored" warnings skipped: they say nothing of the step)
    tail -n 40 "$1" 2>/dev/null | tr '\r' '\n' | grep -v -e 'is ignored' -e '━' -e '^[[:space:]]*$' \
        | tail -n 1 | sed 's/^[[:space:]]*//' | cut -c1-100
}

run_with_progress() {
    local what=$1 expected=$2 log=$3
    shift 3
    local every=${WIDTHBENCH_PROGRESS_EVERY:-30} t0=$SECONDS next rc=0 last
    next=$((SECONDS + every))
    "$@" >>"$log" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 0.5
        if (( SECONDS >= next )) && kill -0 "$pid" 2>/dev/null; then
            last="$(_progress_last_line "$log")"
            printf '%s: %s elapsed, about %s expected%s\n' "$what" "$(_progress_fmt $((SECONDS - t0)))" \
                "$expected" "${last:+ (now: $last)}" >&2
            next=$((SECONDS + every))
        fi
    done
    wait "$pid" || rc=$?
    return "$rc"
}
