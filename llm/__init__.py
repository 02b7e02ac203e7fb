"""widthbench.llm: one interface to every model (OpenAI-compatible servers, vLLM's batch runner,
simulated models), with an on-disk cache, retries, bounded concurrency and a token ledger.

    from widthbench.llm import open_model, Request
    model = open_model("openai:Qwen/Qwen3-14B", base_urls="http://127.0.0.1:8000/v1")
    replies = model.run([Request.user("Is (on a b) true?", thinking=True, purpose="verify")])
    model.ledger.write("results/run1/tokens.json")

Nothing is read (environment, network, files) at import; see docs/llm.md.
"""

from widthbench.llm.ledger import Ledger
from widthbench.llm.model import Model, open_model
from widthbench.llm.types import PRESETS, QWEN3_NORMAL, QWEN3_THINKING, Reply, Request

__all__ = ["Ledger", "Model", "open_model", "Reply", "Request", "PRESETS", "QWEN3_NORMAL",
           "QWEN3_THINKING"]
