"""The sweep panel of the Train tab (sweeps/): the settings to vary, one a line (a list of
values, or a range), the search (grid, random, Optuna), the whole sweep's time budget,
the score that judges each trial on held-out data; then, while it runs and after, the
ranked table, the trials' eval curves side by side, the score against a varied setting,
and Use the best (its settings into the page; its run is in Chat, Compare and Export)."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr
import pandas as pd
from gradio.context import Context

from sft_ui.actions import Actions
from sft_ui.config import RunConfig
from sft_ui.config.registry import applies, field
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.sweeps import VARIABLE, SweepSpec, parse_vary, vary_text
from sft_ui.sweeps.score import kept_quick_said
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import (
    T,
    after_switch,
    compact_duration,
    keep,
    note,
    problem,
    problems,
    say,
)
from sft_ui.ui.sweep_table import WIDTHS, frame, shown_score
from sft_ui.ui.widgets import AFTER_EACH, config_to_values, setting_label, values_to_dict

METHOD_LABELS = {"grid": "Grid", "random": "Random", "optuna": "Model-based (Optuna)"}
SCORE_LABELS = {"eval_loss": "Eval loss (held-out rows)", "exact_match": "Exact match",
                "rougeL": "ROUGE-L", "json_valid": "JSON valid",
                "reward": "Rewards' mean (held-out prompts)"}
EXAMPLE = "learning_rate: 1e-4, 3e-4, 1e-3\nlora_r: 8, 16"
PAUSE_SAID = 5.0  # seconds of a sweep's clock paused behind other runs the page says


@dataclass
class SweepPanel:
    add_setting: gr.Dropdown
    vary: gr.Textbox
    method: gr.Radio
    budget: gr.Number
    trials: gr.Number
    score: gr.Dropdown
    eval_file: gr.Textbox
    eval_upload: gr.UploadButton
    start: gr.Button
    stop: gr.Button
    resume: gr.Button
    best: gr.Button
    notice: gr.Markdown
    table: gr.Dataframe
    curves: gr.LinePlot
    against: gr.Dropdown
    scores: gr.ScatterPlot
    sweep_id: gr.State
    timer: gr.Timer


def build() -> SweepPanel:
    with gr.Accordion(T("Sweep: try several settings, keep the best"), open=False,
                      elem_id="sweep-panel"):
        gr.Markdown(T("Each trial is a run in the queue, judged on held-out data, never on "
                      "its training loss; the time budget holds for the whole sweep."))
        add_setting = gr.Dropdown(_offered("sft", T), value=None,
                                  label=T("Add a setting to vary"), elem_id="sweep-add")
        vary = gr.Textbox(label=T("Settings to vary"), lines=3, elem_id="sweep-vary",
                          placeholder=EXAMPLE,
                          info=T("One a line: 'setting: value, value' (a list) or 'setting: "
                                 "low .. high' (a range; 'log' after it spreads it by "
                                 "ratio)."))
        with gr.Row():
            method = gr.Radio([(T(label), name) for name, label in METHOD_LABELS.items()],
                              value="grid", label=T("Search"), elem_id="sweep-method")
            score = gr.Dropdown([(T(label), name) for name, label in SCORE_LABELS.items()],
                                value="eval_loss", label=T("Judged by"),
                                elem_id="sweep-score")
        with gr.Row():
            budget = gr.Number(15, label=T("Time for the whole sweep (minutes)"),
                               minimum=1, elem_id="sweep-budget")
            trials = gr.Number(0, label=T("Trials (0: as many as fit)"), minimum=0,
                               precision=0, elem_id="sweep-trials")
        with gr.Row(equal_height=True):
            eval_file = gr.Textbox(label=T("Eval file"), elem_id="sweep-eval-file", scale=4,
                                   info=T("For an Evaluate score or the rewards' mean: a "
                                          "file of held-out rows (blank: the rows each "
                                          "trial holds out)."))
            eval_upload = gr.UploadButton(T("Upload an eval file"), size="sm", scale=1,
                                          elem_id="sweep-eval-upload")
        with gr.Row():
            start = gr.Button(T("Start sweep"), variant="primary", elem_id="sweep-start")
            stop = gr.Button(T("Stop sweep"), variant="stop", elem_id="sweep-stop",
                             interactive=False)
            resume = gr.Button(T("Resume sweep"), elem_id="sweep-resume", visible=False)
            best = gr.Button(T("Use the best"), elem_id="sweep-best")
        notice = gr.Markdown(elem_id="sweep-notice")
        table = gr.Dataframe(frame(None), interactive=False, wrap=True, show_label=False,
                             elem_id="sweep-table", column_widths=WIDTHS)
        curves = gr.LinePlot(x="step", y="eval loss", color="trial", label=T("Eval loss by "
                             "trial"), elem_id="sweep-curves", height=220)
        against = gr.Dropdown([], label=T("Score against"), elem_id="sweep-against")
        scores = gr.ScatterPlot(x="value", y="score", color="trial",
                                label=T("Score against a varied setting"),
                                elem_id="sweep-scores", height=220)
    return SweepPanel(add_setting, vary, method, budget, trials, score, eval_file,
                      eval_upload, start, stop, resume, best, notice, table, curves, against,
                      scores, gr.State(""), gr.Timer(2.0, active=False))


def _offered(stage: str, said=say) -> list[tuple]:
    """Add a setting's choices: the settings a sweep may vary that apply to the stage,
    each by its label (`said`: T while the page is built, say in an answer)."""
    return [(said(field(name).metadata["label"]), name) for name in VARIABLE
            if applies(name, stage)]


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


def wire(p: SweepPanel, names: list[str], inputs: list, actions: Actions,
         token: gr.Textbox) -> None:
    """The panel's buttons, its timer (ticks while a sweep of this page runs), a page
    opened and a language switch (the person's latest sweep shown). `token`: the page's
    Hugging Face token box, for trials on Hugging Face Jobs (several at once there)."""
    shown_out = [p.notice, p.table, p.curves, p.against, p.scores, p.timer, p.resume, p.stop]
    form = [p.vary, p.method, p.budget, p.trials, p.score, p.eval_file]

    def curves_of(found: dict | None):
        """The trials' eval losses, one line a trial (its axes in the page's language);
        their held-out exact match where that is the sweep's score and they have one."""
        rows, score = [], (found or {}).get("spec", {}).get("score")
        if score == "exact_match":
            key, title, label = ("eval_exact_match", say("Exact match"),
                                 say("Held-out exact match by trial"))
        else:
            key, title, label = "eval_loss", say("Eval loss"), say("Eval loss by trial")
        for t in (found or {}).get("trials", []):
            if not t["run_id"]:
                continue
            try:
                run = actions.manager.get(t["run_id"])
            except UserError:
                continue
            rows += [(m["step"], m[key], f"{t['number']}") for m in run.metrics if key in m]
        return gr.LinePlot(pd.DataFrame(rows, columns=["step", "eval loss", "trial"]),
                           x_title=say("step"), y_title=title, color_title=say("Trial"),
                           label=label)

    def scores_of(found: dict | None, name: str | None):
        """Each scored trial's score against its value of `name`."""
        score = (found or {}).get("spec", {}).get("score", "eval_loss")
        rows = [(t["params"].get(name), t["score"], f"{t['number']}")
                for t in (found or {}).get("trials", [])
                if shown_score(t, score) and name in t["params"]]
        return gr.ScatterPlot(pd.DataFrame(rows, columns=["value", "score", "trial"]),
                              x_title=setting_label(name) if name else say("value"),
                              y_title=say("Score"), color_title=say("Trial"),
                              x_lim=_room([r[0] for r in rows]),
                              y_lim=_room([r[1] for r in rows]))

    def shown(found: dict | None, against: str | None = None):
        if not found:
            return ("", frame(None), curves_of(None), gr.Dropdown(choices=[], value=None),
                    scores_of(None, None), gr.Timer(active=False), gr.Button(visible=False),
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
        if found.get("kept_quick"):
            more.append(kept_quick_said(found["kept_quick"]))
        if found.get("paused", 0) >= PAUSE_SAID:
            more.append(Message("The sweep's clock paused for {seconds} while other runs of "
                                "the queue trained.",
                                seconds=compact_duration(found["paused"])))
        return (note(line, more + ([found["error"]] if found["error"] else [])),
                frame(found),
                curves_of(found), gr.Dropdown(choices=[(setting_label(name), name) for name
                                                        in varied], value=against),
                scores_of(found, against), gr.Timer(active=running),
                gr.Button(visible=found["state"] == "interrupted"),
                gr.Button(interactive=running))  # (Stop sweep: only while one runs)

    def found_of(request: gr.Request, sweep_id: str) -> dict | None:
        """The sweep the page follows, else the person's latest (None: they have none)."""
        try:
            return actions.sweep(who(request), sweep_id)
        except UserError:
            return actions.sweep(who(request), "")

    def latest(request: gr.Request, sweep_id: str, against=None):
        found = found_of(request, sweep_id)
        return (found["id"] if found else "", *shown(found, against))

    def opened(request: gr.Request, sweep_id: str):
        """The page opened (or came back after a restart): the person's latest sweep, and
        its form as they filled it in."""
        found = found_of(request, sweep_id)
        said = (found["id"] if found else "", *shown(found))
        if not found:
            return (*said, *[gr.update()] * len(form))
        spec = found["spec"]
        return (*said, vary_text(SweepSpec.from_dict(spec).vary), spec["method"],
                spec["budget_minutes"], spec.get("trials", 0), spec["score"],
                spec.get("eval_file", ""))

    def on_eval_upload(request: gr.Request, path):
        """An uploaded eval file, kept in this person's upload folder: its path in the box
        (a person on a Space cannot type a path of the server)."""
        try:
            return actions.upload(who(request), path), ""
        except UserError as e:
            return gr.update(), problem("Cannot use this file:", e)

    def on_resume(request: gr.Request, sweep_id, hf_token):
        try:
            found = actions.resume_sweep(who(request), sweep_id, hf_token or "")
        except UserError as e:
            return (sweep_id, problems("Cannot resume the sweep:", e),
                    *[gr.update()] * (len(shown_out) - 1))
        return (found["id"], *shown(found))

    def on_add(name, text, *values):
        if not name:
            return gr.update(), gr.update()
        cfg_value = dict(zip(names, values)).get(name)
        if cfg_value is None:
            cfg_value = getattr(RunConfig(), name)
        lines = [line for line in str(text or "").splitlines()
                 if line.split(":")[0].strip() != name]
        return "\n".join(lines + [suggestion(name, cfg_value)]), None

    def on_start(request: gr.Request, text, method, budget, trials, score, eval_file,
                 hf_token, *values):
        try:
            found = actions.start_sweep(who(request), {
                "base": values_to_dict(names, values), "vary": _vary(text),
                "method": method, "budget_minutes": budget or 0, "trials": int(trials or 0),
                "score": score, "eval_file": eval_file or ""}, hf_token or "")
        except UserError as e:
            return (gr.update(), problems("Cannot start the sweep:", e),
                    *[gr.update()] * (len(shown_out) - 1))
        return (found["id"], *shown(found))

    def on_stop(request: gr.Request, sweep_id):
        try:
            actions.stop_sweep(who(request), sweep_id)
        except UserError as e:
            return (sweep_id, problems("Cannot stop the sweep:", e),
                    *[gr.update()] * (len(shown_out) - 1))
        return latest(request, sweep_id)

    def on_best(request: gr.Request, sweep_id):
        try:
            cfg, run_id = actions.best_of_sweep(who(request), sweep_id)
        except UserError as e:
            return (problems("No best trial yet:", e), *[gr.update()] * len(inputs))
        name = actions.manager.get(run_id).name  # ("sweep-4fd9 #2 ★", as the lists say)
        shown = run_id if name == run_id else f"{name} · {run_id}"
        said = Message("The page holds the best trial's settings (run {run}, with what its "
                       "time budget chose). Its model is run {run2} in Chat, Compare, "
                       "Evaluate and Export.", run=shown, run2=shown)
        return (note(said), *config_to_values(cfg, names))

    p.add_setting.change(on_add, [p.add_setting, p.vary, *inputs], [p.vary, p.add_setting],
                         api_name=False, show_progress="hidden")
    stage = inputs[names.index("stage")]
    stage.change(lambda chosen: gr.Dropdown(choices=_offered(chosen), value=None), stage,
                 p.add_setting, api_name=False, show_progress="hidden",
                 trigger_mode=AFTER_EACH)
    p.start.click(on_start, [p.vary, p.method, p.budget, p.trials, p.score, p.eval_file,
                             token, *inputs], [p.sweep_id, *shown_out], api_name=False)
    p.stop.click(on_stop, p.sweep_id, [p.sweep_id, *shown_out], api_name=False)
    p.resume.click(on_resume, [p.sweep_id, token], [p.sweep_id, *shown_out], api_name=False)
    p.eval_upload.upload(on_eval_upload, p.eval_upload, [p.eval_file, p.notice],
                         api_name=False)
    p.best.click(on_best, p.sweep_id, [p.notice, *inputs], api_name=False,
                 show_progress_on=p.best)  # (not on each setting: see test_page)
    p.timer.tick(latest, [p.sweep_id, p.against], [p.sweep_id, *shown_out], api_name=False,
                 show_progress="hidden")
    p.against.input(latest, [p.sweep_id, p.against], [p.sweep_id, *shown_out],
                    api_name=False, show_progress="hidden")
    keep(p.notice)
    Context.root_block.load(opened, [p.sweep_id], [p.sweep_id, *shown_out, *form],
                            api_name=False, show_progress="hidden",
                            show_progress_on=p.notice)  # (see test_page)
    after_switch(latest, [p.sweep_id, p.against], [p.sweep_id, *shown_out])


def _room(values: list) -> list[float] | None:
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

