"""The Train tab follows the stage: the settings and panels that apply to it are shown, the
others hidden, and the demo set follows it; and Continue, the settings of the next stage's
run after a finished run filled into the panels (runs/next_stage.py).
"""
from __future__ import annotations

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.config.registry import applies, panels
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.runs.next_stage import can_continue, next_stages
from sft_ui.runs.snapshot import RunSnapshot
from sft_ui.stages import demos, get, stage_of, stages
from sft_ui.stages import names as stage_names
from sft_ui.ui.access_panel import who
from sft_ui.ui.data_panel import dataset_choices
from sft_ui.ui.lang import T, note, page, problem, say
from sft_ui.ui.widgets import config_to_values


def staged(names) -> list[str]:
    """The settings among `names` that some stage does without (the others never hide)."""
    return [n for n in names if not all(applies(n, stage) for stage in stage_names())]


def shown(names, stage: str) -> dict[str, bool]:
    """Whether each setting of `names` shows under `stage`."""
    return {n: applies(n, stage) for n in names}


def panel_shown(group: str, stage: str) -> bool:
    """Whether a settings panel shows under `stage`: it holds a setting that applies."""
    return any(applies(n, stage) for p in panels() if p.group == group for n in p.names)


def demo_switch(stage: str, dataset: str) -> str | None:
    """The stage's demo set when `dataset` is another stage's that it cannot read (the
    SFT examples for a preference stage, or the pairs for sft); else None."""
    reader, chosen = demos().get(str(dataset or "").strip()), get(stage)
    if reader and chosen and reader.family != chosen.family:
        return chosen.demo
    return None


class StageHandlers:
    """What a change of stage does, each a method that tests call without building the page:
    the settings `names` that hide under some stage, the rows (gr.Row, its settings' names)
    and the panels' groups that do, each shown or hidden; the datasets offered."""

    def __init__(self, actions: Actions, names: list[str], row_names: list, groups: list):
        self.actions, self.names = actions, names
        self.row_names, self.groups = row_names, groups

    def offered(self, request, stage, dataset, **value):
        """The datasets offered, an uploaded file by its name (the one chosen too)."""
        listed = self.actions.dataset_choices(who(request), stage)
        return gr.update(choices=dataset_choices(listed, value.get("value", dataset)), **value)

    def on_stage(self, request: gr.Request, stage, dataset):
        """Each setting, row and panel shown or hidden; the datasets (the stage's demo set
        where the chosen one is another stage's)."""
        visible = shown(self.names, stage)
        switched = demo_switch(stage, dataset)
        return ([gr.update(visible=visible[n]) for n in self.names] +
                [gr.update(visible=any(applies(n, stage) for n in names))
                 for names in self.row_names] +
                [gr.update(visible=panel_shown(g, stage)) for g in self.groups] +
                [self.offered(request, stage, dataset,
                              **({} if switched is None else {"value": switched}))])

    def on_load(self, request: gr.Request, stage, dataset):
        return self.offered(request, stage, dataset)


def wire(stage_box: gr.Dropdown, dataset_box, widgets: dict, rows: list, accordions: dict,
         actions: Actions, opened=None) -> None:
    """Bind the stage to StageHandlers. Hide and show, on every change of the stage: the
    settings (`widgets`, by name), the rows of the panels (`rows`: (gr.Row, its settings'
    names)) and the panels (`accordions`, by group) that depend on it; switch the demo set;
    and offer the datasets for the stage (its built-in set, earlier runs' data:
    Actions.dataset_choices) when the page loads (after `opened`, the event that fills a
    page's settings, when given) and whenever the stage changes. On the change event, so
    whatever sets the stage (a person, a preset, a settings file, Apply suggestion,
    Continue) updates the panels."""
    names = staged(widgets)
    row_list = [(row, row_names) for row, row_names in rows if staged(row_names)]
    groups = [g for g in accordions if staged(n for p in panels() if p.group == g
                                              for n in p.names)]
    outputs = ([widgets[n] for n in names] + [row for row, _ in row_list] +
               [accordions[g] for g in groups] + [dataset_box])
    h = StageHandlers(actions, names, [row_names for _, row_names in row_list], groups)
    stage_box.change(h.on_stage, [stage_box, dataset_box], outputs, api_visibility="private",
                     show_progress="hidden", show_progress_on=stage_box)
    (opened.then if opened is not None else page().load)(
        h.on_load, [stage_box, dataset_box], dataset_box, api_visibility="private",
        show_progress="hidden")


def build_continue() -> tuple[gr.Button, gr.Button]:
    """The buttons shown after a finished run that has a next stage (the live view's tick
    shows them, named for those stages, each Stage's `continue_label`: continue_update):
    the first for the first stage that follows the run's, the second for another."""
    first, *also = [s.continue_label for s in stages() if s.follows] or [""]
    return (gr.Button(T(first), visible=False, size="sm", min_width=80,
                      elem_id="continue-preference"),
            gr.Button(T(also[0] if also else first), visible=False, size="sm",
                      min_width=80, elem_id="continue-also"))


def continue_visible(snap: RunSnapshot | None) -> bool:
    return can_continue(snap) if snap else False


def continue_update(snap: RunSnapshot | None) -> tuple:
    """The two Continue buttons for the shown run: each shown when the run can be
    continued with a stage offered there, with the words of that stage."""
    offered = next_stages((snap.get("config") or {}).get("stage", "sft") if snap else "sft") \
        if continue_visible(snap) else []
    return tuple(gr.update(visible=True, value=say(offered[i].continue_label))
                 if i < len(offered) else gr.update(visible=False) for i in range(2))


def follow_up_markdown(run_id: str, title: str, notes: list[str]) -> str:
    """What Continue filled in, in the request's language (a notice: it follows a switch
    of language)."""
    return note(Message("**Filled in a {title} run after run {run_id}.** Check the settings, "
                        "then press Start.", title=title, run_id=run_id), items=notes)


class ContinueHandlers:
    """Continue, as methods that tests call without building the page: the settings of the
    next stage's run after the shown run (`run_of(current id)`: the run the live view
    shows), as values of the settings `names`, and what was set."""

    def __init__(self, actions: Actions, run_of, names: list[str]):
        self.actions, self.run_of, self.names = actions, run_of, names

    def on_continue(self, current, which: int):
        """The first (`which` 0) or the other stage offered after the run."""
        run = self.run_of(current)
        try:
            if run is None:
                raise UserError("No finished SFT run to continue.")
            offered = next_stages(run.config.stage)
            choice = offered[which].name if which < len(offered) else ""
            follow = self.actions.continue_with_preference(run.id, choice)
        except UserError as e:
            return [gr.skip()] * len(self.names) + [problem("Cannot continue:", e)]
        title = stage_of(follow.config).title
        return config_to_values(follow.config, self.names) + [
            follow_up_markdown(run.id, title, follow.notes)]

    def on_first(self, current):
        return self.on_continue(current, 0)

    def on_also(self, current):
        return self.on_continue(current, 1)


def wire_continue(buttons: tuple, run_of, run_id: gr.State, names: list[str],
                  inputs: list, notice: gr.Markdown, actions: Actions) -> None:
    """Bind Continue to ContinueHandlers: the next stage's settings into every panel
    (`inputs`, the settings `names`), and what was set into `notice`; the first button for
    its stage's `next`, the second for the other stage offered."""
    h = ContinueHandlers(actions, run_of, names)
    first, also = buttons
    first.click(h.on_first, run_id, [*inputs, notice],
                api_name="ui_continue_preference", api_visibility="undocumented",
                show_progress_on=notice)  # not on every setting: train_tab's PROGRESS_NOTE
    also.click(h.on_also, run_id, [*inputs, notice],
               api_name="ui_continue_also", api_visibility="undocumented",
               show_progress_on=notice)
