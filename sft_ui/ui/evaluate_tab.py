"""The Evaluate tab: one or two models (base, runs, checkpoints) answer a test set (an
upload, a path, a Hub id with its split, or a run's eval split); a progress bar with
ETA and Stop while they answer (the page polls, as the live view does); then the scores
side by side, the answers with the rows where the models differ first, and the
predictions to download. The work is sft_ui/evaluate/ through the actions layer."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from sft_ui.actions import Actions
from sft_ui.chat import BASE, LATEST, GenSettings
from sft_ui.data import SUFFIXES
from sft_ui.errors import UserError
from sft_ui.evaluate.job import EvaluationSnapshot
from sft_ui.evaluate.metrics import NAMES, tokenisation_lines
from sft_ui.evaluate.testset import RUN_EVAL
from sft_ui.i18n.message import Message, as_message
from sft_ui.runs import display_name
from sft_ui.ui.access_panel import who
from sft_ui.ui.chat_tab import choices, settings_widgets
from sft_ui.ui.lang import (
    T,
    after_switch,
    compact_duration,
    keep,
    kept,
    note,
    page,
    problem,
    redrawn,
    say,
)
from sft_ui.ui.lists import Lists

NONE = ""  # Model B left out: one model is evaluated
# English; the headers are in the request's language.
SCORE_COLUMNS = ["score", "model A", "model B"]
ANSWER_COLUMNS = ["prompt", "reference", "answer A", "answer B"]
STATES = {"loading": "Loading the models...", "answering": "Answering the test rows...",
          "scoring": "Scoring the answers...", "done": "Done.",
          "stopped": "Stopped: the rows answered before Stop are scored.",
          "failed": "Failed."}


def model_choices(actions: Actions, with_none: bool = False) -> list[tuple[str, str]]:
    none = [(say("(none: evaluate model A only)"), NONE)] if with_none else []
    return none + choices(actions.chat_service)


def eval_split_choices(actions: Actions) -> list[tuple[str, str]]:
    """(label, 'run:<id>') of the runs that held out eval rows or were given some."""
    return [(say(display_name(r)), RUN_EVAL + r.id) for r in actions.manager.all_runs()
            if r.config.eval_fraction > 0 or r.config.eval_dataset_name.strip()
            or r.config.dataset_test_split.strip()]


def progress_html(snap: EvaluationSnapshot | None) -> str:
    if not snap:
        return "<div id='eval-bar'></div>"
    done, total = snap["rows_answered"], max(snap["rows_asked"], 1)
    parts = [STATES[snap["state"]], Message("Answered {done}/{total} rows", done=done,
                                            total=total),
             Message("elapsed {duration}", duration=compact_duration(snap["elapsed_seconds"]))]
    if snap["state"] == "answering":
        parts.append(Message("ETA {duration}", duration=compact_duration(snap["eta_seconds"])))
    return (f"<div id='eval-bar'><progress value='{done}' max='{total}' style='width:100%'>"
            f"</progress><div>{' &middot; '.join(say(p) for p in parts)}</div></div>")


def scores_frame(snap: dict | None) -> pd.DataFrame:
    """One row per score, one column per model."""
    columns = [say(c) for c in SCORE_COLUMNS]
    if not snap or not snap.get("scores"):
        return pd.DataFrame(columns=columns)
    scores, models = snap["scores"], snap["models"]
    rows = [[say("model")] + [say(m.get("label", m["ref"])) for m in models], [say("rows")] +
            [str(s["rows"]) for s in scores]]
    for key, name in NAMES.items():
        values = [s.get(key) for s in scores]  # (a text test set's own: only there)
        invalid = [key in s.get("not_valid", ()) for s in scores]  # for this text
        if all(v is None for v in values) and not any(invalid):
            continue  # no JSON references: no JSON score
        rows.append([say(name)] + [say("not valid") if bad else "--" if v is None else
                                   f"{v:.1f}" for v, bad in zip(values, invalid)])
    return pd.DataFrame([r + [""] * (len(columns) - len(r)) for r in rows], columns=columns)


def tokens_markdown(snap: dict | None) -> str:
    """How the scores cut the text (words, characters), chosen from the test set's
    references: the same for both models."""
    lines = tokenisation_lines(snap["scores"][0]) if snap and snap.get("scores") else []
    if not lines:
        return ""
    return f"**{say(lines[0])}**\n\n" + "\n".join(f"- {say(line)}" for line in lines[1:])


def answers_frame(rows: list[dict] | None) -> pd.DataFrame:
    """Prompt, reference and each model's answer; rows where the answers differ first."""
    columns = [say(c) for c in ANSWER_COLUMNS]
    shown = [[r["prompt"], r["reference"], *r["answers"], *[""] * (2 - len(r["answers"]))]
             for r in rows or []]
    return pd.DataFrame(shown, columns=columns)


def build(actions: Actions, lists: Lists | None = None) -> None:
    with gr.Row():
        model_a = gr.Dropdown(model_choices(actions), value=BASE, label=T("Model A"),
                              elem_id="eval-a")
        model_b = gr.Dropdown(model_choices(actions, True), value=LATEST, label=T("Model B"),
                              elem_id="eval-b", info=T("Optional: a second model, scored "
                                                       "side by side."))
        refresh = gr.Button(T("Refresh"), scale=0)
    with gr.Row():
        upload = gr.File(label=T("Upload a test set"), file_types=list(SUFFIXES),
                         type="filepath", elem_id="eval-upload", height=120)
        with gr.Column():
            test_set = gr.Textbox(label=T("Test set"), elem_id="eval-test-set",
                                  info=T("A file or folder path, a Hub dataset id, or "
                                         "run:<run id> for a run's eval split."))
            run_split = gr.Dropdown(eval_split_choices(actions), value=None,
                                    label=T("Or a run's eval split"), elem_id="eval-run-split")
    with gr.Row():
        split = gr.Textbox("test", label=T("Split"), info=T("For a Hub dataset or a folder "
                                                              "with splits."))
        limit = gr.Number(0, precision=0, label=T("Rows to evaluate"), info=T("0: every row."))
        batch = gr.Number(8, precision=0, label=T("Batch size"),
                          info=T("Test rows answered together."))
    # (penalty off: it alters exact answers, JSON; a test set's prompts are asked as chat)
    settings = settings_widgets(penalty=1.0, asks=False)
    with gr.Row():
        go = gr.Button(T("Evaluate"), variant="primary", elem_id="eval-go")
        stop = gr.Button(T("Stop"), scale=0, elem_id="eval-stop")
    progress = gr.HTML(progress_html(None), elem_id="eval-progress")
    notice = gr.Markdown(elem_id="eval-notice")
    scores = gr.Dataframe(scores_frame(None), label=T("Scores"), interactive=False,
                          wrap=True, elem_id="eval-scores", column_widths=["24%", "38%", "38%"])
    tokens = gr.Markdown(elem_id="eval-tokens")
    table = gr.Dataframe(answers_frame(None), label=T("Answers (rows where they differ first)"),
                         interactive=False, wrap=True, elem_id="eval-table",
                         column_widths=["22%", "16%", "31%", "31%"])
    files = gr.File(label=T("Download predictions"), file_count="multiple", interactive=False,
                    elem_id="eval-files")
    job, shown = gr.State(""), gr.State("")
    # The empty tables' headers in the request's language (built before any request).
    page().load(lambda: (scores_frame(None), answers_frame(None)), None,
                [scores, table], api_visibility="private", show_progress="hidden")
    _wire(actions, dict(model_a=model_a, model_b=model_b, upload=upload, test_set=test_set,
                        run_split=run_split, split=split, limit=limit, batch=batch,
                        settings=settings, go=go, stop=stop, progress=progress,
                        notice=notice, scores=scores, tokens=tokens, table=table, files=files,
                        job=job, shown=shown))

    def listed():
        return (gr.update(choices=model_choices(actions)),
                gr.update(choices=model_choices(actions, True)),
                gr.update(choices=eval_split_choices(actions)))

    refresh.click(listed, None, [model_a, model_b, run_split], api_visibility="private")
    after_switch(listed, None, [model_a, model_b, run_split])
    if lists is not None:
        lists.add(listed, [], [model_a, model_b, run_split])


class EvaluateHandlers:
    """What the Evaluate tab does, each a method that tests call without building the
    page: upload a test set, Evaluate, Stop, the poll that shows progress and, once, the
    results, and the tables drawn again in another language."""

    def __init__(self, actions: Actions):
        self.actions, self.evaluator = actions, actions.evaluator

    def on_upload(self, request: gr.Request, path):
        if not path:
            return gr.skip(), ""
        try:
            return self.actions.upload(who(request), path), ""
        except UserError as e:
            return gr.skip(), problem("Cannot use this file:", e, escape=True)

    def on_start(self, request: gr.Request, ref_a, ref_b, name, split, limit, batch, *values):
        """(the job, the notice, the progress, the timer, the note kept for the results)."""
        try:
            started = self.actions.evaluate(who(request), [ref_a, ref_b], name, split, limit,
                                            GenSettings(*values), batch)
        except UserError as e:
            return (gr.skip(), problem("Cannot evaluate:", e, escape=True), gr.skip(),
                    gr.skip(), gr.skip())
        warning = self.actions.training_data_warning([ref_a, ref_b], name, split)
        warned = note(Message("**Note:** {note}", note=as_message(warning))) if warning else ""
        return (started.id, warned, progress_html(started.snapshot()), gr.Timer(active=True),
                warned)

    def on_stop(self, request: gr.Request):
        try:
            snap = self.actions.stop_evaluation(who(request))
        except UserError as e:
            return problem("Cannot stop:", e, escape=True)
        return note("Stopping after the batch being answered..." if snap else
                    "No evaluation is running.")

    def poll(self, job_id, shown_id, warned):
        """Progress while this page's job runs; its results once, and the timer stops (the
        note on the test set, if any, stays with them)."""
        asleep = gr.Timer(active=False)
        if not job_id or shown_id == job_id:
            return (gr.skip(),) * 7 + (asleep,)
        try:
            job = self.evaluator.get(job_id)
        except UserError:
            return (gr.skip(),) * 7 + (asleep,)
        snap = job.snapshot()
        if snap["state"] not in ("done", "stopped", "failed"):
            return (progress_html(snap),) + (gr.skip(),) * 7
        notice = problem("Cannot evaluate:", UserError(snap["error"])) \
            if snap["state"] == "failed" else note(snap["error"]) if snap["error"] else \
            redrawn(warned) if kept(warned) else warned  # (in the page's language now)
        if snap["state"] != "failed":  # (the answer length sized from the test set)
            notice = "\n\n".join([notice, *(note(n) for n in snap.get("notes") or [])])
        paths = [snap["files"][k] for k in ("jsonl", "csv", "summary") if k in snap["files"]]
        return (progress_html(snap), scores_frame(snap), tokens_markdown(snap),
                answers_frame(self.evaluator.rows(job)), paths or None, notice, job_id, asleep)

    def relabel(self, shown_id):
        """The tables in the page's new language: the shown evaluation's, or empty."""
        try:
            job = self.evaluator.get(shown_id) if shown_id else None
        except UserError:
            job = None
        if job is None:
            return scores_frame(None), tokens_markdown(None), answers_frame(None)
        snap = job.snapshot()
        return scores_frame(snap), tokens_markdown(snap), answers_frame(self.evaluator.rows(job))


def _wire(actions: Actions, w: dict) -> None:
    """Bind the tab to EvaluateHandlers: upload, the run split picker, Evaluate, Stop and
    the poll that shows progress and, once, the results."""
    h = EvaluateHandlers(actions)
    w["upload"].upload(h.on_upload, w["upload"], [w["test_set"], w["notice"]],
                       api_visibility="private")
    w["run_split"].input(lambda value: value or gr.skip(), w["run_split"], w["test_set"],
                         api_visibility="private")
    inputs = [w["model_a"], w["model_b"], w["test_set"], w["split"], w["limit"], w["batch"],
              *w["settings"]]
    timer = gr.Timer(1.0, active=False)  # ticks while this page's job runs
    warned = gr.State("")  # a note on the test set (training data), kept with the results
    w["go"].click(h.on_start, inputs, [w["job"], w["notice"], w["progress"], timer, warned],
                  api_visibility="private")
    w["stop"].click(h.on_stop, None, w["notice"], api_visibility="private")
    timer.tick(h.poll, [w["job"], w["shown"], warned],
               [w["progress"], w["scores"], w["tokens"], w["table"], w["files"], w["notice"],
                w["shown"], timer], api_visibility="private", show_progress="hidden")
    after_switch(h.relabel, w["shown"], [w["scores"], w["tokens"], w["table"]])
    keep(w["notice"])
