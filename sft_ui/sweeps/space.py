"""A sweep's settings: what it varies (each setting a list of values or a range), how it
searches, the score that judges its trials on held-out data, and its time budget; read from
the page's box, from YAML or from the API's dict. Knows nothing of runs.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import random
from dataclasses import dataclass, field

import yaml

from sft_ui.config import ConfigError, RunConfig
from sft_ui.config.registry import applies
from sft_ui.config.values import coerce
from sft_ui.errors import said
from sft_ui.i18n.message import Message
from sft_ui.stages import family_of

# The settings a sweep may vary (their fields say `sweep`), in the page's order; each
# applies to the stages its field says.
VARIABLE = tuple(f.name for f in dataclasses.fields(RunConfig) if f.metadata.get("sweep"))
METHODS = ("grid", "random", "optuna")
# The scores that judge a trial, and whether more is better. eval_loss: on the run's
# held-out rows; the others: the Evaluate tab's scores of its answers to an eval file;
# reward: the rewards' mean on held-out prompts (a family's own "judge" hook).
SCORES = {"eval_loss": False, "exact_match": True, "rougeL": True, "json_valid": True,
          "reward": True}
RANGE_POINTS = 4  # a range in a grid: this many values, evenly spread (log: by ratio)
MAX_TRIALS = 50
MAX_AT_ONCE = 8


@dataclass
class Range:
    low: float
    high: float
    log: bool = False
    integer: bool = False

    def grid(self) -> list:
        if self.low == self.high:
            return [self.low]
        if self.log:
            ratio = (self.high / self.low) ** (1 / (RANGE_POINTS - 1))
            values = [self.low * ratio ** i for i in range(RANGE_POINTS)]
        else:
            step = (self.high - self.low) / (RANGE_POINTS - 1)
            values = [self.low + step * i for i in range(RANGE_POINTS)]
        if self.integer:
            return sorted({round(v) for v in values})
        return [float(f"{v:.3g}") for v in values]

    def draw(self, rng: random.Random):
        if self.log:
            value = math.exp(rng.uniform(math.log(self.low), math.log(self.high)))
        else:
            value = rng.uniform(self.low, self.high)
        return round(value) if self.integer else float(f"{value:.3g}")


@dataclass
class SweepSpec:
    """One sweep: the page's settings (`base`) with `vary`'s settings tried in turn."""
    base: dict = field(default_factory=dict)
    vary: dict = field(default_factory=dict)  # name: list of values, or Range
    method: str = "grid"
    budget_minutes: float = 15.0
    trials: int = 0  # 0: as many as fit the budget (a grid: at most its size)
    score: str = "eval_loss"
    eval_file: str = ""  # what Evaluate's scores answer (blank: the run's held-out rows)
    seed: int = 42
    at_once: int = 3  # trials on Hugging Face Jobs at once (here: one at a time)

    def __post_init__(self):
        self.vary = {name: _values(name, v) for name, v in dict(self.vary).items()}

    @property
    def higher_is_better(self) -> bool:
        return SCORES[self.score]

    def config(self) -> RunConfig:
        return RunConfig.from_dict(self.base)

    def check(self) -> list[str]:
        """What is wrong with the sweep, for a person ([]: nothing)."""
        problems: list[str] = []
        stage = self.config().stage
        own_score = "judge" in family_of(self.config()).hooks  # (its runs' held-out score)
        if self.method not in METHODS:
            problems.append(Message("Search: '{method}' is not one of {join}.",
                                    method=self.method, join=", ".join(METHODS)))
        if not self.vary:
            problems.append(Message("Vary at least one setting: one a line, e.g. "
                                    "'learning_rate: 1e-4, 3e-4, 1e-3'."))
        for name in self.vary:
            if not applies(name, stage):
                problems.append(Message("{name} does not apply to a {stage} run: vary "
                                        "another setting, or choose its stage.", name=name,
                                        stage=stage))
        if not 0 < self.budget_minutes <= 24 * 60:
            problems.append(Message("The sweep's time budget must be more than 0 and at "
                                    "most 1440 minutes."))
        if not 1 <= self.at_once <= MAX_AT_ONCE:
            problems.append(Message("Trials at once (on Hugging Face Jobs) must be from 1 "
                                    "to {MAX_AT_ONCE}.", MAX_AT_ONCE=MAX_AT_ONCE))
        if not 0 <= self.trials <= MAX_TRIALS:
            problems.append(Message("Trials must be from 0 (as many as fit) to "
                                    "{MAX_TRIALS}.", MAX_TRIALS=MAX_TRIALS))
        if self.score not in SCORES:
            problems.append(Message("Score: '{score}' is not one of {join}.",
                                    score=self.score, join=", ".join(SCORES)))
        elif self.score == "reward" and not own_score:
            problems.append(Message("A {stage} run is not scored by rewards: choose "
                                    "eval_loss or an Evaluate score.", stage=stage))
        elif self.score == "eval_loss" and own_score:
            problems.append(Message("A {stage} run has no eval loss: score its trials by "
                                    "the rewards' mean on held-out prompts (reward).",
                                    stage=stage))
        elif self.score == "reward" and not self.eval_file.strip():
            problems.append(Message("The rewards' mean is taken on held-out prompts: give "
                                    "an eval file of prompts the run does not train on."))
        return problems

    def grid(self) -> list[dict]:
        """Every combination of the varied values (a range: RANGE_POINTS of its values)."""
        names = list(self.vary)
        lists = [v.grid() if isinstance(v, Range) else v for v in self.vary.values()]
        return [dict(zip(names, combo)) for combo in itertools.product(*lists)]

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["vary"] = {n: dataclasses.asdict(v) if isinstance(v, Range) else list(v)
                       for n, v in self.vary.items()}
        return out

    @classmethod
    def from_dict(cls, values: dict) -> "SweepSpec":
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError([Message("Unknown sweep setting(s): {join}. Known: {join2}.",
                                       join=", ".join(unknown), join2=", ".join(sorted(known)))])
        try:
            values = dict(values)
            for name, kind in (("budget_minutes", float), ("trials", int), ("seed", int),
                               ("at_once", int)):
                if name in values:
                    values[name] = kind(values[name])
            spec = cls(**values)
        except (TypeError, ValueError) as e:  # (a ConfigError of a varied setting's values:
            # its Messages as they are)
            raise ConfigError(e.messages if isinstance(e, ConfigError) else [str(e)]) from None
        problems = spec.check()
        if problems:
            raise ConfigError(problems)
        return spec

    @classmethod
    def from_yaml(cls, path) -> "SweepSpec":
        """A sweep file: its settings, with `base` a mapping of run settings or the path
        of a run's YAML."""
        with open(path, encoding="utf-8") as handle:
            values = yaml.safe_load(handle) or {}
        if not isinstance(values, dict):
            raise ConfigError([Message("{path} is not a mapping of sweep settings.",
                                       path=str(path))])
        if isinstance(values.get("base"), str):
            values["base"] = RunConfig.from_yaml(values["base"]).to_dict()
        return cls.from_dict(values)


def parse_vary(text: str) -> dict:
    """The page's box: one setting a line, `name: v1, v2, ...` (a list) or
    `name: low .. high` with `log` after it for a range spread by ratio."""
    found: dict[str, object] = {}
    problems: list[str] = []
    for number, line in enumerate(str(text or "").splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, colon, rest = line.partition(":")
        name, rest = name.strip(), rest.strip()
        if not colon or not rest:
            problems.append(Message("Line {number} ('{value}'): write 'setting: value, "
                                    "value' or 'setting: low .. high'.", number=number,
                                    value=line[:40]))
            continue
        if ".." in rest:
            low, _, high = rest.partition("..")
            log = high.strip().endswith("log")
            high = high.strip().removesuffix("log").strip()
            found[name] = {"low": low.strip(), "high": high, "log": log}
        else:
            found[name] = [v.strip() for v in rest.split(",") if v.strip()]
    try:
        found = {name: _values(name, v) for name, v in found.items()}
    except ConfigError as e:
        problems += e.messages
    if problems:
        raise ConfigError(problems)
    return found


def vary_text(vary: dict) -> str:
    """The page's box for `vary` (parse_vary's inverse)."""
    lines = []
    for name, v in vary.items():
        if isinstance(v, Range):
            lines.append(f"{name}: {v.low:g} .. {v.high:g}" + (" log" if v.log else ""))
        else:
            lines.append(f"{name}: " + ", ".join(f"{x:g}" if isinstance(x, float) else str(x)
                                                  for x in v))
    return "\n".join(lines)


def _values(name: str, given):
    """A varied setting's values in its field's type: a list, or a Range."""
    if isinstance(given, Range):
        return given
    if name not in VARIABLE:
        raise ConfigError([Message("A sweep cannot vary '{name}'. It varies: {join}.",
                                   name=name, join=", ".join(VARIABLE))])
    f = next(f for f in dataclasses.fields(RunConfig) if f.name == name)
    try:
        if isinstance(given, dict):
            low, high = coerce(f, given.get("low")), coerce(f, given.get("high"))
            if low > high:
                low, high = high, low
            log = bool(given.get("log", False))
            if log and low <= 0:  # (its message names the setting: raised as it is)
                raise ConfigError([Message("{name}: a range spread by ratio (log) needs "
                                           "values above 0.", name=name)])
            return Range(low, high, log, isinstance(low, int) and not isinstance(low, bool))
        values = given if isinstance(given, (list, tuple)) else [given]
        values = list(dict.fromkeys(coerce(f, v) for v in values))
    except ConfigError:
        raise
    except (TypeError, ValueError) as e:
        raise ConfigError([Message("{name}: {error}", name=name, error=said(e))]) from None
    if not values:
        raise ConfigError([Message("{name}: give at least one value.", name=name)])
    return values
