"""The Gradio app: one module per tab plus the HTTP API. Only this package imports gradio."""
from __future__ import annotations

import gradio as gr

from ..chat import ChatService
from ..runs import RunManager
from . import api, chat_tab, export_tab, history_tab, train_tab


def build_app(manager: RunManager | None = None) -> gr.Blocks:
    manager = manager or RunManager()
    chat = ChatService(manager)
    with gr.Blocks(title="SFT Studio") as app:
        gr.Markdown("# SFT Studio\nFine-tune a language model on the machine you have.")
        with gr.Tab("Train"):
            train_tab.build(manager)
        with gr.Tab("Chat"):
            chat_tab.build(chat)
        with gr.Tab("Compare"):
            chat_tab.build_compare(chat)
        with gr.Tab("Runs") as runs_tab:
            history_tab.build(manager, runs_tab)
        with gr.Tab("Export"):
            export_tab.build(manager)
        api.build(manager, chat)
    return app
