"""`widthbench rescore planbench FILE.json... --instances DIR [--out DIR]`: re-judge PlanBench results."""

from __future__ import annotations

HELP = "re-judge PlanBench result files with the engine and both answer readers (strict, flexible)"
DESCRIPTION = HELP + """. Plan generation (task 1), plan verification (task 3) and plan execution (task
7) files of every PlanBench variant (plain, 3-block, Mystery, random and deceptive names, unsolvable,
Sokoban), several variants in one command. Prints per file the answers, how many each reader read, how
many are valid on the engine, the agreement with PlanBench's verdict and every disagreement of each
reader with its category and reason (--disagreements flexible|strict|none narrows the list). --out DIR
writes answers.jsonl and summary.json, and the flexible reader's accuracy by optimal plan length and by
number of objects (difficulty.md, .csv, -slopes.csv, -plan-length.png, -objects.png). A back-prompting
file (PlanBench's validator-feedback rounds) is judged round by round: each round's plan on the engine,
the first round that succeeds, and the agreement with PlanBench's verdict per round. A file that cannot
be read is skipped with its reason and the others are judged; the command then exits 2."""


def add_arguments(p) -> None:
    p.add_argument("source", choices=["planbench"], help="the format of the result files (planbench)")
    p.add_argument("files", nargs="+", metavar="FILE.json", help="PlanBench result files")
    p.add_argument("--instances", action="append", required=True, metavar="DIR",
                   help="PlanBench's data root (the folder holding plan-bench/ and llm_planning_analysis/): "
                        "each file's instance folder, domain file and templates are found from its variant "
                        "(results/<variant>/ folder, else its 'domain' field) and that variant's config; or a "
                        "folder of instance-N.pddl files with the domain file beside them or in the parent "
                        "folder (PlanBench's generated_basic), or PlanBench's instances folder holding "
                        "<domain>/generated_basic; may be given once per domain")
    p.add_argument("--out", metavar="DIR", help="write answers.jsonl, summary.json and the accuracy by "
                   "plan length and object count (difficulty.*) here")
    p.add_argument("--disagreements", choices=["both", "flexible", "strict", "none"], default="both",
                   help="whose disagreements with PlanBench to list (default both)")
    from widthbench.planners.executor import add_executor_arguments

    add_executor_arguments(p, what="chunks of answers")


def run(args) -> int:
    from widthbench.planners.executor import open_executor, spec_from_args
    from widthbench.core.runfiles import check_output_dir
    from widthbench.subtasks.planbench.run import report_lines, rescore, rescore_identity, write_outputs

    if args.out:  # before the work, so a bad --out costs nothing
        check_output_dir(args.out, "--out")
    with open_executor(spec_from_args(args)) as executor:
        judged, summary = rescore(args.files, args.instances, executor=executor)
    readers = {"both": ("flexible", "strict"), "none": ()}.get(args.disagreements, (args.disagreements,))
    for line in report_lines(judged, summary, readers):
        print(line)
    if args.out:
        write_outputs(args.out, judged, summary, rescore_identity(args.files, args.instances))
        print(f"wrote {args.out}/answers.jsonl and {args.out}/summary.json")
        from widthbench.reports.curves import write_rescore_difficulty

        for path in write_rescore_difficulty(judged, args.instances, args.out):  # by plan length, blocks
            print(f"wrote {path}")
    unreadable = summary.get("unreadable", {})
    if unreadable:  # the batch went on without them: each named with its reason, then the count
        import sys

        for path, reason in unreadable.items():
            print(f"widthbench rescore: skipped {reason if reason.startswith(path) else f'{path}: {reason}'}",
                  file=sys.stderr)
        print(f"widthbench rescore: error: {len(unreadable)} of {len(args.files)} result files could not be read "
              f"(listed above); the other {len(args.files) - len(unreadable)} were judged", file=sys.stderr)
        return 2
    return 0
