"""The run queue in the Train tab (runs/run_queue.py): Add to queue beside Start, and the
person's queued runs above the live view, shown while they have any: the order they
start in, the settings that differ from the defaults, the time each takes (its budget,
or the planner's estimate); one chosen can move sooner or later, be removed, or take the
page's settings."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr
import pandas as pd

from sft_ui.actions import Actions
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, compact_duration, keep, kept, note, page, problems, say
from sft_ui.ui.widgets import settings_said, values_to_dict

COLUMNS = ("Position", "Queued", "State", "Settings", "Time")


def queued_at(queued: str, place: int) -> Message:
    """Add to queue's notice while its run waits (QUEUED: its template, for code to find
    it by, never by its words)."""
    return Message("Queued as {queued}, place {place}.", queued=queued, place=place)


QUEUED = queued_at("", 0).template


@dataclass
class QueuePanel:
    box: gr.Accordion
    table: gr.Dataframe
    chosen: gr.Dropdown
    sooner: gr.Button
    later: gr.Button
    remove: gr.Button
    replace: gr.Button
    notice: gr.Markdown


def build() -> QueuePanel:
    with gr.Accordion(T("Queue"), open=True, visible=False, elem_id="queue-panel") as box:
        table = gr.Dataframe(frame([]), interactive=False, wrap=True, elem_id="queue-table",
                             show_label=False, column_widths=["9%", "11%", "15%", "50%", "15%"])
        with gr.Row(equal_height=True):
            chosen = gr.Dropdown([], label=T("Queued run"), elem_id="queue-chosen", scale=2)
            sooner = gr.Button(T("Sooner"), size="sm", min_width=60)
            later = gr.Button(T("Later"), size="sm", min_width=60)
            remove = gr.Button(T("Remove"), size="sm", variant="stop", min_width=60)
            replace = gr.Button(T("Use the page's settings"), size="sm", min_width=100)
        notice = gr.Markdown(elem_id="queue-notice")
    return QueuePanel(box, table, chosen, sooner, later, remove, replace, notice)


def frame(rows: list[dict]) -> pd.DataFrame:
    """The table: place, id, state (the run's once started), settings, time."""
    out = []
    for r in rows:
        text = settings_said(r["changed"])
        state = say(r["state"]) + (f": {say(r['error'])}" if r.get("error") else "")
        if r.get("run_id"):
            state += f" · {r['run_id']}"
        out.append([r["place"] or "--", r["id"], state, text or say("the defaults"),
                    compact_duration(r["seconds"]) if r.get("seconds") else "--"])
    return pd.DataFrame(out, columns=[say(c) for c in COLUMNS])


class QueueHandlers:
    """What the queue panel does, each a method that tests call without building the page
    (`names`: the settings' names, in the order of the values Add to queue is given)."""

    def __init__(self, actions: Actions, names: list[str]):
        self.actions, self.names = actions, names

    def shown(self, request: gr.Request, current=None):
        """(the panel shown while the person has queued runs, the table, the chosen run)."""
        rows = self.actions.queued(who(request))
        waiting = [r["id"] for r in rows if r["state"] == "waiting"]
        keep_chosen = current if current in waiting else (waiting[0] if waiting else None)
        return (gr.Accordion(visible=bool(rows)), frame(rows),
                gr.Dropdown(choices=waiting, value=keep_chosen))

    def on_add(self, request: gr.Request, *values):
        """Add to queue: its answer (in Start's notice) and the panel."""
        try:
            queued = self.actions.queue_run(who(request), values_to_dict(self.names, values))
        except UserError as e:
            return (problems("Cannot queue:", e), *self.shown(request))
        rows = {r["id"]: r for r in self.actions.queued(who(request))}
        place = rows.get(queued, {}).get("place")
        said = queued_at(queued, place) if place else \
            Message("Queued as {queued}: it started at once, as no run was training.",
                    queued=queued)
        return (note(said), *self.shown(request, queued))

    def act(self, fn):
        """A button's handler: `fn(who, the chosen run, *values)`, then the panel again."""
        def handler(request: gr.Request, current, *values):
            try:
                fn(who(request), current, *values)
            except UserError as e:
                return (problems("Cannot change the queue:", e), *self.shown(request, current))
            return ("", *self.shown(request, current))
        return handler

    def still_true(self, request: gr.Request, said):
        """Add to queue's notice goes once its run has left the queue (started): found by
        the notice's message (QUEUED) and its run, never by its words."""
        found = [part["text"].args["queued"] for part in kept(said)
                 if isinstance(part["text"], Message) and part["text"].template == QUEUED]
        if not found:
            return gr.skip()
        waiting = {r["id"] for r in self.actions.queued(who(request))
                   if r["state"] == "waiting"}
        return "" if any(queued not in waiting for queued in found) else gr.skip()


def wire(panel: QueuePanel, add: gr.Button, names: list[str], inputs: list, actions: Actions,
         start_notice: gr.Markdown, run_state: gr.State) -> None:
    """Bind the panel to QueueHandlers: Add to queue (its answer in Start's notice), the
    buttons of a chosen queued run, and the table kept current: after each of these, on a
    page opened, in a new language and when the run the live view shows, or its state,
    changed (`run_state`: a run ended, the next began)."""
    h = QueueHandlers(actions, names)
    outputs = [panel.box, panel.table, panel.chosen]
    add.click(h.on_add, inputs, [start_notice, *outputs], api_visibility="private",
              show_progress="hidden")
    buttons: tuple[tuple, ...]  # (button, its action, its inputs besides the chosen entry)
    buttons = ((panel.sooner, lambda w, q: actions.move_queued(w, q, -1), []),
               (panel.later, lambda w, q: actions.move_queued(w, q, 1), []),
               (panel.remove, actions.unqueue, []),
               (panel.replace, lambda w, q, *v: actions.edit_queued(
                   w, q, values_to_dict(names, v)), inputs))
    for button, fn, extra in buttons:
        button.click(h.act(fn), [panel.chosen, *extra], [panel.notice, *outputs],
                     api_visibility="private", show_progress="hidden")
    keep(panel.notice)
    gr.on([page().load, run_state.change], h.shown, panel.chosen,
          outputs, api_visibility="private", show_progress="hidden")
    run_state.change(h.still_true, start_notice, start_notice, api_visibility="private",
                     show_progress="hidden")
    after_switch(h.shown, panel.chosen, outputs)
