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


def card_in_language(lines: list[str]) -> str:
    """A model card's Markdown in the request's language, from its lines as
    sft_ui/share/card.py's `written_lines` gives them: its person-facing lines (headings,
    sentences, figure names, table headers, the code's comment) are Messages and are
    rendered; the rest (the run's name, setting names and values, the samples, the code)
    stays as it is. Nothing is read back from the file's English: a card whose lines were
    not kept (its file edited) shows as written."""
    return "\n".join(say(line) if isinstance(line, Message) else line for line in lines)


def card_view(folder: str) -> str:
    """The card of an export folder as the page shows it: in the page's language, its
    images inlined."""
    out = Path(folder)  # (card_for_page leaves its front matter out)
    return card_for_page(card_in_language(written_lines(out / "README.md")), out)


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
                      [folder, view.notice, view.download, card], api_visibility="private")
    keep(view.notice)  # (the GGUF export's too) in the page's new language
