"""The data part of the Train tab: upload a file, and preview what the model learns
from (raw row, text the model sees, tokens with the loss mask, token statistics; for a
preference stage, each row's prompt with its chosen and rejected answers)."""
from __future__ import annotations

import html
import json
from pathlib import Path

import gradio as gr

from sft_ui.access import UPLOADS
from sft_ui.actions import Actions
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message, as_message
from sft_ui.stages import stage_of
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, kept, note, problem, problems, redrawn, say
from sft_ui.ui.widgets import values_to_dict

STYLE = """<style>
#data-preview .tok{display:inline;white-space:pre-wrap;border-radius:3px;padding:0 1px;
 margin-right:1px;line-height:1.9;font-family:monospace;font-size:12px}
#data-preview .tok.loss{background:#bbf7d0;color:#14532d}
#data-preview .tok.masked{background:#e5e7eb;color:#6b7280}
#data-preview .tok.cut{text-decoration:line-through;opacity:.55}
#data-preview pre{white-space:pre-wrap;max-height:16em;overflow:auto;font-size:12px}
#data-preview .example{border-top:1px solid #ddd;padding-top:.4em;margin-top:.6em}
#data-preview pre.chosen,#data-preview pre.good{background:#dcfce7}
#data-preview pre.rejected,#data-preview pre.bad{background:#fee2e2}
</style>"""
LEGEND = [("tok loss", "green", "counts in the loss"), ("tok masked", "grey", "masked (no loss)"),
          ("tok loss cut", "struck", "cut off by max_length")]


def demo_for(stage: str) -> str:
    """The built-in set of a stage (the demo set's examples, or its preference pairs)."""
    return stage_of(stage).demo


def sized_markdown(sized: dict) -> str:
    """The settings the data sizes where they are left at their defaults (data/sized.py):
    the questions the samples will ask, and a sentence for each setting."""
    lines = []
    if sized.get("prompts"):
        lines.append(say("**Sample prompts the run will ask** (type your own in *Sample "
                         "prompts*, under Logging, checkpoints and samples, to ask others):"))
        lines.append("\n".join(f"- {html.escape(_short(q))}" for q in sized["prompts"]))
    lines += [html.escape(say(n)) for n in [*sized.get("reasons", ()), *sized.get("notes", ())]]
    return "\n\n".join(lines)


def _short(text: str, most: int = 160) -> str:
    return text if len(text) <= most else text[:most - 1] + "\u2026"


def _source(p: dict) -> str:
    """Where the data came from, for HTML: a file's name escaped, the demo set's words a
    Message (said in the reader's language)."""
    return p["source"] if isinstance(p["source"], Message) else html.escape(p["source"])


def _said(lines: list[str], notes) -> str:
    """The summary's lines and the data's notes (said, then escaped for HTML), a paragraph
    each, in the request's language."""
    return "\n\n".join([*(say(line) for line in lines),
                         *(html.escape(say(n)) for n in notes)])


def summary_markdown(p: dict) -> str:
    if p.get("kind") == "preference":
        return preference_summary_markdown(p)
    if p.get("kind") == "prompts":
        return prompt_summary_markdown(p)
    s = p["stats"]
    lines: list[str] = [
        Message("**Format: {format}** ({description}). Change it under *Data format* if this "
                "is wrong.", format=p["format"], description=as_message(p["format_description"])),
        Message("**Rows:** {rows} to train on, {eval_rows} for eval &middot; source {where} "
                "&middot; columns: {columns}", rows=f"{p['rows']:,}",
                eval_rows=f"{p['eval_rows']:,}", where=_source(p),
                columns=html.escape(", ".join(p["columns"]))),
        Message("**Tokens per example:** min {low}, median {median}, max {high}. **{over}** of "
                "{measured} exceed max_length {max_length} and will be truncated.",
                low=s["min"], median=f"{s['median']:g}", high=s["max"],
                over=f"{s['over_max_length']:,}", measured=f"{s['measured_rows']:,}",
                max_length=s["max_length"]),
        Message("**Tokens per epoch:** about {tokens} ({loss_tokens} count in the loss). Max "
                "steps x effective batch covers **{epochs} epochs**.",
                tokens=f"{s['tokens_per_epoch']:,}",
                loss_tokens=f"{s['loss_tokens_per_epoch']:,}",
                epochs=f"{s['epochs_in_max_steps']:g}"),
    ]
    if s["epochs_in_max_steps"] > 10:
        lines.append("That is many passes over few rows: the model may learn them by heart. "
                     "Add rows or lower max steps.")
    if s["measured_rows"] < p["rows"]:
        lines.append(Message("Token figures measured on the first {rows} rows.",
                             rows=f"{s['measured_rows']:,}"))
    if s["without_loss_tokens"]:
        lines.append(Message("**{rows} rows have no loss tokens left** after truncation and "
                             "will be skipped: raise max_length.",
                             rows=f"{s['without_loss_tokens']:,}"))
    return _said(lines, p["notes"])


def preference_summary_markdown(p: dict) -> str:
    """The summary of preference data: format and form, rows, token lengths."""
    s = p["stats"]
    lines: list[str] = [
        Message("**Format: {format}** ({description}), for {stage}.", format=p["format"],
                description=as_message(p["format_description"]), stage=p["stage"].upper()),
        "Conversational rows: the model's chat template renders each turn, as in training."
        if p["conversational"] else "Plain-text rows: each answer ends with the "
        "end-of-text token, as in training.",
        Message("**Rows:** {rows} to train on &middot; source {where} &middot; columns: "
                "{columns}", rows=f"{p['rows']:,}", where=_source(p),
                columns=html.escape(", ".join(p["columns"]))),
        Message("**Tokens per example** (the prompt with its longer answer): min {low}, "
                "median {median}, max {high}. **{over}** of {measured} exceed max_length "
                "{max_length} and will be truncated.", low=s["min"],
                median=f"{s['median']:g}", high=s["max"], over=f"{s['over_max_length']:,}",
                measured=f"{s['measured_rows']:,}", max_length=s["max_length"]),
        Message("Max steps x effective batch covers **{epochs} epochs**.",
                epochs=f"{s['epochs_in_max_steps']:g}"),
    ]
    if s["measured_rows"] < p["rows"]:
        lines.append(Message("Token figures measured on the first {rows} rows.",
                             rows=f"{s['measured_rows']:,}"))
    return _said(lines, p["notes"])


def prompt_summary_markdown(p: dict) -> str:
    """The summary of GRPO's prompts: rows, the columns the rewards read, prompt lengths."""
    s = p["stats"]
    others = [c for c in p["columns"] if c != "prompt"]
    rows = {"rows": f"{p['rows']:,}", "where": _source(p)}
    lines: list[str] = [
        Message("**Format: {format}** ({description}).", format=p["format"],
                description=as_message(p["format_description"])),
        Message("**Rows:** {rows} prompts &middot; source {where} &middot; columns the "
                "rewards can read: {columns}", **rows,
                columns=", ".join(f"`{c}`" for c in others)) if others
        else Message("**Rows:** {rows} prompts &middot; source {where} &middot; no other "
                     "column for the rewards to read", **rows),
        Message("**Prompt tokens:** min {low}, median {median}, max {high}; each answer up to "
                "{answer} tokens. {prompts} prompts a step: Max steps covers **{epochs} "
                "epochs**.", low=s["min"], median=f"{s['median']:g}", high=s["max"],
                answer=s["answer_tokens"], prompts=s["prompts_per_step"],
                epochs=f"{s['epochs_in_max_steps']:g}"),
    ]
    return _said(lines, p["notes"])


def _example(n: int) -> str:
    """An example's heading in the request's language."""
    return say(Message("Example {n}", n=n))


def prompt_examples_html(p: dict) -> str:
    """Each example: the prompt as the model reads it, and the row's other columns."""
    parts = [STYLE, "<div id='data-preview'>"]
    for n, ex in enumerate(p["examples"], 1):
        columns = "".join(f"<div><b>{html.escape(k)}</b>: {html.escape(v)}</div>"
                          for k, v in ex["columns"].items())
        parts.append(f"<div class='example' data-example='{n}'><b>{_example(n)}</b>"
                     f"<div><b>{say('Prompt')}</b><pre class='prompt'>"
                     f"{html.escape(ex['prompt'])}</pre></div>{columns}</div>")
    parts.append("</div>")
    return "".join(parts)


def preference_examples_html(p: dict) -> str:
    """Each example: the raw row, then the prompt and each answer as the model reads
    them (chosen in green, rejected in red; a KTO answer by its label)."""
    parts = [STYLE, "<div id='data-preview'>"]
    for n, ex in enumerate(p["examples"], 1):
        raw = html.escape(json.dumps(ex["raw"], ensure_ascii=False, indent=1))
        parts.append(f"<div class='example' data-example='{n}'><b>{_example(n)}</b>"
                     f"<details{' open' if n == 1 else ''}><summary>{say('Raw row')}"
                     f"</summary><pre class='raw'>{raw}</pre></details>")
        answers: list[tuple[str, ...]] = [("prompt", say("Prompt"))]
        if "completion" in ex:
            good = bool(ex.get("label"))
            answers.append(("completion", say("Answer, labelled good" if good else
                                              "Answer, labelled bad"), "good" if good else "bad"))
        else:
            answers += [("chosen", say("Chosen answer")), ("rejected", say("Rejected answer"))]
        for key, title, *css in answers:
            parts.append(f"<div><b>{title}</b><pre class='{css[0] if css else key}'>"
                         f"{html.escape(ex[key])}</pre></div>")
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def examples_html(p: dict) -> str:
    if p.get("kind") == "preference":
        return preference_examples_html(p)
    if p.get("kind") == "prompts":
        return prompt_examples_html(p)
    legend = " &middot; ".join(f"<span class='{css}'>{say(colour)}</span> {say(meaning)}"
                               for css, colour, meaning in LEGEND)
    parts = [STYLE, "<div id='data-preview'>", f"<p>{legend}</p>"]
    for n, ex in enumerate(p["examples"], 1):
        tokens = "".join(_token_span(t) for t in ex["tokens"])
        parts.append(
            f"<div class='example' data-example='{n}'><b>{_example(n)}</b>"
            f"<details{' open' if n == 1 else ''}><summary>{say('Raw row')}</summary>"
            f"<pre class='raw'>"
            f"{html.escape(json.dumps(ex['raw'], ensure_ascii=False, indent=1))}</pre></details>"
            f"<details{' open' if n == 1 else ''}><summary>{say('Text the model sees')}"
            "</summary>"
            f"<pre class='formatted'>"
            f"{html.escape(ex['text'])}</pre></details>"
            f"<div class='tokens'>{tokens}</div></div>")
    parts.append("</div>")
    return "".join(parts)


def _token_span(t: dict) -> str:
    classes = ("loss" if t["loss"] else "masked") + (" cut" if t["truncated"] else "")
    text = html.escape(t["text"]).replace("\n", "\u21b5\n")
    return f"<span class='tok {classes}'>{text}</span>"


def build_controls():
    """Upload, preview button and outputs, inside the Dataset panel; returns them."""
    # Any file type: the server says why a file cannot be used, in the page.
    upload = gr.File(label=T("Upload a dataset file"), elem_id="data-upload", height=150)
    button = gr.Button(T("Preview data"), size="sm", elem_id="preview-data")
    summary = gr.Markdown(elem_id="data-summary")
    examples = gr.HTML(elem_id="data-examples")
    return upload, button, summary, examples


class DataHandlers:
    """What the data panel does, each a method that tests call without building the page
    (`names`: the settings' names, in the order of the values a preview is given)."""

    def __init__(self, actions: Actions, names: list[str]):
        self.actions, self.names = actions, names

    def on_upload(self, request: gr.Request, path, current, before, stage):
        """(dataset box, summary, examples, whether to preview, the value to go back to).
        A file that cannot be used says why in the summary (not in a passing toast), and
        the dataset box goes back to what it held before any upload (else the stage's
        built-in set). On a shared server an upload goes to this session's own folder."""
        if not before or not _is_upload(before):
            before = current if current and not _is_upload(current) else demo_for(stage)
        try:
            stored = self.actions.upload(who(request), path)
            # the box shows the file's name; its value, the path the run reads, stays
            listed = dataset_choices(self.actions.dataset_choices(who(request), stage), stored)
            return (gr.update(choices=listed, value=stored), gr.skip(), gr.skip(), True,
                    before)
        except UserError as e:
            return (before, problem("Cannot use this file:", e) + "\n\n" +
                    note(Message("The dataset is back to {name}.", name=before)), "", False,
                    before)

    @staticmethod
    def on_clear(before, stage):
        """The upload was removed: the dataset box goes back, the preview goes."""
        return before or demo_for(stage), "", ""

    def on_preview(self, request: gr.Request, *values):
        """(the summary, the examples) of the data the settings name, or why not."""
        try:
            p = self.actions.preview(who(request), values_to_dict(self.names, values))
        except UserError as e:
            return problems("Cannot preview:", e), ""
        except Exception as e:  # keep the page usable, say what happened
            return note(Message("**Preview failed:** {error_type}: {error}",
                                error_type=type(e).__name__, error=str(e))), ""
        sized = sized_markdown(p.get("sized") or {})  # beside the data it follows
        return summary_markdown(p) + (f"\n\n{sized}" if sized else ""), examples_html(p)

    def after_upload(self, request: gr.Request, ok, *values):
        return self.on_preview(request, *values) if ok else (gr.skip(), gr.skip())

    def on_switch(self, request: gr.Request, shown, *values):
        """The summary in the page's new language: a notice drawn again from its English,
        a preview made again."""
        if kept(shown):
            return redrawn(shown), gr.skip()
        return self.on_preview(request, *values) if shown else (gr.skip(), gr.skip())


def wire(controls, names: list[str], inputs: list, dataset_box, actions: Actions) -> None:
    """Bind the controls to DataHandlers: an upload fills the dataset box, then the
    preview runs."""
    upload, button, summary, examples = controls
    h = DataHandlers(actions, names)
    stored, before = gr.State(False), gr.State("")
    stage = inputs[names.index("stage")]
    upload.upload(h.on_upload, [upload, dataset_box, before, stage],
                  [dataset_box, summary, examples, stored, before], api_visibility="private").then(
        h.after_upload, [stored, *inputs], [summary, examples], api_visibility="private")
    upload.clear(h.on_clear, [before, stage], [dataset_box, summary, examples],
                 api_visibility="private")
    # A preview (or its error) belongs to the data it read: gone once the person picks or
    # types other data (`input`: their own change, not an upload's or a preset's).
    dataset_box.input(lambda: ("", ""), None, [summary, examples], api_visibility="private",
                      show_progress="hidden")
    button.click(h.on_preview, inputs, [summary, examples], api_name="ui_preview",
                 api_visibility="undocumented")
    after_switch(h.on_switch, [summary, *inputs], [summary, examples])


def _is_upload(value: str) -> bool:
    """Whether a dataset value is a file an upload stored (in an uploads folder)."""
    return UPLOADS in Path(str(value)).parts


def dataset_choices(values: list[str], current: str = "") -> list:
    """The dataset box's list as the page shows it: a file an upload stored by its name
    ("support.csv", not the server's path .../uploads/ab12cd/support.csv, which stays the
    value the run reads; two of one name also by their folder), the other values as they
    are; `current` among them when it is an upload."""
    values = list(values) + ([current] if current and _is_upload(current) and
                             current not in values else [])
    names = [Path(v).name for v in values if _is_upload(v)]
    return [v if not _is_upload(v) else
            (Path(v).name if names.count(Path(v).name) == 1 else
             f"{Path(v).name} ({Path(v).parent.name})", v) for v in values]
