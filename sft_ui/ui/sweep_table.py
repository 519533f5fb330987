"""The sweep panel's ranked table (ui/sweep_panel.py): a row a trial, best first, in the
page's language: its place, settings by their labels, score, what it trained, time, state
and why it ended, and its run by the end of its id."""
from __future__ import annotations

import pandas as pd

from sft_ui.i18n.message import Message
from sft_ui.sweeps.stored import SweepSnapshot
from sft_ui.ui.lang import compact_duration, say
from sft_ui.ui.widgets import settings_said

COLUMNS = ("Place", "Trial", "Settings", "Score", "Trained", "Time", "State", "Run")
# why a trial's training ended (sweeps/trial.py), said after its state
ENDED = {"plateau": Message("held-out plateau"), "budget": Message("its time share ended"),
         "length": Message("its whole length")}
# (the table fits the panel at 1366 px; a run by the end of its id, which the Runs tab
# and the Best line say whole)
WIDTHS: list[str | int] = ["10%", "9%", "20%", "10%", "15%", "10%", "14%", "12%"]


def _short(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def frame(found: SweepSnapshot | None) -> pd.DataFrame:
    """The ranked table: best first; a pruned or failed trial last, with its reason."""
    rows, score = [], (found["spec"].get("score", "eval_loss") if found else "eval_loss")
    for place, t in enumerate((found["trials"] if found else []), 1):
        scored = t["score"] is not None and not t["pruned"]
        state = say(pruned_said(t)) if t["pruned"] else say(t["state"])
        if t.get("error"):
            state += f": {say(t['error'])}"
        if t.get("ended_by") in ENDED and t["state"] == "done":
            state = say(Message("{state}, {why}", state=Message(t["state"]),
                                why=ENDED[t["ended_by"]]))
        rows.append([place if scored else "--", t["number"],
                     settings_said(t["params"], _short),
                     f"{t['score']:.4g}" if shown_score(t, score) else "--",
                     trained(t), compact_duration(t["seconds"]) if t.get("seconds") else "--",
                     state, t["run_id"].rsplit("-", 1)[-1] if t["run_id"] else "--"])
    return pd.DataFrame(rows, columns=[say(c) for c in COLUMNS])


def shown_score(trial: dict, score: str) -> bool:
    """Whether the trial's score is shown, in the table and the plot: a whole trial's only
    (a pruned one's eval loss is said with its state, never beside scores of runs that
    trained to their end; a sweep file of before kept it as its score)."""
    return trial["score"] is not None and not trial["pruned"]


def pruned_said(trial: dict) -> Message:
    """A pruned trial's state: the step it was stopped at and its last eval loss."""
    loss = trial.get("pruned_loss")
    if not trial.get("steps"):
        return Message("pruned")
    if loss is None:
        return Message("pruned at step {step}", step=trial["steps"])
    return Message("pruned at step {step} (eval loss {loss})", step=trial["steps"],
                   loss=f"{loss:.4g}")


def trained(trial: dict) -> str:
    """A trial's steps and epochs ("140 steps, 10 epochs"), or "--" before it has
    trained."""
    if not trial.get("steps"):
        return "--"
    epochs = trial.get("epochs")
    return say(Message("{steps} steps", steps=trial["steps"])) if not epochs else \
        say(Message("{steps} steps, {epochs} epochs", steps=trial["steps"],
                    epochs=f"{epochs:g}"))
