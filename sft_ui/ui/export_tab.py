"""The Export tab: a run's model as a download (adapter or merged) or as one GGUF
file with an Ollama Modelfile, its model card, a push to the Hub and a one-click chat
Space. The token field belongs to this page only: it is sent with the push and kept
nowhere. The card's file stays English (it is the README.md of the Hub repo); the page
shows it in the page's language."""
from __future__ import annotations

from pathlib import Path

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.errors import UserError
from sft_ui.runs import RunManager, checkpoints, display_name
from sft_ui.share.card import card_for_page
from sft_ui.share.export import is_lora_run, zip_export
from sft_ui.share.gguf_export import QUANTISATIONS
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, problem, say
from sft_ui.ui.lists import Lists

FINAL = "final model"
NO_RUN_CHOSEN = ("Choose a run first: the Run list holds every run with a final model or a "
                 "checkpoint. None there yet? Train one on the Train tab.")


def exportable_runs(manager: RunManager) -> list[tuple[str, str]]:
    """(label, run id) of every run with a final model or a checkpoint, newest first."""
    return [(f"{display_name(r)} ({say(r.state)})", r.id) for r in manager.all_runs()
            if r.model_dir or checkpoints(r.dir)]


def card_in_language(text: str) -> str:
    """A model card's Markdown (sft_ui/share/card.py) with its headings, sentences, figure
    names and table headers in the request's language. The run's name (the title),
    setting names and values, the prompts and answers of the samples, and the code stay
    as they are; only the code's comments are translated."""
    out, code, section, title = [], False, "", True
    for line in text.split("\n"):
        if line.startswith("```"):
            code = not code
            out.append(line)
        elif code:
            out.append(say(line) if line.startswith("# ") else line)
        elif line.startswith("# ") and title:  # the run's name
            title = False
            out.append(line)
        elif line.startswith("## "):
            section = line
            out.append(say(line))
        elif section.startswith("## Sample answers"):  # the prompts and the model's words
            out.append(line)
        elif line.startswith("|"):
            out.append(_table_row(line, translate_first=section in ("## Results",
                                                                  "## Evaluation")))
        else:
            out.append(say(line) if line.strip() else line)
    return "\n".join(out)


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
    text = (out / "README.md").read_text(encoding="utf-8").split("---", 2)[-1]
    return card_for_page(card_in_language(text), out)


def checkpoint_choices(manager: RunManager, run_id: str) -> list[str]:
    if not run_id:
        return [FINAL]
    try:
        run = manager.get(run_id)
    except UserError:
        return [FINAL]
    return [FINAL] + [p.name for p in checkpoints(run.dir)]


def build(actions: Actions, lists: Lists | None = None) -> None:
    """The Export tab; its run list keeps itself current through `lists`."""
    manager = actions.manager
    with gr.Row():
        run = gr.Dropdown(exportable_runs(manager), label=T("Run"), elem_id="export-run")
        checkpoint = gr.Dropdown([FINAL], value=FINAL, label=T("Model or checkpoint"))
        refresh = gr.Button(T("Refresh"), scale=0)
    merged = gr.Checkbox(label=T("Merge the LoRA adapter into the base model"), visible=False,
                         info=T("Off: export the small adapter (loads with peft on the base). "
                                "On: one standalone model (loads with transformers alone)."))
    export = gr.Button(T("Export"), variant="primary")
    notice = gr.Markdown(elem_id="export-notice")
    download = gr.File(label=T("Download (zip)"), interactive=False, elem_id="export-zip")
    with gr.Row():
        quantisation = gr.Dropdown(list(QUANTISATIONS), value="q8_0",
                                   label=T("GGUF quantisation"),
                                   info=T("f16: the weights at half precision; q8_0: about "
                                          "half that size, nearly the same answers."))
        gguf = gr.Button(T("Export GGUF"), scale=0)
    gguf_files = gr.File(label=T("GGUF file and Ollama Modelfile"), file_count="multiple",
                         interactive=False, elem_id="export-gguf")
    with gr.Accordion(T("Model card"), open=False):
        card = gr.Markdown(elem_id="export-card")
    gr.Markdown(T("### Push to the Hugging Face Hub"))
    with gr.Row():
        repo = gr.Textbox(label=T("Model repo id"), placeholder="your-name/my-model")
        private = gr.Checkbox(True, label=T("Private"))
    token = gr.Textbox(label=T("Hugging Face token (write access)"), type="password",
                       info=T("Used for this push only; never saved, logged or written into "
                              "the model card."))
    with gr.Row():
        push = gr.Button(T("Push the export"))
        space_id = gr.Textbox(label=T("Space id for a chat app"),
                              placeholder="your-name/my-chat", scale=2)
        publish = gr.Button(T("Publish as a chat Space"))
    hub_notice = gr.Markdown(elem_id="hub-notice")
    with gr.Accordion(T("Deploy this studio to my Space"), open=False):
        gr.Markdown(T("Uploads the app itself (code, requirements, README front matter) to a "
                      "Gradio Space of yours, with the token above. Runs stay here."))
        with gr.Row():
            studio_space = gr.Textbox(label=T("Space id"), placeholder="your-name/sft-studio",
                                      scale=2)
            deploy = gr.Button(T("Deploy the studio"))
    folder = gr.State("")

    def on_export(request: gr.Request, run_id, ckpt, merge):
        if not run_id:
            return gr.skip(), say(NO_RUN_CHOSEN), gr.skip(), gr.skip()
        try:
            out = actions.export(who(request), run_id, "" if ckpt == FINAL else ckpt, merge)
        except UserError as e:
            return gr.skip(), problem("Cannot export:", e), gr.skip(), gr.skip()
        return (str(out), say(f"Exported to `{out}`."), str(zip_export(out)),
                card_view(str(out)))

    def on_gguf(request: gr.Request, run_id, ckpt, q):
        if not run_id:
            return say(NO_RUN_CHOSEN), gr.skip()
        try:
            file, modelfile = actions.export_gguf(who(request), run_id,
                                                  "" if ckpt == FINAL else ckpt, q)
        except UserError as e:
            return problem("Cannot export GGUF:", e), gr.skip()
        return (say(f"GGUF written to `{file}`. For Ollama: `ollama create my-model -f "
                    f"{modelfile}`."), [str(file), str(modelfile)])

    def on_push(request: gr.Request, path, repo_id, tok, is_private):
        if not path:
            return say("Export first, then push the export.")
        try:
            url = actions.push_export(who(request), path, repo_id, tok, is_private)
        except UserError as e:
            return problem("Cannot push:", e)
        return say(f"Pushed: [{url}]({url})")

    def on_publish(request: gr.Request, repo_id, sid, tok):
        try:
            url = actions.publish(who(request), repo_id, sid, tok)
        except UserError as e:
            return problem("Cannot publish:", e)
        return say(f"Space created: [{url}]({url}) (it builds for a few minutes).")

    def on_deploy(request: gr.Request, sid, tok):
        try:
            url = actions.deploy(who(request), sid, tok)
        except UserError as e:
            return problem("Cannot deploy:", e)
        return say(f"Studio deployed: [{url}]({url}) (it builds for a few minutes).")

    deploy.click(on_deploy, [studio_space, token], hub_notice, api_name=False)
    export.click(on_export, [run, checkpoint, merged], [folder, notice, download, card],
                 api_name=False)
    gguf.click(on_gguf, [run, checkpoint, quantisation], [notice, gguf_files], api_name=False)
    push.click(on_push, [folder, repo, token, private], hub_notice, api_name=False)
    publish.click(on_publish, [repo, space_id, token], hub_notice, api_name=False)
    def on_run(run_id):
        """Its checkpoints; the merge choice only for a LoRA run."""
        try:
            lora = bool(run_id) and is_lora_run(manager.get(run_id))
        except UserError:
            lora = False
        return (gr.update(choices=checkpoint_choices(manager, run_id), value=FINAL),
                gr.update(visible=lora, value=False if not lora else gr.skip()))

    run.change(on_run, run, [checkpoint, merged], api_name=False)
    refresh.click(lambda: gr.update(choices=exportable_runs(manager)), None, run,
                  api_name=False)
    # After a language switch: the run list's states and the card shown in the new one.
    after_switch(lambda: gr.update(choices=exportable_runs(manager)), None, run)
    after_switch(lambda path: card_view(path) if path and Path(path, "README.md").is_file()
                 else gr.skip(), folder, card)
    if lists is not None:
        lists.add(lambda: gr.update(choices=exportable_runs(manager)), [], [run])
