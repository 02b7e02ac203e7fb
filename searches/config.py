"""The settings of one search run (`SearchConfig`), with the defaults of the seed papers.

ToT (the paper): max_depth 8, branch_factor 2. MCTS (ToolTree, Table 2 settings; docs/searches.md): λ = 1.4, τ_pre = 0.3,
τ_post = 0.4, at most 60 rollouts, early stop after 10 rollouts without improvement. CaT (Caterpillar of
Thoughts; docs/searches.md): softmax temperature T = 1, an iteration budget.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from widthbench.core.errors import UserError
from widthbench.llm.types import mode_name
from widthbench.searches.registry import MethodRegistry

METHODS = MethodRegistry.default().names  # naive, tot-bfs, tot-dfs, mcts, cat, feedback, agent (searches/methods/)
MAPPINGS = ("direct", "esa")
NOVELTY = ("off", "llm", "oracle")
VERIFY = ("engine", "llm")
SOURCES = ("llm", "engine")
STYLES = ("nl", "pddl")


@dataclass(frozen=True, slots=True)
class SearchConfig:
    method: str = "tot-dfs"
    mapping: str = "direct"  # direct: one prompt gives the next state; esa: action, then successor
    novelty: str = "off"
    verify: str = "engine"
    actions: str = "llm"  # who proposes actions (or direct successors): llm | engine
    successors: str = "llm"  # who maps an action to its successor (esa): llm | engine
    style: str = "nl"
    thinking: bool = False
    extension: bool = True  # the paper's pick-up/unstack example in next-action, direct and naive prompts
    novelty_width: int | None = None  # llm novelty: None = the paper's undefined "novel"; k = IW(k)'s test
    seed: int = 0
    max_depth: int = 8
    branch_factor: int = 2
    max_states: int = 1000  # budget on generated states per instance (ToT, MCTS, CaT)
    # MCTS (ToolTree)
    rollouts: int = 60
    lam: float = 1.4
    tau_pre: float = 0.3
    tau_post: float = 0.4
    patience: int = 10
    # CaT: iterations, and the softmax temperature of its rewinds (not the sampling temperature,
    # which is `solve --temperature`, a model setting)
    iterations: int = 40
    cat_temperature: float = 1.0
    # LLM novelty: the list of previous states is summarised beyond this many characters
    novelty_max_chars: int = 48000
    max_tokens: int | None = None
    # the settings of methods that are not fields above ((name, value) pairs, sorted; the run
    # identity holds them only when set, so the other methods' identities are unchanged)
    settings: tuple = ()

    def setting(self, name: str, methods: MethodRegistry | None = None):
        """The value of the method's own setting ``name``: as set, else the method's default."""
        given = dict(self.settings)
        if name in given:
            return given[name]
        declared = (methods or MethodRegistry.default()).get(self.method).setting(name)
        if declared is None:
            raise KeyError(f"method {self.method!r} has no setting {name!r}")
        return declared.default

    def check(self, methods: MethodRegistry | None = None) -> "SearchConfig":
        methods = methods or MethodRegistry.default()
        for name, allowed in (("method", methods.names), ("mapping", MAPPINGS), ("novelty", NOVELTY),
                              ("verify", VERIFY), ("actions", SOURCES), ("successors", SOURCES),
                              ("style", STYLES)):
            value = getattr(self, name)
            if value not in allowed:
                raise UserError(f"--{name} {value!r}: choose from {', '.join(allowed)}")
        for name in ("max_depth", "branch_factor", "max_states", "rollouts", "iterations",
                     "patience"):
            if getattr(self, name) < 1:
                raise UserError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.cat_temperature <= 0:
            raise UserError(f"--cat-temperature must be positive, got {self.cat_temperature}")
        if not (0 <= self.tau_pre <= 1 and 0 <= self.tau_post <= 1):
            raise UserError("--tau-pre and --tau-post must lie in [0, 1]")
        if self.novelty_width is not None and self.novelty_width < 1:
            raise UserError(f"--novelty-width must be at least 1, got {self.novelty_width}")
        if self.novelty_max_chars < 1000:
            raise UserError(f"--novelty-max-chars must be at least 1000, got {self.novelty_max_chars}")
        method = methods.get(self.method)
        for name, value in self.settings:
            declared = method.setting(name)
            if declared is None:
                raise UserError(f"{declared_flag(name)} does not apply to --method {self.method}")
            if declared.choices is not None and value not in declared.choices:
                raise UserError(f"{declared.flag} {value!r}: choose from {', '.join(map(str, declared.choices))}")
            if declared.type is int and (not isinstance(value, int) or value < 0):
                raise UserError(f"{declared.flag} must be a whole number >= 0, got {value!r}")
        return self

    def label(self) -> str:
        """A short name of the configuration for tables and figures."""
        if self.method == "naive":
            parts = ["naive"]
        elif self.method not in ("tot-bfs", "tot-dfs", "mcts", "cat"):  # the methods without the hooks
            parts = [self.method] + [f"{k.replace('_', '-')}-{v}" for k, v in self.settings]
        else:
            parts = [self.method, self.mapping, f"nov-{self.novelty}"]
            if self.verify != "engine":
                parts.append("verify-llm")
            if self.actions != "llm":
                parts.append("actions-engine")
            if self.successors != "llm" and self.mapping == "esa":
                parts.append("succ-engine")

        parts.append(mode_name(self.thinking))
        return " ".join(parts)

    def to_dict(self) -> dict:
        out = asdict(self)
        settings = out.pop("settings")
        if settings:  # only when set: runs of methods without settings keep their identity
            out["settings"] = dict(settings)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "SearchConfig":
        if "temperature" in data and "cat_temperature" not in data:  # runs made before issue 32
            data = {**data, "cat_temperature": data["temperature"]}
        data = {**data, "settings": tuple(sorted((data.get("settings") or {}).items()))}
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def with_settings(self, values: dict) -> "SearchConfig":
        """This configuration with the method's own settings ``values`` (None: not given)."""
        given = {k: v for k, v in values.items() if v is not None}
        return SearchConfig.from_dict({**self.to_dict(), "settings": given})


def declared_flag(name: str) -> str:
    return "--" + name.replace("_", "-")
