"""A stand-in for vLLM's run_batch: reads an OpenAI batch file, writes OpenAI batch output lines.

Answers with the sim-server's completion logic (shape via --shape). Like vLLM's run_batch, it
serves the names given by --served-model-name (default: the --model value) and answers a request
whose "model" is not one of them with a 404 line (body null, an error object) while still exiting 0.
--fail-after K writes K lines then exits 1 (a crashed runner); --error-every M answers every M-th
request with an error line.
Each invocation appends the number of input lines to --log, so tests can count runner calls.
"""

import argparse
import json

from widthbench.llm.sim_server import SimServer, SimServerConfig


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-i", required=True)
    ap.add_argument("-o", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--served-model-name", nargs="+", default=None)
    ap.add_argument("--shape", default="raw-think")
    ap.add_argument("--fail-after", type=int, default=None)
    ap.add_argument("--error-every", type=int, default=None)
    ap.add_argument("--log", default=None)
    args = ap.parse_args()
    served = args.served_model_name or [args.model]
    sim = next((name for name in served if name.startswith("sim:")), "sim:echo")
    from widthbench.simulated import simulator_for

    server = SimServer(SimServerConfig(model=sim, shape=args.shape, simulator=simulator_for(sim)))
    lines = [json.loads(line) for line in open(args.i) if line.strip()]
    if args.log:
        with open(args.log, "a") as f:
            f.write(f"{len(lines)}\n")
    with open(args.o, "w") as out:
        for i, line in enumerate(lines):
            if args.fail_after is not None and i >= args.fail_after:
                return 1
            assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
            name = line["body"].get("model")
            if name not in served:  # vLLM's ErrorResponse line: status 404, body null
                result = {"id": f"b{i}", "custom_id": line["custom_id"],
                          "response": {"status_code": 404, "request_id": f"r{i}", "body": None},
                          "error": {"error": {"message": f"The model `{name}` does not exist.",
                                              "type": "NotFoundError", "param": "model",
                                              "code": 404}}}
            elif args.error_every and i % args.error_every == 0:
                result = {"id": f"b{i}", "custom_id": line["custom_id"],
                          "response": {"status_code": 400, "request_id": f"r{i}",
                                       "body": {"object": "error", "message": "bad request"}},
                          "error": None}
            else:
                result = {"id": f"b{i}", "custom_id": line["custom_id"],
                          "response": {"status_code": 200, "request_id": f"r{i}",
                                       "body": server.completion(line["body"])},
                          "error": None}
            out.write(json.dumps(result) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
