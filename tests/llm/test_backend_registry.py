"""The model-backend registry: spec prefix -> backend; adding a backend is adding one module under
llm/backends/ (docs/design.md, "Extension paths")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from widthbench.core.errors import UserError
from widthbench.llm.backends import BackendRegistry, ModelBackend
from widthbench.llm.model import open_model

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "llm" / "backends"

# A toy backend: `canned:TEXT` answers every request with TEXT; it counts a prompt's words as its tokens.
TOY_MODULE = '''
"""A toy model backend: canned:TEXT answers TEXT to everything."""
from widthbench.llm.backends import ModelBackend
from widthbench.llm.types import Reply


class Canned:
    simulated = False

    def __init__(self, text):
        self.text = text

    async def open(self, pending):
        return self

    async def attempt(self, item, avoid=None):
        words = sum(len(str(m["content"]).split()) for m in item.request.messages)
        return Reply(text=self.text, prompt_tokens=words, completion_tokens=1, thinking_tokens=0,
                     finish_reason="stop", model=f"canned:{self.text}")

    async def close(self):
        return None


BACKENDS = (ModelBackend("canned", "canned:TEXT", lambda name, options: Canned(name), order=50),)
'''
TOY_FILE = PACKAGE_DIR / "canned.py"


def test_default_registry_has_the_builtin_backends_in_order():
    reg = BackendRegistry.default()
    assert reg.prefixes == ("openai", "vllm-batch", "sim")
    assert reg.usage().startswith("openai:NAME, vllm-batch:NAME or sim:KIND (sim:oracle, sim:noisy:P")
    assert reg.for_spec("sim:noisy:0.1")[1] == "sim:noisy:0.1"  # a simulated model is named by its spec
    assert reg.for_spec("openai:qwen")[1] == "qwen"  # a served model by the name after the prefix
    for bad in ("nope:x", "openai:", "openai"):
        with pytest.raises(UserError, match=r"unknown model spec .*: use openai:NAME, vllm-batch:NAME or sim:KIND"):
            reg.for_spec(bad)


def test_open_model_builds_each_backend_from_its_record():
    assert type(open_model("sim:echo", use_cache=False).backend).__name__ == "SimBackend"
    served = open_model("openai:qwen", base_urls="http://a/v1, http://b/v1", use_cache=False)
    assert type(served.backend).__name__ == "OpenAIBackend" and served.name == "qwen"
    batch = open_model("vllm-batch:tiny", use_cache=False, work_dir="/tmp/w")
    assert type(batch.backend).__name__ == "VLLMBatchBackend" and batch.backend.name == "tiny"


def test_a_backend_defined_twice_is_refused():
    b = ModelBackend("x", "x:NAME", lambda name, options: None)
    with pytest.raises(ValueError, match="defined twice"):
        BackendRegistry([b, b])


def test_a_toy_backend_is_one_module(toy_files, fresh_cli, tmp_path):
    toy_files({TOY_FILE: TOY_MODULE})
    assert "canned:TEXT" in fresh_cli("score", "--help", cwd=tmp_path).stdout
    wrong = fresh_cli("score", "--model", "nope:x", "--out", "bad", cwd=tmp_path)
    assert wrong.returncode == 2 and "or canned:TEXT" in wrong.stderr and len(wrong.stderr.splitlines()) == 1

    scored = fresh_cli("score", "--model", "canned:valid", "--subtask", "plan-verification", "--style", "pddl",
                  "--thinking", "off", "--count", "4", "--seed", "2", "--out", "run", "--no-cache", cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    recs = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert len(recs) == 4 and all(r["raw_answer"] == "valid" and r["parsed"] is True for r in recs)
    assert all(r["correct"] == (r["truth"] is True) for r in recs)
    assert {r["truth"] for r in recs} == {True, False}  # the toy's answer is right on some items only
    words = [sum(len(m["content"].split()) for m in r["prompt"]) for r in recs]
    tokens = json.loads((tmp_path / "run" / "tokens.json").read_text())
    # the ledger counts what the backend reported, and the run is not labelled simulated
    assert tokens["total"]["prompt"] == sum(words) and tokens["total"]["completion"] == 4
    assert tokens["total"]["sent"] == 4 and tokens["simulated"] is False
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    row = next(r for r in summary["rows"] if r["subtask"] == "plan-verification")
    assert row["n"] == 4 and row["correct"] == sum(r["truth"] is True for r in recs)


def test_the_design_card_lists_the_toy_backends_file(extension_files):
    assert {str(TOY_FILE.relative_to(PACKAGE_DIR.parents[1]))} == extension_files("model backend", "canned")


def test_the_toy_backend_is_gone_after_its_test():
    assert "canned" not in BackendRegistry.default().prefixes and not TOY_FILE.exists()
