"""CPU time of everyday commands, this checkout against the previous release, both measured in the
same run (issue 39):

    help     widthbench --help
    demo     widthbench demo (3 items per cell, sim:oracle)
    score    widthbench score --subtask paper --count 3 (sim:noisy:0.2, no reply cache)
    report   widthbench report of two 5-item `score --subtask paper` runs (made once, untimed, by the
             previous release, so that both versions read the same run files)
    rescore  widthbench rescore planbench of every result file of ../shared/data/planbench-responses
             (66 files, 17,299 answers) with --out (answers.jsonl, summary.json and the accuracy by
             optimal plan length)

The previous release (``--reference``, default commit c1767de, exported with ``git archive``) and
this checkout as it is on disk (every file git does not ignore) are each unpacked into a temporary
folder and installed there without dependencies (``pip install --no-deps --target``: byte-compiled,
as a user's install is); each runs with its folder first on PYTHONPATH and this interpreter's
packages behind it.
CPU time is user + system time of the command and of every process it waited for (executor
workers, Fast Downward), read with ``getrusage(RUSAGE_CHILDREN)``: best of ``--repeat`` for the
short commands (five times as many for --help), once for the rescore. The two rescores' answers.jsonl must hold the same answers
with the same verdicts (``planbench_correct``; ``read``, ``valid`` and the reading of each reader),
or the script exits 1; it also says whether their summary.json counts and difficulty.csv agree.
A benchmark, not a test.

    python scripts/bench_cli.py                       # everything (about 20 minutes on 2 cores)
    python scripts/bench_cli.py --only help,report    # some of the commands
    python scripts/bench_cli.py --compare OLD NEW     # only the verdicts of two `rescore --out` folders
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
COMMANDS = ("help", "demo", "score", "report", "rescore")
VERDICT_FIELDS = ("read", "valid", "value")  # per reader, beside the record's planbench_correct


@dataclass(frozen=True)
class Version:
    name: str
    env: dict

    def run(self, argv: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
        """(CPU seconds of the command and its waited-for children, the finished process)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([sys.executable, "-m", "widthbench.cli", *argv], cwd=cwd, env=self.env,
                              capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{self.name}: widthbench {' '.join(argv[:3])} ... exited {proc.returncode}: "
                             + (proc.stderr.strip().splitlines() or ["(no message)"])[-1])
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc

    def origin(self) -> str:
        """Where this version's widthbench is imported from."""
        out = subprocess.run([sys.executable, "-c", "import widthbench, os; print(os.path.dirname(widthbench.__file__))"],
                             env=self.env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
        return out.stdout.strip()


def install(source_files: bytes, tmp: Path, name: str) -> Version:
    """A tar stream of a source tree, unpacked under ``tmp`` and installed there without
    dependencies (byte-compiled, as pip installs it for a user)."""
    src, target = tmp / "src", tmp / "site"
    src.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(src)], input=source_files, check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(src)],
                   check=True, capture_output=True)
    return Version(name, dict(os.environ, PYTHONPATH=str(target)))


def reference_version(commit: str, tmp: Path) -> Version:
    """The release at ``commit`` (``git archive``)."""
    tree = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True).stdout
    return install(tree, tmp, f"{commit} (previous release)")


def current_version(tmp: Path) -> Version:
    """This checkout as it is on disk: tracked and untracked files that git does not ignore."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout
    files = b"\0".join(f for f in files.split(b"\0") if f and (ROOT / f.decode()).is_file())
    tree = subprocess.run(["tar", "-c", "-C", str(ROOT), "--null", "-T", "-"], input=files, capture_output=True,
                          check=True).stdout
    return install(tree, tmp, "this checkout")


def commands(work: Path, tag: str, runs: tuple[Path, Path]) -> dict[str, list[str]]:
    """Each command's arguments; outputs go under ``work`` (``tag`` keeps the versions apart)."""
    results = sorted(str(p) for p in (DATA / "planbench-responses").rglob("*.json"))
    return {
        "help": ["--help"],
        "demo": ["demo", "--out", str(work / f"demo-{tag}")],
        "score": ["score", "--subtask", "paper", "--count", "3", "--model", "sim:noisy:0.2", "--seed", "1",
                  "--no-cache", "--quiet", "--out", str(work / f"score-{tag}")],
        "report": ["report", str(runs[0]), str(runs[1]), "--out", str(work / f"report-{tag}")] if runs else [],
        "rescore": ["rescore", "planbench", *results, "--instances", str(DATA / "planbench"),
                    "--disagreements", "none", "--out", str(work / f"rescore-{tag}")],
    }


def clear(argv: list[str]) -> None:
    """Remove a command's output folder, so that each repeat does the whole work (no resume)."""
    if "--out" in argv:
        import shutil

        shutil.rmtree(argv[argv.index("--out") + 1], ignore_errors=True)


def make_runs(version: Version, work: Path) -> tuple[Path, Path]:
    """The two 5-item paper score runs `report` reads (seeds 1 and 2)."""
    out = []
    for seed in (1, 2):
        run = work / f"paper-run-{seed}"
        version.run(["score", "--subtask", "paper", "--count", "5", "--model", "sim:noisy:0.2", "--seed", str(seed),
                     "--no-cache", "--quiet", "--out", str(run)], work)
        out.append(run)
    return out[0], out[1]


def read_answers(folder: Path) -> dict[tuple, dict]:
    out = {}
    with open(folder / "answers.jsonl", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            r = json.loads(line)
            key = (Path(r["file"]).resolve().as_posix(), r["instance_id"], r["task"])
            if key in out:
                raise SystemExit(f"{folder}/answers.jsonl line {n}: a second record of {key}")
            out[key] = r
    return out


def verdict(r: dict) -> tuple:
    return (r["planbench_correct"],) + tuple(r[reader].get(f) for reader in ("strict", "flexible")
                                              for f in VERDICT_FIELDS)


def compare(old: Path, new: Path) -> bool:
    """Print how two `rescore planbench --out` folders compare; True when every verdict agrees."""
    a, b = read_answers(old), read_answers(new)
    only_old, only_new = a.keys() - b.keys(), b.keys() - a.keys()
    differ = [k for k in a.keys() & b.keys() if verdict(a[k]) != verdict(b[k])]
    reasons = sum(1 for k in a.keys() & b.keys()
                  if any(a[k][r].get("reason") != b[k][r].get("reason") for r in ("strict", "flexible")))
    print(f"verdicts: {len(a)} answers in {old}/answers.jsonl, {len(b)} in {new}/answers.jsonl; "
          f"{len(only_old)} only in the first, {len(only_new)} only in the second; "
          f"{len(differ)} with another verdict (planbench_correct, or read/valid/reading of a reader); "
          f"{reasons} with another reason text")
    for k in sorted(differ)[:10]:
        print(f"  {k}: {verdict(a[k])} -> {verdict(b[k])}")
    sa, sb = (json.loads((d / "summary.json").read_text(encoding="utf-8"))["overall"] for d in (old, new))
    print(f"summary.json overall counts: {'equal' if sa == sb else 'DIFFERENT'}")
    if (old / "difficulty.csv").is_file() and (new / "difficulty.csv").is_file():
        da, db = (_cells(d / "difficulty.csv") for d in (old, new))
        changed = sorted(k for k in da.keys() | db.keys() if da.get(k) != db.get(k))
        counts = [k for k in changed if (da.get(k) or ("",))[1:] != (db.get(k) or ("",))[1:]]
        print(f"difficulty.csv: {len(da)} cells before, {len(db)} after; {len(changed) - len(counts)} differ only in "
              f"their bin's label, {len(counts)} in n or correct")
        for k in counts[:10]:
            print(f"  {k[0]} {k[1]} from {k[2]}: (bin, n, correct) {da.get(k)} -> {db.get(k)}")
    return not (only_old or only_new or differ)


def _cells(path: Path) -> dict[tuple, tuple]:
    """difficulty.csv: (file, feature, bin's lower end) -> (bin, n, correct)."""
    with open(path, newline="", encoding="utf-8") as f:
        return {(r["mode"], r["feature"], int(r["bin_lo"])): (r["bin"], int(r["n"]), int(r["correct"]))
                for r in csv.DictReader(f)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", default="c1767de", help="the previous release's commit (default c1767de)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each short command; the best counts (default 3)")
    ap.add_argument("--only", default=",".join(COMMANDS), help=f"commands to time (default: {','.join(COMMANDS)})")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep the outputs (default: a temporary folder)")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="only compare two rescore --out folders")
    args = ap.parse_args(argv)
    if args.compare:
        return 0 if compare(Path(args.compare[0]), Path(args.compare[1])) else 1
    wanted = [c.strip() for c in args.only.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in COMMANDS]
    if unknown:
        ap.error(f"unknown command {unknown[0]!r} (choose from {', '.join(COMMANDS)})")
    with tempfile.TemporaryDirectory(prefix="bench_cli-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        ref = reference_version(args.reference, Path(tempfile.mkdtemp(dir=tmp)))
        cur = current_version(Path(tempfile.mkdtemp(dir=tmp)))
        versions = (ref, cur)
        for v in versions:
            print(f"{v.name}: widthbench from {v.origin()}")
        runs = make_runs(ref, work) if "report" in wanted else None
        print(f"load average {os.getloadavg()[0]:.2f} at start; CPU seconds (user + system, children included), "
              f"best of {args.repeat} (help: {5 * args.repeat}, rescore: once); the versions alternate")
        print(f"{'command':8s} {'previous':>10s} {'current':>10s} {'current/previous':>17s}")
        ok = True
        for name in wanted:
            best = {}
            # --help takes a fifth of a second: more runs, so that load on the machine averages out
            for rep in range(1 if name == "rescore" else args.repeat * (5 if name == "help" else 1)):
                for v, tag in ((ref, "previous"), (cur, "current")):
                    argv_ = commands(work, tag, runs)[name]
                    clear(argv_)
                    t, _ = v.run(argv_, work)
                    best[tag] = min(best.get(tag, t), t)
            print(f"{name:8s} {best['previous']:10.2f} {best['current']:10.2f} "
                  f"{best['current'] / best['previous']:17.2f}", flush=True)
            if name == "rescore":
                ok = compare(work / "rescore-previous", work / "rescore-current") and ok
        print(f"load average {os.getloadavg()[0]:.2f} at the end; {time.monotonic() - t0:.0f} s wall in all")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
