"""What the sweep panel's buttons, timer and page load do (ui/sweep_panel.py binds them):
each a method of SweepHandlers that tests call without building the page. Knows the
actions (actions.py) and the sweep's snapshot, nothing of the widgets."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from sft_ui.actions import Actions
from sft_ui.config import RunConfig
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.sweeps import SweepSpec, parse_vary, vary_text
from sft_ui.sweeps.score import kept_quick_said
from sft_ui.sweeps.stored import SweepSnapshot
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import compact_duration, note, problem, problems, say
from sft_ui.ui.sweep_table import frame, shown_score
from sft_ui.ui.widgets import config_to_values, setting_label, values_to_dict

PAUSE_SAID = 5.0  # seconds of a sweep's clock paused behind other runs the page says
SHOWN = 8  # what `shown` fills: notice, table, curves, against, scores, timer, resume, stop
FORM = 6  # the form `opened` fills: vary, method, budget, trials, score, eval file


class SweepHandlers:
    """`names`: the page's settings, in the order of the values Start and Use the best
    take and give."""

    def __init__(self, actions: Actions, names: list[str]):
        self.actions, self.names = actions, names

    def curves_of(self, found: SweepSnapshot | None):
        """The trials' eval losses, one line a trial (its axes in the page's language);
        their held-out exact match where that is the sweep's score and they have one."""
        rows, score = [], (found["spec"].get("score") if found else None)
        if score == "exact_match":
            key, title, label = ("eval_exact_match", say("Exact match"),
                                 say("Held-out exact match by trial"))
        else:
            key, title, label = "eval_loss", say("Eval loss"), say("Eval loss by trial")
        for t in (found["trials"] if found else []):
            if not t["run_id"]:
                continue
            try:
                run = self.actions.manager.get(t["run_id"])
            except UserError:
                continue
            rows += [(m["step"], m[key], f"{t['number']}") for m in run.metrics if key in m]
        return gr.LinePlot(pd.DataFrame(rows, columns=["step", "eval loss", "trial"]),
                           x_title=say("step"), y_title=title, color_title=say("Trial"),
                           label=label)

    def scores_of(self, found: SweepSnapshot | None, name: str | None):
        """Each scored trial's score against its value of `name`."""
        score = (found["spec"].get("score", "eval_loss") if found else "eval_loss")
        rows = [(t["params"].get(name), t["score"], f"{t['number']}")
                for t in (found["trials"] if found else [])
                if shown_score(t, score) and name in t["params"]]
        return gr.ScatterPlot(pd.DataFrame(rows, columns=["value", "score", "trial"]),
                              x_title=setting_label(name) if name else say("value"),
                              y_title=say("Score"), color_title=say("Trial"),
                              x_lim=_room([r[0] for r in rows]),
                              # (gradio's type leaves out its default, None)
                              y_lim=_room([r[1] for r in rows]))  # type: ignore[arg-type]

    def shown(self, found: SweepSnapshot | None, against: str | None = None, damaged=()):
        """What the panel shows of a sweep (None: none); `damaged`: sweep files the app
        could not read, said under it."""
        cut = [Message("The sweep file {file} could not be read (cut short or damaged): it "
                       "is left as it is in the runs folder's sweeps/ and not listed.",
                       file=name) for name in damaged]
        if not found:
            return (note(cut[0], cut[1:]) if cut else "", frame(None), self.curves_of(None),
                    gr.Dropdown(choices=[], value=None),
                    self.scores_of(None, None), gr.Timer(active=False), gr.Button(visible=False),
                    gr.Button(interactive=False))
        varied = list(found["spec"]["vary"])
        against = against if against in varied else (varied[0] if varied else None)
        running = found["state"] == "running"
        done = len([t for t in found["trials"] if t["seconds"] is not None])
        line = Message("Sweep {id}: {state}, {done} of {planned} trials, {seconds} of "
                       "{budget}.", id=found["id"], state=Message(found["state"]), done=done,
                       planned=found["planned"], seconds=compact_duration(found["seconds"]),
                       budget=compact_duration(found["spec"]["budget_minutes"] * 60))
        more = [Message("Best: trial {number} (run {run})", number=found["best"]["number"],
                        run=found["best"]["run_id"])] if found["best"] else []
        if kept := found.get("kept_quick"):
            more.append(kept_quick_said(kept))
        if found.get("paused", 0) >= PAUSE_SAID:
            more.append(Message("The sweep's clock paused for {seconds} while other runs of "
                                "the queue trained.",
                                seconds=compact_duration(found["paused"])))
        return (note(line, more + ([found["error"]] if found["error"] else []) + cut),
                frame(found),
                self.curves_of(found), gr.Dropdown(choices=[(setting_label(name), name) for name
                                                        in varied], value=against),
                self.scores_of(found, against), gr.Timer(active=running),
                gr.Button(visible=found["state"] == "interrupted"),
                gr.Button(interactive=running))  # (Stop sweep: only while one runs)

    def found_of(self, request: gr.Request, sweep_id: str) -> SweepSnapshot | None:
        """The sweep the page follows, else the person's latest (None: they have none)."""
        try:
            return self.actions.sweep(who(request), sweep_id)
        except UserError:
            return self.actions.sweep(who(request), "")

    def latest(self, request: gr.Request, sweep_id: str, against=None):
        found = self.found_of(request, sweep_id)
        damaged = self.actions.damaged_sweeps(who(request))
        return (found["id"] if found else "", *self.shown(found, against, damaged))

    def opened(self, request: gr.Request, sweep_id: str):
        """The page opened (or came back after a restart): the person's latest sweep, and
        its form as they filled it in."""
        found = self.found_of(request, sweep_id)
        damaged = self.actions.damaged_sweeps(who(request))
        said = (found["id"] if found else "", *self.shown(found, None, damaged))
        if not found:
            return (*said, *[gr.update()] * FORM)
        spec = found["spec"]
        return (*said, vary_text(SweepSpec.from_dict(spec).vary), spec["method"],
                spec["budget_minutes"], spec.get("trials", 0), spec["score"],
                spec.get("eval_file", ""))

    def on_eval_upload(self, request: gr.Request, path):
        """An uploaded eval file, kept in this person's upload folder: its path in the box
        (a person on a Space cannot type a path of the server)."""
        try:
            return self.actions.upload(who(request), path), ""
        except UserError as e:
            return gr.update(), problem("Cannot use this file:", e)

    def on_resume(self, request: gr.Request, sweep_id, hf_token):
        try:
            found = self.actions.resume_sweep(who(request), sweep_id, hf_token or "")
        except UserError as e:
            return (sweep_id, problems("Cannot resume the sweep:", e),
                    *[gr.update()] * (SHOWN - 1))
        return (found["id"], *self.shown(found))

    def on_add(self, name, text, *values):
        if not name:
            return gr.update(), gr.update()
        cfg_value = dict(zip(self.names, values)).get(name)
        if cfg_value is None:
            cfg_value = getattr(RunConfig(), name)
        lines = [line for line in str(text or "").splitlines()
                 if line.split(":")[0].strip() != name]
        return "\n".join(lines + [suggestion(name, cfg_value)]), None

    def on_start(self, request: gr.Request, text, method, budget, trials, score, eval_file,
                 hf_token, *values):
        try:
            found = self.actions.start_sweep(who(request), {
                "base": values_to_dict(self.names, values), "vary": _vary(text),
                "method": method, "budget_minutes": budget or 0, "trials": int(trials or 0),
                "score": score, "eval_file": eval_file or ""}, hf_token or "")
        except UserError as e:
            return (gr.update(), problems("Cannot start the sweep:", e),
                    *[gr.update()] * (SHOWN - 1))
        return (found["id"], *self.shown(found))

    def on_stop(self, request: gr.Request, sweep_id):
        try:
            self.actions.stop_sweep(who(request), sweep_id)
        except UserError as e:
            return (sweep_id, problems("Cannot stop the sweep:", e),
                    *[gr.update()] * (SHOWN - 1))
        return self.latest(request, sweep_id)

    def on_best(self, request: gr.Request, sweep_id):
        try:
            cfg, run_id = self.actions.best_of_sweep(who(request), sweep_id)
        except UserError as e:
            return (problems("No best trial yet:", e), *[gr.update()] * len(self.names))
        name = self.actions.manager.get(run_id).name  # ("sweep-4fd9 #2 ★", as the lists say)
        label = run_id if name == run_id else f"{name} · {run_id}"
        said = Message("The page holds the best trial's settings (run {run}, with what its "
                       "time budget chose). Its model is run {run2} in Chat, Compare, "
                       "Evaluate and Export.", run=label, run2=label)
        return (note(said), *config_to_values(cfg, self.names))


def suggestion(name: str, value) -> str:
    """A line for the box: values around the page's own (a number the page sends as
    text read as one)."""
    if isinstance(value, str):
        try:
            value = int(value) if value.strip().lstrip("-").isdigit() else float(value)
        except ValueError:
            return f"{name}: "
    if name in ("lora_r", "lora_alpha"):
        return f"{name}: 8, 16, 32"
    if isinstance(value, bool) or value in (None, 0, 0.0):
        return f"{name}: "
    if isinstance(value, int):
        return f"{name}: {max(1, value // 2)}, {value}, {value * 2}"
    return f"{name}: {value / 3:.2g}, {value:.2g}, {value * 3:.2g}"


def _room(values: list) -> list[float | None] | None:  # (gradio's type of an axis' limits)
    """Axis limits a twentieth wider than the values on each side (a point at the edge
    was drawn half outside the chart); None where they are not numbers."""
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                             for v in values):
        return None
    low, high = min(values), max(values)
    pad = (high - low) / 20 or abs(high) / 20 or 1
    return [low - pad, high + pad]


def _vary(text: str) -> dict:
    """The box's settings to vary (its problems raised as the sweep's)."""
    return {name: v if isinstance(v, list) else {"low": v.low, "high": v.high, "log": v.log}
            for name, v in parse_vary(text).items()}

