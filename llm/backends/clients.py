"""The built-in model backends: an OpenAI-compatible server, vLLM's offline batch runner and the
simulated models. Each client module is imported when its backend is opened."""

from __future__ import annotations

from widthbench.llm.backends import BackendOptions, ModelBackend


def open_server(name: str, o: BackendOptions):
    from widthbench.llm.online import OpenAIBackend

    return OpenAIBackend(name, list(o.base_urls), timeout=o.timeout, api_key=o.api_key, preflight=o.preflight,
                         concurrency=o.concurrency, max_model_len=o.max_model_len)


def open_batch(name: str, o: BackendOptions):
    from widthbench.llm.batch import VLLMBatchBackend

    return VLLMBatchBackend(name, command=o.batch_cmd, batch_size=o.batch_size, work_dir=o.work_dir,
                            model_dir=o.model_dir, reuse_output=o.use_cache)


def open_simulated(name: str, o: BackendOptions):
    from widthbench.llm.sim_backend import SimBackend

    return SimBackend(name, o.simulator)


BACKENDS = (
    ModelBackend("openai", "openai:NAME", open_server, order=1),
    ModelBackend("vllm-batch", "vllm-batch:NAME", open_batch, order=2),
    ModelBackend("sim", "sim:KIND (sim:oracle, sim:noisy:P, sim:random, sim:const:TEXT, sim:gibberish, sim:echo)",
                 open_simulated, name_is_spec=True, order=3),
)
