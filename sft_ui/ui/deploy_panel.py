"""The Export tab's last part: deploy this studio itself (its code, requirements and
README front matter) to a Gradio Space of the person's, with the Hub part's token."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.ui.lang import T


@dataclass
class Deploy:
    space: gr.Textbox
    deploy: gr.Button


def build() -> Deploy:
    with gr.Accordion(T("Deploy this studio to my Space"), open=False):
        gr.Markdown(T("Uploads the app itself (code, requirements, README front matter) to a "
                      "Gradio Space of yours, with the token above. Runs stay here."))
        with gr.Row():
            space = gr.Textbox(label=T("Space id"), placeholder="your-name/sft-studio", scale=2)
            deploy = gr.Button(T("Deploy the studio"))
    return Deploy(space, deploy)


def wire(d: Deploy, on_deploy, token: gr.Textbox, notice: gr.Markdown) -> None:
    """Deploy with the Hub part's `token` (`on_deploy`: export_tab.ExportHandlers')."""
    d.deploy.click(on_deploy, [d.space, token], notice, api_visibility="private")
