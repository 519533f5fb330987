"""The Gradio app: one module per tab or panel, the HTTP API, and the Blocks they sit in
(studio.py). Only this package imports gradio."""
from __future__ import annotations

import gradio as gr

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.runs import RunManager
from sft_ui.ui import access_panel, api, chat_tab, evaluate_tab, export_tab, runs_tab, train_tab
from sft_ui.ui.lang import T, after_switch, build_selector, say
from sft_ui.ui.lists import Lists
from sft_ui.ui.studio import Studio


def build_app(manager: RunManager | None = None, access: Access | None = None) -> gr.Blocks:
    """The page and the API. `access` says who may train, delete and push (default:
    read from the environment, see sft_ui/access.py)."""
    actions = Actions(manager or RunManager(), access or Access.from_env())
    with Studio(title="SFT Studio") as app:
        with gr.Row(equal_height=True):
            gr.Markdown(T("# SFT Studio\nFine-tune a language model on the machine you have."))
            build_selector()
        access_panel.build(actions)
        lists = Lists(actions.manager)
        with gr.Tab(T("Train")) as train:
            train_tab.build(actions, lists)
        with gr.Tab(T("Chat")) as chat:
            chat_tab.build(actions, lists)
        with gr.Tab(T("Compare")) as compare:
            chat_tab.build_compare(actions, lists)
        with gr.Tab(T("Evaluate")) as evaluate:
            evaluate_tab.build(actions, lists)
        with gr.Tab(T("Runs")) as runs:
            runs_tab.build(actions, runs, lists)
        with gr.Tab(T("Export")) as export:
            export_tab.build(actions, lists)
        tabs = {"Train": train, "Chat": chat, "Compare": compare, "Evaluate": evaluate,
                "Runs": runs, "Export": export}
        # The tabs not shown keep the label they were drawn with when the page switches
        # language: each gets its label again, in the new one.
        after_switch(lambda: [gr.Tab(label=say(name)) for name in tabs], None,
                     list(tabs.values()))
        lists.wire()
        api.build(actions)
    return app
