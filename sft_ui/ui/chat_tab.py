"""The Chat tab: pick a finished run and talk to its model, replies streamed."""
from __future__ import annotations

import gradio as gr

from ..chat import ChatService, normalise_history
from ..runs import USER_ERRORS, RunManager

LATEST = "latest finished run"


def run_choices(manager: RunManager) -> list[str]:
    return [LATEST] + [r["run_id"] for r in manager.list_runs() if r["model_dir"]]


def build(manager: RunManager, chat: ChatService) -> None:
    with gr.Row():
        model = gr.Dropdown(run_choices(manager), value=LATEST, label="Chat with run",
                            info="The model saved by a finished or stopped run.")
        refresh = gr.Button("Refresh runs", scale=0)
    bot = gr.Chatbot(label="Chat", height=420)
    with gr.Row():
        message = gr.Textbox(label="Message", placeholder="Ask the trained model...", scale=4)
        send = gr.Button("Send", variant="primary", scale=1)
        stop = gr.Button("Stop", scale=0)
    error = gr.Markdown(elem_id="chat-error")

    def add_user(text, history):
        return "", (history or []) + [{"role": "user", "content": text}]

    def reply(history, choice):
        history = list(history or [])
        messages = normalise_history(history)
        if not messages or not messages[-1]["content"].strip():
            yield history, "Type a message first."
            return
        try:
            for text in chat.stream(messages[-1]["content"], messages[:-1],
                                    None if choice == LATEST else choice):
                yield history + [{"role": "assistant", "content": text}], ""
        except USER_ERRORS as e:
            yield history, f"**Cannot chat:** {e}"

    events = []
    for trigger in (send.click, message.submit):
        events.append(trigger(add_user, [message, bot], [message, bot], api_name=False)
                      .then(reply, [bot, model], [bot, error], api_name=False))
    stop.click(None, cancels=events, api_name=False)
    refresh.click(lambda: gr.update(choices=run_choices(manager)), None, model, api_name=False)
