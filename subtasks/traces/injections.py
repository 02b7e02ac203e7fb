"""A verified trace scored against the errors a simulated model put into its thinking on purpose
(docs/traces.md, "Simulated thinking").

A simulated model with thinking on reports what it injected (`Reply.injected`, kept as a record's
``injected``): ``[]`` for thinking written clean, else ``[{"kind", "span", "claimed", "expect"}]``
(`widthbench.pddl_domains.thinking.Injection`). `outcome(trace, injected)` says how the verifier did:

- ``clean``: nothing injected and no error reported; ``false-error``: an error reported where none
  was injected, or before the injection;
- ``found``: the first error lies inside the injected sentences with the kind the injection is to be
  reported as; ``elsewhere``: the first error after it, or inside it with another kind; ``missed``:
  no error reported.
"""

from __future__ import annotations

OUTCOMES = ("clean", "false-error", "found", "elsewhere", "missed")


def outcome(trace: dict | None, injected: list | None) -> dict | None:
    """``{"outcome", "kind", "expect", "span"}`` of one trace (kind, expect and span: of the first
    injection; None for a clean one); None when nothing is known of what was injected."""
    if trace is None or injected is None:
        return None
    fe = trace.get("first_error")
    if not injected:
        return {"outcome": "clean" if fe is None else "false-error", "kind": None, "expect": None, "span": None}
    inj = min(injected, key=lambda x: x["span"][0])
    a, b = inj["span"]
    if fe is None:
        got = "missed"
    elif a <= fe["span"][0] and fe["span"][1] <= b and fe["kind"] == inj["expect"]:
        got = "found"
    elif fe["span"][1] <= a:
        got = "false-error"
    else:
        got = "elsewhere"
    return {"outcome": got, "kind": inj["kind"], "expect": inj["expect"], "span": list(inj["span"])}


def summary(outcomes: list[dict]) -> dict:
    """Counts over traces: ``clean`` / ``false_on_clean`` (traces with nothing injected, and those of
    them with an error reported), ``injected`` / ``found`` / ``found_share`` and ``by_kind`` (kind ->
    [found, injected]), ``early`` (an error reported before the injection), ``missed``, ``elsewhere``."""
    clean = [o for o in outcomes if o["kind"] is None]
    injected = [o for o in outcomes if o["kind"] is not None]
    by_kind: dict[str, list[int]] = {}
    for o in injected:
        k = by_kind.setdefault(o["kind"], [0, 0])
        k[0] += o["outcome"] == "found"
        k[1] += 1
    found = sum(o["outcome"] == "found" for o in injected)
    return {
        "clean": len(clean),
        "false_on_clean": sum(o["outcome"] == "false-error" for o in clean),
        "injected": len(injected),
        "found": found,
        "found_share": round(found / len(injected), 4) if injected else None,
        "early": sum(o["outcome"] == "false-error" for o in injected),
        "missed": sum(o["outcome"] == "missed" for o in injected),
        "elsewhere": sum(o["outcome"] == "elsewhere" for o in injected),
        "by_kind": {k: by_kind[k] for k in sorted(by_kind)},
    }
