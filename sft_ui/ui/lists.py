"""Lists of runs that keep themselves current (Chat, Compare, Export, Runs): one timer
for the page looks at the runs every few seconds (every ten while a run trains) and, when
one started, ended, was renamed or deleted, or wrote a checkpoint, each registered list
gets its new choices.
No Refresh needed (the buttons stay)."""
from __future__ import annotations

import gradio as gr

from sft_ui.runs import ACTIVE_STATES, RunManager, checkpoints
from sft_ui.ui.lang import page

EVERY_SECONDS = 3.0
# While a run trains: each look costs the browser a round of client work, often on the
# machine that trains (and a run's lists change only when a checkpoint is written).
TRAINING_SECONDS = 20.0


def fingerprint(manager: RunManager) -> tuple:
    """What the lists show of the runs: ids, states, names, final models, and the
    checkpoints of the run training now. Cheap: runs are cached, one folder is read."""
    runs = tuple((r.id, r.state, r.name, bool(r.model_dir)) for r in manager.all_runs())
    active = manager.active()
    return runs, len(checkpoints(active.dir)) if active is not None else 0


class Lists:
    def __init__(self, manager: RunManager):
        self.manager = manager
        self._lists: list[tuple] = []  # (fn, inputs, outputs)

    def add(self, fn, inputs: list, outputs: list) -> None:
        """fn(*inputs) returns new values for outputs when the runs changed."""
        self._lists.append((fn, list(inputs), list(outputs)))

    def wire(self) -> None:
        """The timer, once every list is added (inside the Blocks being built). A look
        sends only its own state (each output an event names costs the browser work, even
        one left as it was); the lists follow in an event of their own (`changed`) when
        the runs changed."""
        seen = gr.State(None)  # (fingerprint, the timer's seconds) of the last look
        changed = gr.State(None)  # the fingerprint of runs the lists must show
        inputs = [i for _, ins, _ in self._lists for i in ins]
        outputs = [o for _, _, outs in self._lists for o in outs]

        timer = gr.Timer(EVERY_SECONDS)

        def tick(last):
            key = fingerprint(self.manager)
            active = self.manager.active()
            every = TRAINING_SECONDS if active is not None and active.state in \
                ACTIVE_STATES else EVERY_SECONDS
            shown_key, shown_every = last or (None, EVERY_SECONDS)
            ticks = gr.Timer(every) if every != shown_every else gr.skip()
            if (key, every) == (shown_key, shown_every):
                return gr.skip(), gr.skip(), ticks
            return (key, every), (key if key != shown_key else gr.skip()), ticks

        def refresh(*values):
            new, at = [], 0
            for fn, ins, outs in self._lists:
                result = fn(*values[at:at + len(ins)])
                at += len(ins)
                new += list(result) if len(outs) > 1 else [result]
            return new

        timer.tick(tick, [seen], [seen, changed, timer], api_visibility="private",
                   show_progress="hidden", show_progress_on=timer)
        changed.change(refresh, inputs, outputs, api_visibility="private", show_progress="hidden",
                       show_progress_on=timer)
        # A page opened gets its lists at once, in its language (the page was built with
        # English labels; the first look is seconds away).
        page().load(refresh, inputs, outputs, api_visibility="private",
                    show_progress="hidden", show_progress_on=timer)
