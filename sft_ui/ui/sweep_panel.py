"""The sweep panel of the Train tab (sweeps/): the settings to vary, one a line (a list of
values, or a range), the search (grid, random, Optuna), the whole sweep's time budget,
the score that judges each trial on held-out data; then, while it runs and after, the
ranked table, the trials' eval curves side by side, the score against a varied setting,
and Use the best (its settings into the page; its run is in Chat, Compare and Export)."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.config.registry import applies, field
from sft_ui.sweeps import VARIABLE
from sft_ui.ui.lang import (
    T,
    after_switch,
    keep,
    page,
    say,
)
from sft_ui.ui.sweep_handlers import FORM, SHOWN, SweepHandlers
from sft_ui.ui.sweep_table import WIDTHS, frame
from sft_ui.ui.widgets import AFTER_EACH

METHOD_LABELS = {"grid": "Grid", "random": "Random", "optuna": "Model-based (Optuna)"}
SCORE_LABELS = {"eval_loss": "Eval loss (held-out rows)", "exact_match": "Exact match",
                "rougeL": "ROUGE-L", "json_valid": "JSON valid",
                "reward": "Rewards' mean (held-out prompts)"}
EXAMPLE = "learning_rate: 1e-4, 3e-4, 1e-3\nlora_r: 8, 16"


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
            eval_upload = gr.UploadButton(
                T("Upload an eval file"),  # type: ignore[arg-type]  # (gradio takes I18nData)
                size="sm", scale=1, elem_id="sweep-eval-upload")
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


def wire(p: SweepPanel, names: list[str], inputs: list, actions: Actions,
         token: gr.Textbox) -> None:
    """The panel's buttons, its timer (ticks while a sweep of this page runs), a page
    opened and a language switch (the person's latest sweep shown). `token`: the page's
    Hugging Face token box, for trials on Hugging Face Jobs (several at once there)."""
    h = SweepHandlers(actions, names)
    shown_out = [p.notice, p.table, p.curves, p.against, p.scores, p.timer, p.resume, p.stop]
    form = [p.vary, p.method, p.budget, p.trials, p.score, p.eval_file]
    assert len(shown_out) == SHOWN and len(form) == FORM
    p.add_setting.change(h.on_add, [p.add_setting, p.vary, *inputs], [p.vary, p.add_setting],
                         api_visibility="private", show_progress="hidden")
    stage = inputs[names.index("stage")]
    stage.change(lambda chosen: gr.Dropdown(choices=_offered(chosen), value=None), stage,
                 p.add_setting, api_visibility="private", show_progress="hidden",
                 trigger_mode=AFTER_EACH)
    p.start.click(h.on_start, [p.vary, p.method, p.budget, p.trials, p.score, p.eval_file,
                               token, *inputs], [p.sweep_id, *shown_out], api_visibility="private")
    p.stop.click(h.on_stop, p.sweep_id, [p.sweep_id, *shown_out], api_visibility="private")
    p.resume.click(h.on_resume, [p.sweep_id, token], [p.sweep_id, *shown_out],
                   api_visibility="private")
    p.eval_upload.upload(h.on_eval_upload, p.eval_upload, [p.eval_file, p.notice],
                         api_visibility="private")
    p.best.click(h.on_best, p.sweep_id, [p.notice, *inputs], api_visibility="private",
                 show_progress_on=p.best)  # (not on each setting: see test_page)
    p.timer.tick(h.latest, [p.sweep_id, p.against], [p.sweep_id, *shown_out],
                 api_visibility="private", show_progress="hidden")
    p.against.input(h.latest, [p.sweep_id, p.against], [p.sweep_id, *shown_out],
                    api_visibility="private", show_progress="hidden")
    keep(p.notice)
    page().load(h.opened, [p.sweep_id], [p.sweep_id, *shown_out, *form],
                api_visibility="private", show_progress="hidden",
                show_progress_on=p.notice)  # (see test_page)
    after_switch(h.latest, [p.sweep_id, p.against], [p.sweep_id, *shown_out])
