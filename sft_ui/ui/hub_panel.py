"""The Export tab's Hub part: push the export to a model repo, and publish a chat Space
for a pushed model. The token field belongs to this page only: it is sent with the call
and kept nowhere."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.ui.lang import T, keep


@dataclass
class Hub:
    repo: gr.Textbox
    private: gr.Checkbox
    token: gr.Textbox  # the deploy panel uses it too
    push: gr.Button
    space_id: gr.Textbox
    publish: gr.Button
    notice: gr.Markdown  # the deploy panel's too


def build() -> Hub:
    gr.Markdown(T("### Push to the Hugging Face Hub"))
    with gr.Row():
        repo = gr.Textbox(label=T("Model repo id"), placeholder="your-name/my-model")
        private = gr.Checkbox(True, label=T("Private"))
    token = gr.Textbox(label=T("Hugging Face token (write access)"), type="password",
                       info=T("Used for this push only; never saved, logged or written into "
                              "the model card."))
    push = gr.Button(T("Push the export"))
    # The Space loads the model from the Hub: what it needs said before the button.
    gr.Markdown(T("### Publish a chat Space"))
    gr.Markdown(T("A chat app for the model pushed above: the Space loads it from the Hub "
                  "by its Model repo id, so push the export first."), elem_id="publish-help")
    with gr.Row():
        space_id = gr.Textbox(label=T("Space id for a chat app"),
                              placeholder="your-name/my-chat", scale=2)
        publish = gr.Button(T("Publish as a chat Space"), elem_id="publish-space")
    notice = gr.Markdown(elem_id="hub-notice")
    return Hub(repo, private, token, push, space_id, publish, notice)


def wire(h: Hub, on_push, on_publish, folder: gr.State) -> None:
    """Push sends the export in `folder` (the Export button's); Publish makes the Space
    (`on_push`, `on_publish`: export_tab.ExportHandlers')."""
    h.push.click(on_push, [folder, h.repo, h.token, h.private], h.notice,
                 api_visibility="private")
    h.publish.click(on_publish, [h.repo, h.space_id, h.token], h.notice,
                    api_visibility="private")
    keep(h.notice)  # (the deploy panel's too) in the page's new language
