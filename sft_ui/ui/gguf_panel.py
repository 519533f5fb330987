"""The Export tab's GGUF part: the chosen model as one GGUF file (for llama.cpp, Ollama,
LM Studio; a LoRA run is merged first) with an Ollama Modelfile beside it."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.share.gguf_export import QUANTISATIONS
from sft_ui.ui import export_source
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, note, problem


@dataclass
class Gguf:
    quantisation: gr.Dropdown
    export: gr.Button
    files: gr.File


def build() -> Gguf:
    with gr.Row():
        quantisation = gr.Dropdown(list(QUANTISATIONS), value="q8_0",
                                   label=T("GGUF quantisation"),
                                   info=T("f16: the weights at half precision; q8_0: about "
                                          "half that size, nearly the same answers."))
        export = gr.Button(T("Export GGUF"), scale=0)
    files = gr.File(label=T("GGUF file and Ollama Modelfile"), file_count="multiple",
                    interactive=False, elem_id="export-gguf")
    return Gguf(quantisation, export, files)


def wire(g: Gguf, actions: Actions, source: export_source.Source, notice: gr.Markdown) -> None:
    """Export GGUF writes the file of the chosen run or checkpoint; `notice` says where."""
    def on_gguf(request: gr.Request, run_id, ckpt, q):
        if not run_id:
            return note(export_source.NO_RUN_CHOSEN), gr.skip()
        try:
            file, modelfile = actions.export_gguf(who(request), run_id,
                                                  export_source.checkpoint_name(ckpt), q)
        except UserError as e:
            return problem("Cannot export GGUF:", e), gr.skip()
        return (note(Message("GGUF written to `{file}`. For Ollama: `ollama create my-model "
                             "-f {modelfile}`.", file=str(file), modelfile=str(modelfile))),
                [str(file), str(modelfile)])

    g.export.click(on_gguf, [source.run, source.checkpoint, g.quantisation], [notice, g.files],
                   api_visibility="private")
