"""The Chat and Compare tabs: talk to any run, checkpoint or base model with streamed
replies; compare two models on one prompt (both streamed) or on a list of prompts."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from sft_ui.actions import Actions
from sft_ui.chat import LATEST, ChatService, GenSettings, normalise_history
from sft_ui.chat.generation import split_reasoning
from sft_ui.config import DEFAULT_SAMPLE_PROMPTS
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, keep, note, page, problem, say
from sft_ui.ui.lists import Lists

COMPARE_COLUMNS = ["prompt", "model A", "model B"]  # English; headers in the page's language
# The page's default: greedy replies of a small model loop at 1 (a quick-path model said
# "Alright, matey!" 30 times in one Compare reply); shown and changeable.
REPETITION_PENALTY = 1.15


def choices(chat: ChatService) -> list[tuple[str, str]]:
    """(label, reference) pairs, the labels in the session's language."""
    return [(say(label), ref) for label, ref in chat.choices()]


def model_dropdown(chat: ChatService, label: str, value: str = LATEST, elem_id=None):
    return gr.Dropdown(choices(chat), value=value, label=T(label), elem_id=elem_id,
                       info=T("A run's final model, one of its checkpoints (also while it "
                              "trains), or a base model."))


def ask_as_radio() -> gr.Radio:
    """Chat, or complete text: the message as a text's opening (chat.generation's
    ask_as); set to the model's default when a model is picked (asked_as)."""
    return gr.Radio([(T("Chat"), "chat"), (T("Complete text"), "text")], value="chat",
                    label=T("Ask as"), elem_id="ask-as",
                    info=T("Complete text: the message is the opening of a text the model "
                           "continues as typed, with no chat template and no conversation "
                           "before it. Chosen for a model trained on plain text."))


def asked_as(chat: ChatService, *refs: str) -> str:
    """The Ask as of a model just picked (of two compared: text where one is text's)."""
    try:
        return chat.ask_as(*refs)
    except UserError:  # (a reference gone: its reply says so)
        return "chat"


def thinking_radio() -> gr.Radio:
    """Whether a thinking model thinks (GenSettings.thinking): the template's default,
    on or off."""
    return gr.Radio([(T("Model's default"), ""), (T("on"), "on"), (T("off"), "off")],
                    value="", label=T("Thinking"), elem_id="thinking",
                    info=T("For models whose chat template has a thinking switch "
                           "(enable_thinking: Qwen3 and others). The reasoning shows folded "
                           "above the answer."))


def settings_widgets(penalty: float = REPETITION_PENALTY, asks: bool = True) -> list:
    """System prompt, max new tokens, temperature, top-p, repetition penalty (starting at
    `penalty`), thinking, and with `asks`, ask as (chat or complete text): GenSettings'
    fields in order."""
    ask = [ask_as_radio()] if asks else []
    with gr.Accordion(T("Generation settings"), open=False):
        system = gr.Textbox(label=T("System prompt"), lines=2,
                            placeholder=T("Optional: how the assistant should behave"))
        with gr.Row():
            max_new = gr.Number(200, precision=0, label=T("Max new tokens"))
            temperature = gr.Slider(0, 2, 0, step=0.05, label=T("Temperature"),
                                    info=T("0: greedy (the same answer every time)"))
        with gr.Row():
            top_p = gr.Slider(0.05, 1, 1, step=0.05, label=T("Top-p"))
            repetition = gr.Slider(0.5, 2, penalty, step=0.05,
                                   label=T("Repetition penalty"),
                                   info=T("1: off. A little above 1 keeps a small model from "
                                          "saying the same words over and over."))
        thinking = thinking_radio()
    return [system, max_new, temperature, top_p, repetition, thinking, *ask]


def new_conversation(chat: ChatService, ref: str) -> tuple:
    """An empty chat box named after the model `ref` (the conversation before it was with
    another model), and no error."""
    label = next((label for label, value in chat.choices() if value == ref), ref)
    return gr.update(value=[], label=say(Message("Chat with {model}", model=label))), ""


def answered(text: str) -> list[dict]:
    """A reply as the conversation shows it: a thinking model's reasoning apart, folded
    once the answer comes (Gradio's thought message), then its answer."""
    thought, answer = split_reasoning(text)
    if not thought:
        return [{"role": "assistant", "content": answer}]
    status = "done" if answer else "pending"
    return [{"role": "assistant", "content": thought,
             "metadata": {"title": say(Message("Thinking")), "status": status}},
            *([{"role": "assistant", "content": answer}] if answer else [])]


def _error(e: Exception) -> str:
    return problem("Cannot answer:", e)


def compare_frame(rows=()) -> pd.DataFrame:
    """Compare all's rows (prompt, answer A, answer B) under headers in the request's
    language."""
    return pd.DataFrame([list(r) for r in rows], columns=[say(c) for c in COMPARE_COLUMNS])


def relabel_compare(shown) -> pd.DataFrame:
    """The table as it is, under headers in the request's language (it is built before
    any request, and the page may switch language)."""
    if shown is None or len(shown.columns) != len(COMPARE_COLUMNS):
        return compare_frame()
    rows = shown.fillna("").astype(str).values.tolist()
    return compare_frame([r for r in rows if any(cell.strip() for cell in r)])


SCROLL_TO_JS = """() => requestAnimationFrame(() => {
  const box = document.querySelector('#ELEM_ID');
  if (box && box.innerText.trim()) box.scrollIntoView({block: 'nearest'});
})"""


def shown_when_said(box: gr.Markdown, elem_id: str) -> None:
    """Once `box` (a refusal under the conversation or the answers) says something, it
    is scrolled into view: on a small screen it is below the fold, where the reply that
    did not come was awaited."""
    box.change(None, js=SCROLL_TO_JS.replace("ELEM_ID", elem_id), api_visibility="private",
               show_progress="hidden")


class ChatHandlers:
    """What the Chat and Compare tabs do, each a method that tests call without building
    the page."""

    def __init__(self, actions: Actions):
        self.actions, self.chat = actions, actions.chat_service

    # ---- Chat ------------------------------------------------------------------------
    @staticmethod
    def add_user(text, history):
        """The message into the conversation, the box emptied."""
        return "", (history or []) + [{"role": "user", "content": text}]

    def reply(self, request: gr.Request, history, ref, *values):
        """(the conversation as the reply grows, what is said under it); Gradio passes the
        request first."""
        history = list(history or [])
        messages = normalise_history(history)
        if not messages or not messages[-1]["content"].strip():
            yield history, note("Type a message first.")
            return
        try:
            asked = (messages[-1]["content"], messages[:-1], ref, GenSettings(*values))
            # What the model's template changes (a system prompt it has no role for) is
            # said under the conversation while the reply comes.
            changed = list(dict.fromkeys(self.actions.chat_notes(*asked)))
            said = note(changed[0], changed[1:]) if changed else ""
            for text in self.actions.chat(who(request), *asked):
                yield history + answered(text), said
        except UserError as e:
            yield history, _error(e)

    def picked(self, ref):
        """Another model picked: a new conversation named after it, and its Ask as."""
        return (*new_conversation(self.chat, ref), asked_as(self.chat, ref))

    def asked(self, *refs):
        """The Ask as of the model (of two compared: text where one is text's)."""
        return asked_as(self.chat, *refs)

    def listed(self):
        """Chat's list and what its latest run is, in the request's language."""
        return gr.update(choices=choices(self.chat)), say(self.chat.latest_text())

    # ---- Compare ---------------------------------------------------------------------
    def compare_two(self, request: gr.Request, text, ref_a, ref_b, *values):
        """(answer A, answer B, notice) as both grow."""
        try:
            for a, b in self.actions.compare(who(request), text, ref_a, ref_b,
                                             GenSettings(*values)):
                yield a, b, ""
        except UserError as e:
            yield gr.skip(), gr.skip(), _error(e)

    def compare_all(self, text, ref_a, ref_b, max_new, thinking, ask, request: gr.Request):
        """The table as it fills: model A's answers first, with what is left said."""
        try:
            steps = self.actions.compare_batch_steps(who(request), text.splitlines(), ref_a,
                                                     ref_b, int(max_new or 64), ask, thinking)
            yield gr.skip(), note(Message("Model A is answering the {count} prompts, then "
                                          "model B.", count=len([t for t in text.splitlines()
                                                                 if t.strip()])))
            for done, rows in enumerate(steps, 1):
                yield compare_frame((r["prompt"], r["a"], r["b"]) for r in rows), (
                    note(Message("Model A answered {count} prompts; model B is answering "
                                 "them.", count=len(rows))) if done == 1 else "")
        except UserError as e:
            yield gr.skip(), _error(e)

    def both_listed(self):
        """Both model lists, in the request's language."""
        return [gr.update(choices=choices(self.chat))] * 2


def build(actions: Actions, lists: Lists | None = None) -> None:
    """The Chat tab, bound to ChatHandlers; its model list keeps itself current through
    `lists`."""
    chat, h = actions.chat_service, ChatHandlers(actions)
    with gr.Row():
        model = model_dropdown(chat, "Chat with", elem_id="chat-model")
        refresh = gr.Button(T("Refresh"), scale=0)
    latest = gr.Markdown(elem_id="chat-latest")
    settings = settings_widgets()
    bot = gr.Chatbot(label=T("Chat"), height=420)
    with gr.Row():
        message = gr.Textbox(label=T("Message"), placeholder=T("Ask the model..."), scale=4)
        send = gr.Button(T("Send"), variant="primary", scale=1)
        stop = gr.Button(T("Stop"), scale=0)
    error = gr.Markdown(elem_id="chat-error")
    shown_when_said(error, "chat-error")
    events = [trigger(h.add_user, [message, bot], [message, bot], api_visibility="private")
              .then(h.reply, [bot, model, *settings], [bot, error], api_visibility="private",
                    concurrency_limit=None)  # (admitted by limits.py's shares)
              for trigger in (send.click, message.submit)]
    stop.click(None, cancels=events, api_visibility="private")
    # One conversation is with one model: picking another starts a new one, and the box
    # names the model every reply in it came from.
    model.input(h.picked, model, [bot, error, settings[-1]], api_visibility="private",
                show_progress="hidden")
    page().load(h.asked, model, settings[-1], api_visibility="private",
                show_progress="hidden")
    refresh.click(h.listed, None, [model, latest], api_visibility="private")
    keep(error)  # what went wrong, in the page's new language
    after_switch(h.listed, None, [model, latest])  # the labels in the new language
    if lists is not None:
        lists.add(h.listed, [], [model, latest])


def build_compare(actions: Actions, lists: Lists | None = None) -> None:
    """The Compare tab, bound to ChatHandlers: two models, the same prompt."""
    chat, h = actions.chat_service, ChatHandlers(actions)
    with gr.Row():
        model_a = model_dropdown(chat, "Model A", "base", elem_id="compare-a")
        model_b = model_dropdown(chat, "Model B", LATEST, elem_id="compare-b")
        refresh = gr.Button(T("Refresh"), scale=0)
    settings = settings_widgets()
    prompt = gr.Textbox(label=T("Prompt"), placeholder=T("One prompt, answered by both models"))
    with gr.Row():
        go = gr.Button(T("Compare"), variant="primary")
        stop = gr.Button(T("Stop"), scale=0)
    with gr.Row():
        answer_a = gr.Textbox(label=T("Model A"), lines=8, interactive=False,
                              elem_id="answer-a")
        answer_b = gr.Textbox(label=T("Model B"), lines=8, interactive=False,
                              elem_id="answer-b")
    notice = gr.Markdown(elem_id="compare-notice")
    shown_when_said(notice, "compare-notice")
    gr.Markdown(T("### Many prompts at once\nGreedy answers of both models, one row per "
                  "prompt."))
    prompts = gr.Textbox("\n".join(DEFAULT_SAMPLE_PROMPTS), label=T("Prompts (one per line)"),
                         lines=4)
    batch_go = gr.Button(T("Compare all"))
    table = gr.Dataframe(compare_frame(), wrap=True, interactive=False,
                         column_widths=["20%", "40%", "40%"], elem_id="compare-table")
    page().load(relabel_compare, table, table, api_visibility="private",
                show_progress="hidden")
    after_switch(relabel_compare, table, table)
    events: list[dict]  # (gradio's Dependency is a dict, as `cancels` takes it)
    events = [go.click(h.compare_two, [prompt, model_a, model_b, *settings],
                       [answer_a, answer_b, notice], api_visibility="private",
                       concurrency_limit=None),  # (admitted by limits.py's shares)
              batch_go.click(h.compare_all, [prompts, model_a, model_b, settings[1],
                                             settings[5], settings[-1]], [table, notice],
                             api_visibility="private")]
    for picked in (model_a, model_b):  # (text where either model was trained on text)
        picked.input(h.asked, [model_a, model_b], settings[-1], api_visibility="private",
                     show_progress="hidden")
    page().load(h.asked, [model_a, model_b], settings[-1], api_visibility="private",
                show_progress="hidden")
    stop.click(None, cancels=events, api_visibility="private")
    keep(notice)
    refresh.click(h.both_listed, None, [model_a, model_b], api_visibility="private")
    after_switch(h.both_listed, None, [model_a, model_b])
    if lists is not None:
        lists.add(h.both_listed, [], [model_a, model_b])
