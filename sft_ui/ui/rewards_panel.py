"""GRPO's Rewards panel, besides its settings: the help of the written reward (a code box
shows none of its own) and Test rewards: the model writes answers to a few prompts and
every reward function scores each one, in a table, with a warning for a prompt whose
answers all scored alike (nothing to learn from). Nothing is saved; errors in a reward
are shown with their row and line."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from sft_ui.actions import Actions
from sft_ui.config import registry
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, keep, note, problem, say
from sft_ui.ui.widgets import values_to_dict

EXAMPLE = '''def short_json(completions, answer, **kwargs):
    """1 for a short answer that holds the right number."""
    texts = [c if isinstance(c, str) else c[0]["content"] for c in completions]
    return [float(len(t) < 40 and a in t) for t, a in zip(texts, answer)]'''


def build_controls():
    """The written reward's help, Test rewards and its outputs; returns them."""
    gr.Markdown(T(registry.field("reward_code").metadata["help"]), elem_id="reward-code-help")
    with gr.Accordion(T("An example reward function"), open=False):
        gr.Code(EXAMPLE, language="python", interactive=False)
    button = gr.Button(T("Test rewards"), size="sm", elem_id="test-rewards")
    notes = gr.Markdown(elem_id="reward-notes")
    table = gr.Dataframe(None, label=T("Answers of the model now, and their rewards"),
                         wrap=True, interactive=False, visible=False, elem_id="reward-table")
    return button, notes, table


class RewardsHandlers:
    """Test rewards, as a method that tests call without building the page (`names`: the
    settings' names, in the order of the values it is given)."""

    def __init__(self, actions: Actions, names: list[str]):
        self.actions, self.names = actions, names

    def on_test(self, request: gr.Request, *values):
        """(what was scored and the first prompt as the model reads it, the table)."""
        try:
            found = self.actions.test_rewards(who(request), values_to_dict(self.names, values))
        except UserError as e:
            return problem("Cannot test the rewards:", e), gr.update(visible=False)
        frame = pd.DataFrame([{**{k: v for k, v in row.items()}} for row in found["rows"]])
        frame = frame.rename(columns={"prompt": say("prompt"), "completion": say("completion"),
                                      "total": say("total")})
        scored = note(Message("**{rows} answers scored** by {join}.", rows=len(found["rows"]),
                              join=", ".join(found["names"])),
                      items=[*found["notes"], *found["warnings"]] or [
                          "Every prompt's answers got different rewards: there is something "
                          "to learn from."], escape=True)
        seen = "```\n" + found["seen"].replace("```", "` ` `") + "\n```"  # (as it is)
        return (f"{scored}\n\n{note('The first prompt as the model reads it:')}\n\n{seen}",
                gr.update(value=frame, visible=True))


def wire(controls, names: list[str], inputs: list, actions: Actions) -> None:
    """Bind Test rewards to RewardsHandlers."""
    button, notes, table = controls
    h = RewardsHandlers(actions, names)
    button.click(h.on_test, inputs, [notes, table], api_name="test_rewards",
                 api_visibility="undocumented")
    keep(notes)  # (the table's answers and scores stay as they are)
