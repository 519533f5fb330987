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
    h = ExportHandlers(actions)
    deploy_panel.wire(deploy, h.on_deploy, hub.token, hub.notice)
    wire_export(export, h, source, folder, card)
    gguf_panel.wire(gguf, h.on_gguf, source, export.notice)
    hub_panel.wire(hub, h.on_push, h.on_publish, folder)
    export_source.wire(source, actions.manager, export.merged, lists)
    after_switch(h.card_again, folder, card)  # the card shown, in the new language


def build_export() -> Export:
    merged = gr.Checkbox(label=T("Merge the LoRA adapter into the base model"), visible=False,
                         info=T("Off: export the small adapter (loads with peft on the base). "
                                "On: one standalone model (loads with transformers alone)."))
    export = gr.Button(T("Export"), variant="primary")
    notice = gr.Markdown(elem_id="export-notice")
    download = gr.File(label=T("Download (zip)"), interactive=False, elem_id="export-zip")
    return Export(merged, export, notice, download)


class ExportHandlers:
    """What the Export tab's buttons do (Export, Export GGUF, Push, Publish, Deploy), each a
    method that tests call without building the page; the tab's parts only bind them.
    Each returns what the page shows: a refusal in the notice, the rest skipped."""

    def __init__(self, actions: Actions):
        self.actions = actions

    def on_export(self, request: gr.Request, run_id, ckpt, merge):
        """(the export's folder, notice, the zip, its card shown)."""
        if not run_id:
            return gr.skip(), note(export_source.NO_RUN_CHOSEN), gr.skip(), gr.skip()
        try:
            out = self.actions.export(who(request), run_id,
                                      export_source.checkpoint_name(ckpt), merge)
        except UserError as e:
            return gr.skip(), problem("Cannot export:", e), gr.skip(), gr.skip()
        return (str(out), note(Message("Exported to `{folder}`.", folder=str(out))),
                str(zip_export(out)), card_view(str(out)))

    @staticmethod
    def card_again(folder):
        """The card of the last export, in the page's language (after a switch)."""
        return card_view(folder) if folder and Path(folder, "README.md").is_file() \
            else gr.skip()

    def on_gguf(self, request: gr.Request, run_id, ckpt, q):
        """(notice, [the GGUF file, its Modelfile])."""
        if not run_id:
            return note(export_source.NO_RUN_CHOSEN), gr.skip()
        try:
            file, modelfile = self.actions.export_gguf(
                who(request), run_id, export_source.checkpoint_name(ckpt), q)
        except UserError as e:
            return problem("Cannot export GGUF:", e), gr.skip()
        return (note(Message("GGUF written to `{file}`. For Ollama: `ollama create my-model "
                             "-f {modelfile}`.", file=str(file), modelfile=str(modelfile))),
                [str(file), str(modelfile)])

    def on_push(self, request: gr.Request, path, repo_id, tok, is_private):
        """The notice: the export in `path` pushed, or why not."""
        if not path:
            return note("Export first, then push the export.")
        try:
            url = self.actions.push_export(who(request), path, repo_id, tok, is_private)
        except UserError as e:
            return problem("Cannot push:", e)
        return note(Message("Pushed: [{url}]({link})", url=url, link=url))

    def on_publish(self, request: gr.Request, repo_id, sid, tok):
        """The notice: a chat Space for the pushed model, or why not."""
        try:
            url = self.actions.publish(who(request), repo_id, sid, tok)
        except UserError as e:
            return problem("Cannot publish:", e)
        return note(Message("Space created: [{url}]({link}) (it builds for a few minutes).",
                            url=url, link=url))

    def on_deploy(self, request: gr.Request, sid, tok):
        """The notice: this studio deployed to the Space `sid`, or why not."""
        try:
            url = self.actions.deploy(who(request), sid, tok)
        except UserError as e:
            return problem("Cannot deploy:", e)
        return note(Message("Studio deployed: [{url}]({link}) (it builds for a few minutes).",
                            url=url, link=url))


def wire_export(view: Export, h: ExportHandlers, source: export_source.Source,
                folder: gr.State, card: gr.Markdown) -> None:
    """Export writes the chosen model to a folder: the zip to download, its card shown,
    and `folder` for a push."""
    view.export.click(h.on_export, [source.run, source.checkpoint, view.merged],
                      [folder, view.notice, view.download, card], api_visibility="private")
    keep(view.notice)  # (the GGUF export's too) in the page's new language
