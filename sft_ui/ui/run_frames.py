"""The data the live view draws, from a run snapshot: the loss (train raw and smoothed,
eval), the series of the stage's own plots (stages/base.py's Plot: a preference run's
rewards and reward accuracy, a GRPO run's reward and its shares), learning rate and grad
norm, and the samples table; series names and headers in the request's language (say),
with their colours. Frames only: ui/live_view.py sends them to the page.
"""
from __future__ import annotations

import pandas as pd

from sft_ui.runs.snapshot import RunSnapshot
from sft_ui.stages import get
from sft_ui.ui.lang import say

SAMPLE_COLUMNS = ["step", "prompt", "completion"]  # English; headers in the page's language
# A text run's samples (data/openings.py): the header of their "reference", the text's
# own continuation of the opening
REFERENCE_COLUMNS = ["true continuation"]
# The loss series by their English names; the plot gets them in the page's language, with
# a colour map that follows (loss_colours).
LOSS_COLOURS = {"train": "#93c5fd", "train (smoothed)": "#1d4ed8", "eval": "#dc2626"}
# A preference run's reward series (TRL's metric -> its English name), with their colours;
# the plots show only for a run that logs them.
REWARDS = {"rewards/chosen": "chosen", "rewards/rejected": "rejected",
           "rewards/margins": "margin", "eval_rewards/margins": "eval margin"}
REWARD_COLOURS = {"chosen": "#16a34a", "rejected": "#dc2626", "margin": "#7c3aed",
                  "eval margin": "#f59e0b", "reward": "#1d4ed8", "eval reward": "#f59e0b"}
# The reward accuracy of the training batches, and of the eval pairs when there are some.
ACCURACY = {"rewards/accuracies": "accuracy", "eval_rewards/accuracies": "eval accuracy"}
ACCURACY_COLOURS = {"accuracy": "#1d4ed8", "eval accuracy": "#dc2626",
                    "no spread": "#dc2626", "cut at the limit": "#6b7280"}
# Series no map names (a GRPO run's reward functions) take these, in name order.
PALETTE = ["#0891b2", "#ca8a04", "#db2777", "#65a30d", "#9333ea", "#4b5563"]
SMOOTHING = 0.6  # exponential moving average weight, as TensorBoard's default
# The stage plots' series where the stage names none (stages/base.py's Plot.series).
OWN_SERIES = {"rewards": tuple(REWARDS.items()), "accuracy": tuple(ACCURACY.items())}


def plot_series(snap: RunSnapshot | None, part: str) -> tuple:
    """(metric, English name) of the stage plot `part` of the shown run."""
    plot = stage_plots(snap).get(part)
    return plot.series if plot and plot.series else OWN_SERIES[part]


def series_name(series: tuple, key: str) -> str | None:
    """The English series name of metric `key` in `series`, or None."""
    for metric, name in series:
        if "*" not in metric and key == metric:
            return name
        head, _, tail = metric.partition("*")
        if "*" in metric and key.startswith(head) and key.endswith(tail) and \
                len(key) > len(head) + len(tail):
            return name.format(key[len(head):len(key) - len(tail)])
    return None


def stage_plots(snap: RunSnapshot | None) -> dict:
    """The plots of the shown run's stage by their part ("rewards", "accuracy")."""
    stage = get((snap.get("config") or {}).get("stage", "") if snap else "")
    return {p.key: p for p in stage.plots} if stage else {}


def _frame(rows: list[tuple]) -> pd.DataFrame | None:
    # No frame rather than an empty one: the plot fixes its axis and colour encodings
    # from the first frame it gets, and an empty frame would leave them untyped.
    if not rows:
        return None
    return pd.DataFrame({"step": pd.Series([r[0] for r in rows], dtype="int64"),
                         "value": pd.Series([_figure(r[1]) for r in rows], dtype="float64"),
                         "series": pd.Series([r[2] for r in rows], dtype="object")})


def _figure(value: float) -> float:
    """4 significant digits: what the plot's tooltip shows ("loss 2.278", not
    2.2781023979); a learning rate of 1.667e-05 keeps its digits too."""
    return float(f"{value:.4g}")


# The least span of the step axis, in steps. Its ticks are whole steps (the axis' format
# "d" asks Vega for a tick step of 1 at least), but over a span of 1 or 2 steps Vega's nice
# ticks still fall on halves, which "d" rounds: "1 2 2 3 3". From 3 steps on they are whole.
STEP_SPAN = 3


def step_limits(frame: pd.DataFrame | None) -> list[int] | None:
    """The step axis' range of a plot of `frame`: its first to its last step, widened to
    span STEP_SPAN steps at least (whole-step ticks, none twice); None for no frame."""
    if frame is None or not len(frame):
        return None
    first, last = int(frame["step"].min()), int(frame["step"].max())
    return [first, max(last, first + STEP_SPAN)]


def smooth(values: list[float], weight: float = SMOOTHING) -> list[float]:
    """Debiased exponential moving average (TensorBoard's smoothing)."""
    out, avg = [], 0.0
    for n, v in enumerate(values, 1):
        avg = weight * avg + (1 - weight) * v
        out.append(avg / (1 - weight ** n))
    return out


def loss_frame(snap: RunSnapshot | None) -> pd.DataFrame | None:
    """Train, smoothed and eval loss, the series named in the request's language."""
    metrics = (snap.get("metrics", []) if snap else [])
    train = [(m["step"], m["loss"]) for m in metrics if "loss" in m]
    rows = [(s, v, say("train")) for s, v in train]
    rows += [(s, v, say("train (smoothed)"))
             for (s, _), v in zip(train, smooth([v for _, v in train]))]
    rows += [(m["step"], m["eval_loss"], say("eval")) for m in metrics if "eval_loss" in m]
    return _frame(rows)


def loss_colours(shown=None, colours: dict[str, str] = LOSS_COLOURS) -> dict[str, str]:
    """The colour of each loss series (or of `colours`' series) by its name in the
    request's language: of those named in `shown` (the series a plot shows), else of all.
    A map that changes with the series shown (eval appearing, another language) makes the
    plot redraw them."""
    known = {say(name): colour for name, colour in colours.items()
             if shown is None or say(name) in shown}
    others = sorted(set(shown or ()) - set(known) - {say(name) for name in colours})
    return {**known, **{name: PALETTE[i % len(PALETTE)] for i, name in enumerate(others)}}


def stage_frame(snap: RunSnapshot | None, part: str) -> pd.DataFrame | None:
    """The series of the stage plot `part` ("rewards", "accuracy"), named in the request's
    language; None for a run without them. A preference run's: the rewards of the chosen
    and rejected answers and their margin, and how often the chosen answer's reward beat
    the rejected one's; a GRPO run's: its reward (total and each function's) and the
    shares of prompts with no reward spread and of answers cut at the limit."""
    series = plot_series(snap, part)
    rows = []
    for m in (snap.get("metrics", []) if snap else []):
        for key, value in m.items():
            name = series_name(series, key)
            if name is not None and isinstance(value, (int, float)):
                rows.append((m["step"], value, say(name)))
    return _frame(rows)


def reward_frame(snap: RunSnapshot | None) -> pd.DataFrame | None:
    return stage_frame(snap, "rewards")


def accuracy_frame(snap: RunSnapshot | None) -> pd.DataFrame | None:
    return stage_frame(snap, "accuracy")


def metric_frame(snap: RunSnapshot | None, key: str) -> pd.DataFrame | None:
    return _frame([(m["step"], m[key], key) for m in (snap.get("metrics", []) if snap else [])
                   if key in m])


def samples_frame(snap: RunSnapshot | None) -> pd.DataFrame:
    """The samples, newest first, under headers in the request's language."""
    rows = list(reversed((snap.get("samples", []) if snap else [])))  # newest first
    # A GRPO run's answers come with their reward (each function's score) and advantage.
    # A text run's continuations come with the text's own (data/openings.py).
    columns = SAMPLE_COLUMNS + (["reward"] if any("reward" in r for r in rows) else []) + \
        (["reference"] if any(r.get("reference") for r in rows) else [])
    frame = pd.DataFrame(rows, columns=columns)
    shown = [REFERENCE_COLUMNS[0] if c == "reference" else c for c in columns]
    return frame.set_axis([say(c) for c in shown], axis=1)
