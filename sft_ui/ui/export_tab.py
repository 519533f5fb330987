"""The Export tab: a run's model as a download (adapter or merged) with its model card,
assembled with the tab's other parts: the choice of a run (export_source.py), the GGUF
file (gguf_panel.py), the push to the Hub and a chat Space (hub_panel.py) and deploying
the studio itself (deploy_panel.py). The card's file stays English (it is the README.md
of the Hub repo); the page shows it in the page's language."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.share.card import card_for_page, written_lines
from sft_ui.share.export import zip_export
from sft_ui.ui import deploy_panel, export_source, gguf_panel, hub_panel
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, keep, note, problem, say
from sft_ui.ui.lists import Lists


def card_in_language(lines: str | list[str]) -> str:
    """A model card's Markdown (its text, or its lines as sft_ui/share/card.py's
    `written_lines` gives them: the person-facing ones Messages) with its headings,
    sentences, figure names and table headers in the request's language. The run's name
    (the title), setting names and values, the prompts and answers of the samples, and the
    code stay as they are; only the code's comments are translated."""
    out, code, section, title = [], False, "", True
    for line in lines.split("\n") if isinstance(lines, str) else lines:
        if line.startswith("```"):
            code = not code
            out.append(line)
        elif code:
            out.append(_heading(line) if line.startswith("# ") else line)
        elif line.startswith("# ") and title:  # the run's name
            title = False
            out.append(line)
        elif line.startswith("## "):
            section = line
            out.append(_heading(line))
        elif section.startswith("## Sample answers"):  # the prompts and the model's words
            out.append(line)
        elif line.startswith("|"):
            out.append(_table_row(line, translate_first=section in ("## Results",
                                                                  "## Evaluation")))
        else:
            out.append(say(line) if line.strip() else line)
    return "\n".join(out)


def _heading(line: str) -> str:
    """A heading (or a code's comment) in the request's language: a Message as it was
    made, else its words after the marks looked up."""
    if isinstance(line, Message):
        return say(line)
    marks, _, words = line.partition(" ")
    return f"{marks} {say(words)}"


def _table_row(line: str, translate_first: bool) -> str:
    """A Markdown table row: a header row's cells and (in Results and Evaluation) the
    figure's or score's name in the request's language; separators, setting names and
    values as they are."""
    cells = line.strip().strip("|").split("|")
    if all(set(c.strip()) <= set("-:") for c in cells):
        return line
    header = line.strip() in ("| figure | value |", "| setting | value |")
    cells = [f" {say(c.strip())} " if header or (translate_first and n == 0) else c
             for n, c in enumerate(cells)]
    return "|" + "|".join(cells) + "|"


def card_view(folder: str) -> str:
    """The card of an export folder as the page shows it: in the page's language, its
    images inlined."""
    out = Path(folder)
    lines = written_lines(out / "README.md")
    if lines[:1] == ["---"] and "---" in lines[1:]:  # its front matter left out
        lines = ["", *lines[lines.index("---", 1) + 1:]]
    return card_for_page(card_in_language(lines), out)


@dataclass
class Export:
    merged: gr.Checkbox
    export: gr.Button
    notice: gr.Markdown  # the GGUF part's too
    download: gr.File


def build(actions: Actions, lists: Lists | None = None) -> None:
    """The Export tab; its run list keeps itself current through `lists`."""
    source = export_source.build(actions.manager)
    export = build_export()
    gguf = gguf_panel.build()
    with gr.Accordion(T("Model card"), open=False):
        card = gr.Markdown(elem_id="export-card")
    hub = hub_panel.build()
    deploy = deploy_panel.build()
    folder = gr.State("")  # the last export, which Push sends
    deploy_panel.wire(deploy, actions, hub.token, hub.notice)
    wire_export(export, actions, source, folder, card)
    gguf_panel.wire(gguf, actions, source, export.notice)
    hub_panel.wire(hub, actions, folder)
    export_source.wire(source, actions.manager, export.merged, lists)
    # After a language switch: the card shown in the new one.
    after_switch(lambda path: card_view(path) if path and Path(path, "README.md").is_file()
                 else gr.skip(), folder, card)


def build_export() -> Export:
    merged = gr.Checkbox(label=T("Merge the LoRA adapter into the base model"), visible=False,
                         info=T("Off: export the small adapter (loads with peft on the base). "
                                "On: one standalone model (loads with transformers alone)."))
    export = gr.Button(T("Export"), variant="primary")
    notice = gr.Markdown(elem_id="export-notice")
    download = gr.File(label=T("Download (zip)"), interactive=False, elem_id="export-zip")
    return Export(merged, export, notice, download)


def wire_export(view: Export, actions: Actions, source: export_source.Source,
                folder: gr.State, card: gr.Markdown) -> None:
    """Export writes the chosen model to a folder: the zip to download, its card shown,
    and `folder` for a push."""
    def on_export(request: gr.Request, run_id, ckpt, merge):
        if not run_id:
            return gr.skip(), note(export_source.NO_RUN_CHOSEN), gr.skip(), gr.skip()
        try:
            out = actions.export(who(request), run_id, export_source.checkpoint_name(ckpt),
                                 merge)
        except UserError as e:
            return gr.skip(), problem("Cannot export:", e), gr.skip(), gr.skip()
        return (str(out), note(Message("Exported to `{folder}`.", folder=str(out))),
                str(zip_export(out)),
                card_view(str(out)))

    view.export.click(on_export, [source.run, source.checkpoint, view.merged],
                      [folder, view.notice, view.download, card], api_name=False)
    keep(view.notice)  # (the GGUF export's too) in the page's new language
