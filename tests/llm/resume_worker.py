"""Helper process for the kill -9 test: answers N requests through the openai: backend."""

import json
import sys

from widthbench.llm import Request, open_model


def requests(n: int) -> list[Request]:
    return [Request.user(f"item {i}: is (on b{i} a) true?", thinking=i % 3 == 0, purpose="verify",
                         seed=i) for i in range(n)]


def main() -> None:
    base_url, cache_dir, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    model = open_model("openai:sim:echo", base_urls=base_url, cache_dir=cache_dir, concurrency=4,
                       backoff=0.01)
    replies = model.run(requests(n), progress=False)
    with open(out, "w") as f:
        json.dump({"replies": [r.to_dict() for r in replies], "counters": model.counters}, f)


if __name__ == "__main__":
    main()
