"""Replaying a harness's logged replies to `widthbench score --items` (the lm-eval and inspect
end-to-end tests): an OpenAI-compatible server that answers each request with the reply logged for
the same messages and thinking mode (an unknown request gets HTTP 404 and is counted, so a request
that differs from the logged one cannot pass), and the score run made against it."""

from __future__ import annotations

import csv
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from widthbench.cli import main


def replay_key(messages, thinking: bool) -> str:
    return json.dumps([[m["role"], m["content"]] for m in messages]) + ("/think" if thinking else "/nothink")


class Replay:
    """Serves ``replies`` (replay_key -> reply text, or (text, reasoning) for a reply whose thinking
    was logged: sent as vLLM's ``message.reasoning``) on a free loopback port."""

    def __init__(self, replies: dict):
        self.replies = dict(replies)
        self.missed = 0
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    return self._send(200, {"object": "list", "data": [
                        {"id": "replay", "object": "model", "max_model_len": 32768}]})
                self._send(404, {"error": "no such path"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path.endswith("/tokenize"):
                    return self._send(200, {"count": 0, "tokens": [], "max_model_len": 32768})
                thinking = bool((body.get("chat_template_kwargs") or {}).get("enable_thinking", True))
                text = replay.replies.get(replay_key(body["messages"], thinking))
                if text is None:
                    replay.missed += 1
                    return self._send(404, {"error": "no logged reply for this request"})
                text, reasoning = text if isinstance(text, tuple) else (text, None)
                message = {"role": "assistant", "content": text, **({"reasoning": reasoning} if reasoning else {})}
                self._send(200, {"id": "replay", "object": "chat.completion", "model": body.get("model"),
                                 "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2,
                                           "completion_tokens_details": {"reasoning_tokens": 0}}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


def replayed_score(folder: Path, replies: dict, run: Path, meta: dict, monkeypatch) -> tuple[dict, list[dict]]:
    """`widthbench score --items folder` of every exported sub-task and mode against a replay of
    ``replies``: (summary.json, records)."""
    from widthbench.subtasks.score_run import read_records

    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(run.parent / "cache"))
    replay = Replay(replies)
    try:
        thinking = "both" if len(meta["thinking"]) == 2 else ("on" if meta["thinking"] == ["think"] else "off")
        style = "both" if len(meta["styles"]) == 2 else meta["styles"][0]
        code = main(["score", "--items", str(folder), "--subtask", ",".join(meta["subtasks"]), "--style", style,
                     "--thinking", thinking, "--model", "openai:replay", "--base-url", replay.base_url,
                     "--out", str(run), "--quiet",
                     # the export's --max-tokens, as its tasks send it (score --items takes it as an option)
                     *(["--max-tokens", str(meta["settings"]["max_tokens"])] if meta["settings"].get("max_tokens") else [])])
    finally:
        replay.close()
    assert replay.missed == 0 and code == 0
    return json.loads((run / "summary.json").read_text()), read_records(run)


ROW_FIELDS = ("subtask", "metric", "style", "thinking", "reader", "n", "correct", "accuracy", "ci_low", "ci_high",
              "items", "parse_errors", "only_flexible")


def exported_cells(meta: dict, summary: dict, records: list[dict]):
    """Each cell an export holds, with what the score run made of it: yields ``(sub-task, its metric
    names, style, thinking, records by (sub-task, item id, style, thinking), summary rows by
    (sub-task, metric, style, thinking, reader))``."""
    from widthbench.subtasks.registry import Registry

    reg = Registry.default()
    recs = {(r["subtask"], r["item_id"], r["style"], r["thinking"]): r for r in records}
    rows = {(r["subtask"], r["metric"], r["style"], r["thinking"], r["reader"]): r
            for r in [*summary["rows"], *summary["reader_rows"]["strict"]]}
    for sub in meta["subtasks"]:
        metrics = [m.name for m in reg.get(sub).metrics]
        for style in meta["styles"]:
            for think in meta["thinking"]:
                yield sub, metrics, style, think == "think", recs, rows


def report_rows(run: Path) -> list[tuple]:
    """The rows.csv `widthbench report` wrote, without the fields that name the model or count tokens."""
    with open(run / "rows.csv", newline="") as f:
        return sorted(tuple(r.get(k, "") for k in ROW_FIELDS) for r in csv.DictReader(f))


def table_cells(run: Path, notes: bool = True) -> list[list[str]]:
    """table.csv's cells without the model and run columns (a run alone is labelled by its folder's
    name) and without the cells' notes with ``notes=False``."""
    with open(run / "table.csv", newline="") as f:
        rows = list(csv.reader(f))
    drop = [i for i, name in enumerate(rows[0]) if name in ("model", "simulated", "run")]
    cells = [[c for i, c in enumerate(r) if i not in drop] for r in rows[1:]]
    if not notes:
        cells = [[re.sub(r" \(.*\)$", "", c) for c in r] for r in cells]
    return sorted(cells)
