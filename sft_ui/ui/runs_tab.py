"""The Runs tab: every run in a table (with its latest evaluation's headline), their loss
curves side by side, rename and delete (with a confirmation step). Reads everything from
`RunManager` and the runs' evaluation files."""
from __future__ import annotations

import html
import time
from dataclasses import dataclass

import gradio as gr
import pandas as pd

from sft_ui.actions import Actions
from sft_ui.errors import UserError
from sft_ui.evaluate.store import headline, latest
from sft_ui.i18n.message import Message
from sft_ui.runs import RunManager
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, compact_duration, keep, note, problem, say
from sft_ui.ui.lists import Lists

# English; the table's headers, states and durations are in the request's language.
COLUMNS = ["Name", "Run id", "Stage", "Model", "Dataset", "Status", "Steps", "Final loss",
           "Evaluation", "Duration", "Created"]


def table_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([[
        r["name"] if r["name"] != r["run_id"] else "--", r["run_id"],
        r.get("stage", "sft").upper(), r["model"],
        r["dataset"], say(r["state"]) + (f" · {say('nothing learnt')}" if r.get("stalled")
                                         else ""),
        f"{r['step']}/{r['max_steps']}",
        "--" if r["final_loss"] is None else f"{r['final_loss']:.4f}",
        say(r.get("evaluation") or "--"),
        compact_duration(r["duration_seconds"]),
        time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created"])),
    ] for r in rows], columns=[say(c) for c in COLUMNS])


def history_rows(manager: RunManager) -> list[dict]:
    """The runs' summaries with the headline of each run's latest evaluation."""
    return [{**r, "evaluation": headline(latest(manager.root / r["run_id"]), r["run_id"])}
            for r in manager.history()]


def run_choices(rows: list[dict]) -> list[tuple[str, str]]:
    """(label, run id) pairs: the run's name (or model and data) and date."""
    return [(say(r["label"]), r["run_id"]) for r in rows]


def curves_frame(manager: RunManager, run_ids) -> pd.DataFrame:
    """The loss series of the chosen runs, one colour each (labelled by name)."""
    runs, names = [], []
    for run_id in run_ids or []:
        try:
            snap = manager.get(run_id).snapshot(log=False)
        except UserError:
            continue  # deleted since the page listed it
        runs.append(snap)
        names.append(snap["name"])
    rows = []
    for snap in runs:
        label = snap["name"] if names.count(snap["name"]) == 1 else \
            f"{snap['name']} ({snap['run_id']})"
        rows += [(label, m["step"], m["loss"]) for m in snap["metrics"] if "loss" in m]
    # Numeric dtypes even when empty: the plot fixes its axis types from the first value.
    return pd.DataFrame({"run": pd.Series([r[0] for r in rows], dtype="str"),
                         "step": pd.Series([r[1] for r in rows], dtype="int64"),
                         "loss": pd.Series([r[2] for r in rows], dtype="float64")})


@dataclass
class RunsView:
    refresh: gr.Button
    notice: gr.Markdown
    table: gr.Dataframe
    compare: gr.Dropdown
    plot: gr.LinePlot
    target: gr.Dropdown
    new_name: gr.Textbox
    rename: gr.Button
    delete: gr.Button
    confirm: gr.Button
    cancel: gr.Button


def build(actions: Actions, tab: gr.Tab | None = None, lists: Lists | None = None) -> None:
    """Lay out the Runs tab inside the current Blocks context; refresh when `tab` is selected
    and (through `lists`) when the runs change."""
    view = layout(actions.manager)
    refreshed = wire(view, actions, tab)
    if lists is not None:
        lists.add(refreshed,
                  [view.compare, view.target], [view.table, view.compare, view.target])


def layout(manager: RunManager) -> RunsView:
    rows = history_rows(manager)
    with gr.Row():
        refresh = gr.Button(T("Refresh"), elem_id="runs-refresh", scale=0)
    notice = gr.Markdown(elem_id="runs-notice")
    table = gr.Dataframe(table_frame(rows), label=T("Runs (newest first)"), interactive=False,
                         wrap=True, elem_id="runs-table",
                         column_widths=["13%", "13%", "14%", "8%", "7%", "7%", "7%", "12%", "7%",
                                        "12%"])
    compare = gr.Dropdown(run_choices(rows), value=[], multiselect=True,
                          label=T("Compare loss curves"), elem_id="runs-compare",
                          info=T("Choose runs to overlay their training loss."))
    plot = gr.LinePlot(curves_frame(manager, []), x="step", y="loss", color="run",
                       label=T("Training loss by run"), elem_id="runs-plot",
                       # (gradio's types leave out the I18nData it takes)
                       x_title=T("step"), y_title=T("loss"),  # type: ignore[arg-type]
                       color_title="")
    with gr.Row():
        target = gr.Dropdown(run_choices(rows), value=None, label=T("Run to rename or delete"),
                             elem_id="runs-target")
        new_name = gr.Textbox(label=T("New name"), max_length=200, elem_id="runs-new-name")
    with gr.Row():
        rename = gr.Button(T("Rename"), elem_id="runs-rename")
        delete = gr.Button(T("Delete..."), variant="stop", elem_id="runs-delete")
        confirm = gr.Button(T("Yes, delete the run and its folder"), variant="stop",
                            visible=False, elem_id="runs-delete-confirm")
        cancel = gr.Button(T("Cancel"), visible=False, elem_id="runs-delete-cancel")
    return RunsView(refresh, notice, table, compare, plot, target, new_name, rename, delete,
                    confirm, cancel)


class RunsHandlers:
    """What the Runs tab does, each a method that tests call without building the page:
    refresh, rename, delete with its confirmation step, and the compared runs' plot."""

    def __init__(self, actions: Actions):
        self.actions, self.manager = actions, actions.manager

    def refreshed(self, chosen, current):
        """New values for the table and both run pickers. A picker's value is sent only
        when a run it holds is gone: a refresh that answers late (the tab's own, under
        load) must not undo a choice made while it ran."""
        rows = history_rows(self.manager)
        choices, ids = run_choices(rows), {r["run_id"] for r in rows}
        kept = [c for c in chosen or [] if c in ids]
        compare = (gr.update(choices=choices) if kept == list(chosen or [])
                   else gr.update(choices=choices, value=kept))
        target = (gr.update(choices=choices, value=None) if current and current not in ids
                  else gr.update(choices=choices))
        return table_frame(rows), compare, target

    @staticmethod
    def hide_confirm(text=""):
        """(the notice, the pending run, Yes, Cancel): the confirmation step hidden."""
        return text, "", gr.update(visible=False), gr.update(visible=False)

    def on_cancel(self):
        return self.hide_confirm(note("Nothing was deleted."))

    def on_rename(self, request: gr.Request, run_id, name, chosen):
        if not run_id:
            return (note("**Choose a run to rename first.**"),) + (gr.skip(),) * 3
        try:
            snap = self.actions.rename(who(request), run_id, name)
        except UserError as e:
            return (problem("Cannot rename:", e, escape=True),) + (gr.skip(),) * 3
        text = note(Message("Run {run_id} is now called **{name}**.", run_id=snap["run_id"],
                            name=html.escape(snap["name"])))
        return (text,) + self.refreshed(chosen, run_id)

    def on_delete(self, request: gr.Request, run_id):
        """Delete...: what will go, with Yes and Cancel shown (nothing is deleted yet)."""
        if not run_id:
            return self.hide_confirm(note("**Choose a run to delete first.**"))
        try:
            snap = self.actions.ask_delete(who(request), run_id)
        except UserError as e:
            return self.hide_confirm(problem("Cannot delete:", e, escape=True))
        text = note(Message("Delete run **{name}** ({run_id}) and its folder `{folder}`? This "
                            "cannot be undone.", name=html.escape(snap["name"]),
                            run_id=snap["run_id"], folder=str(snap["run_dir"])))
        return text, snap["run_id"], gr.update(visible=True), gr.update(visible=True)

    def on_confirm(self, request: gr.Request, run_id, chosen, current):
        try:
            deleted = self.actions.delete(who(request), run_id)
        except UserError as e:
            return self.hide_confirm(problem("Cannot delete:", e, escape=True)) + \
                (gr.skip(),) * 3
        return self.hide_confirm(note(Message("Deleted run {run_id}.", run_id=deleted))) + \
            self.refreshed(chosen, current)

    def replot(self, chosen):
        return curves_frame(self.manager, chosen)

    def redraw(self, chosen):
        """Rebuild the plot's colours: an update of the data alone keeps the series
        (colour domain) of the first frame the page drew, so new runs stay invisible."""
        return gr.update(colors_in_legend=list(curves_frame(self.manager,
                                                            chosen)["run"].unique()))


def wire(v: RunsView, actions: Actions, tab: gr.Tab | None):
    """Bind the tab to RunsHandlers: refresh, compare, rename and delete (with its
    confirmation step); returns the function that gives the table, the pickers and the
    plot their new values."""
    h = RunsHandlers(actions)
    pending = gr.State("")  # the run the confirmation step is about
    views = [v.table, v.compare, v.target]
    confirm_step = [v.notice, pending, v.confirm, v.cancel]
    refresh_triggers = [v.refresh.click] + ([tab.select] if tab is not None else [])
    plot_changes = [
        gr.on(refresh_triggers, h.refreshed, [v.compare, v.target], views,
              api_name="ui_runs_refresh", api_visibility="undocumented",
              show_progress="hidden"),
        v.rename.click(h.on_rename, [v.target, v.new_name, v.compare], [v.notice, *views],
                       api_name="ui_rename", api_visibility="undocumented"),
        v.confirm.click(h.on_confirm, [pending, v.compare, v.target], confirm_step + views,
                        api_name="ui_delete", api_visibility="undocumented"),
    ]
    for event in plot_changes:  # the plot for the runs chosen when it is drawn, then colours
        event = event.then(h.replot, v.compare, v.plot, api_visibility="private",
                           show_progress="hidden")
        event.then(h.redraw, v.compare, v.plot, api_visibility="private",
                   show_progress="hidden")
    v.compare.input(h.replot, v.compare, v.plot, api_visibility="private",
                    show_progress="hidden").then(
        h.redraw, v.compare, v.plot, api_visibility="private", show_progress="hidden")
    v.delete.click(h.on_delete, v.target, confirm_step, api_name="ui_delete_ask",
                   api_visibility="undocumented")
    v.cancel.click(h.on_cancel, None, confirm_step, api_visibility="private")
    v.target.input(h.hide_confirm, None, confirm_step, api_visibility="private",
                   show_progress="hidden")
    # The table's headers, states and durations, and the pickers' runs, in the language the
    # page switched to; what the notice said too.
    after_switch(h.refreshed, [v.compare, v.target], views)
    keep(v.notice)
    return h.refreshed
