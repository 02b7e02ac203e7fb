# system_packages.sh — sourced by scripts/test.sh: the system packages the browser and LaTeX tests
# need (Debian's chromium and chromium-driver at the paths tests/reports/test_html_browser.py uses,
# and pdflatex with booktabs for tests/reports/test_paper.py).
#
#   ensure_system_packages LOG_DIR
#
# installs what is missing with apt-get when this user may (root, or sudo without a password) and
# apt-get is there, with a progress line every 30 s (run_with_progress, scripts/progress.sh);
# otherwise prints one line naming the packages and the command that installs them. Returns 0 either
# way: a test that needs a missing package says so itself (and fails under CI=true).

WIDTHBENCH_CHROMIUM="${WIDTHBENCH_CHROMIUM:-/usr/bin/chromium}"
WIDTHBENCH_CHROMEDRIVER="${WIDTHBENCH_CHROMEDRIVER:-/usr/bin/chromedriver}"

missing_system_packages() {  # the Debian packages to install, space-separated ("" when none)
    local packages=()
    [[ -x "$WIDTHBENCH_CHROMIUM" ]] || packages+=(chromium)
    [[ -x "$WIDTHBENCH_CHROMEDRIVER" ]] || packages+=(chromium-driver)
    if ! command -v pdflatex >/dev/null 2>&1 || ! kpsewhich booktabs.sty >/dev/null 2>&1; then
        packages+=(texlive-latex-base texlive-latex-recommended)
    fi
    echo "${packages[*]}"
}

ensure_system_packages() {
    local logs=$1 packages sudo="" log
    packages="$(missing_system_packages)"
    [[ -n "$packages" ]] || return 0
    local how="sudo apt-get update && sudo apt-get install -y --no-install-recommends $packages"
    if [[ "$(id -u)" -ne 0 ]]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
    fi
    if [[ "$sudo" == none ]] || ! command -v apt-get >/dev/null 2>&1; then
        echo "widthbench tests: missing system packages for the browser and LaTeX tests: $packages; install them with: $how" >&2
        return 0
    fi
    echo "widthbench tests: installing $packages with apt-get (the browser and LaTeX tests need them; about 3 min)" >&2
    log="$logs/apt.log"
    : >"$log"
    # shellcheck disable=SC2086  # $sudo and $packages are word lists
    if ! run_with_progress "apt-get update" "30 s" "$log" $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
        || ! run_with_progress "installing $packages" "3 min" "$log" \
            $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages; then
        tail -n 5 "$log" >&2
        echo "widthbench tests: could not install $packages (log: $log); install them with: $how" >&2
    fi
    return 0
}
