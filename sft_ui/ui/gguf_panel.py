"""The Export tab's GGUF part: the chosen model as one GGUF file (for llama.cpp, Ollama,
LM Studio; a LoRA run is merged first) with an Ollama Modelfile beside it."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.share.gguf_export import QUANTISATIONS
from sft_ui.ui import export_source
from sft_ui.ui.lang import T


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


def wire(g: Gguf, on_gguf, source: export_source.Source, notice: gr.Markdown) -> None:
    """Export GGUF writes the file of the chosen run or checkpoint (`on_gguf`:
    export_tab.ExportHandlers'); `notice` says where."""
    g.export.click(on_gguf, [source.run, source.checkpoint, g.quantisation], [notice, g.files],
                   api_visibility="private")
