"""The Gradio app: one module per tab plus the HTTP API. Only this package imports gradio."""
from __future__ import annotations

import gradio as gr

from ..access import Access
from ..chat import ChatService
from ..runs import RunManager
from . import access_panel, api, chat_tab, export_tab, history_tab, train_tab
from .lang import T, Studio, build_selector


def build_app(manager: RunManager | None = None, access: Access | None = None) -> gr.Blocks:
    """The page and the API. `access` says who may train, delete and push (default:
    read from the environment, see sft_ui/access.py)."""
    manager = manager or RunManager()
    access = access or Access.from_env()
    chat = ChatService(manager)
    with Studio(title="SFT Studio") as app:
        with gr.Row(equal_height=True):
            gr.Markdown(T("# SFT Studio\nFine-tune a language model on the machine you have."))
            build_selector()
        access_panel.build(access)
        with gr.Tab(T("Train")):
            train_tab.build(manager, access)
        with gr.Tab(T("Chat")):
            chat_tab.build(chat)
        with gr.Tab(T("Compare")):
            chat_tab.build_compare(chat)
        with gr.Tab(T("Runs")) as runs_tab:
            history_tab.build(manager, runs_tab, access)
        with gr.Tab(T("Export")):
            export_tab.build(manager, access)
        api.build(manager, chat, access)
    return app
