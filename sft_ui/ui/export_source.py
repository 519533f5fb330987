"""What the Export tab exports: a run with a final model or a checkpoint, and which of
them. The download, the GGUF file and the push all start from this choice."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.errors import UserError
from sft_ui.runs import RunManager, checkpoints, display_name
from sft_ui.share.export import is_lora_run
from sft_ui.ui.lang import T, after_switch, page, say
from sft_ui.ui.lists import Lists

FINAL = "final model"
NO_RUN_CHOSEN = ("Choose a run first: the Run list holds every run with a final model or a "
                 "checkpoint. None there yet? Train one on the Train tab.")


def exportable_runs(manager: RunManager) -> list[tuple[str, str]]:
    """(label, run id) of every run with a final model or a checkpoint, newest first."""
    return [(f"{say(display_name(r))} ({say(r.state)})", r.id) for r in manager.all_runs()
            if r.model_dir or checkpoints(r.dir)]


def checkpoint_choices(manager: RunManager, run_id: str) -> list[tuple[str, str]]:
    """(label, value): the final model (named in the page's language), then the run's
    checkpoints."""
    final = [(say(FINAL), FINAL)]
    if not run_id:
        return final
    try:
        run = manager.get(run_id)
    except UserError:
        return final
    return final + [(p.name, p.name) for p in checkpoints(run.dir)]


def checkpoint_name(choice: str) -> str:
    """The checkpoint the actions take: blank for the final model."""
    return "" if choice == FINAL else choice


@dataclass
class Source:
    run: gr.Dropdown
    checkpoint: gr.Dropdown
    refresh: gr.Button


def build(manager: RunManager) -> Source:
    with gr.Row():
        run = gr.Dropdown(exportable_runs(manager), label=T("Run"), elem_id="export-run")
        checkpoint = gr.Dropdown([FINAL], value=FINAL, label=T("Model or checkpoint"))
        refresh = gr.Button(T("Refresh"), scale=0)
    return Source(run, checkpoint, refresh)


class SourceHandlers:
    """What the choice of a run to export does, each a method that tests call without
    building the page."""

    def __init__(self, manager: RunManager):
        self.manager = manager

    def on_run(self, run_id):
        """Its checkpoints; the merge choice only for a LoRA run."""
        try:
            lora = bool(run_id) and is_lora_run(self.manager.get(run_id))
        except UserError:
            lora = False
        return (gr.update(choices=checkpoint_choices(self.manager, run_id), value=FINAL),
                gr.update(visible=lora, value=False if not lora else gr.skip()))

    def runs(self, current=None, picked=None):
        """The run list; the run the person picked stays (its value is not sent: a late
        answer must not undo a newer choice), else the newest finished run is chosen, also
        after a newer one finished since the page chose one (the tab opens ready on it)."""
        choices = exportable_runs(self.manager)
        ids = [run_id for _, run_id in choices]
        latest = self.manager.latest_finished()
        if current in ids and (current == picked or latest is None or latest.id == current):
            return gr.update(choices=choices)
        return gr.update(choices=choices, value=latest.id if latest else None)

    @staticmethod
    def picked(run_id):
        """The run the person picked, remembered."""
        return run_id

    def listed(self, run_id):
        """The chosen run's models in the page's language ("final model")."""
        return gr.update(choices=checkpoint_choices(self.manager, run_id))


def wire(source: Source, manager: RunManager, merged: gr.Checkbox,
         lists: Lists | None = None) -> None:
    """Bind the choice to SourceHandlers: a run chosen shows its checkpoints, and the merge
    choice for a LoRA run; the run list follows Refresh, a language switch and (through
    `lists`) the runs' changes."""
    h = SourceHandlers(manager)
    picked = gr.State(None)  # the run the person picked from the list (none: the page's)
    source.run.input(h.picked, source.run, picked, api_visibility="private",
                     show_progress="hidden")
    source.run.change(h.on_run, source.run, [source.checkpoint, merged],
                      api_visibility="private")
    source.refresh.click(h.runs, [source.run, picked], source.run, api_visibility="private")
    page().load(h.runs, [source.run, picked], source.run, api_visibility="private",
                show_progress="hidden")
    # After a language switch: the run list's states in the new one.
    after_switch(h.runs, [source.run, picked], source.run)
    page().load(h.listed, source.run, source.checkpoint, api_visibility="private",
                show_progress="hidden")
    after_switch(h.listed, source.run, source.checkpoint)
    if lists is not None:
        lists.add(h.runs, [source.run, picked], [source.run])
