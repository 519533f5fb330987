"""The plan under the batch settings, in the page: the plan and its one-line summary
(their words: ui/plan_text.py) updated as the settings change; Fit to this machine,
Measure speed, and Apply suggestion after a run ran out of memory. The arithmetic is
planner.py's; this module only shows it."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.access import Who
from sft_ui.actions import Actions
from sft_ui.config import RunConfig
from sft_ui.config.registry import fit_names, plan_inputs
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.ui import target_plan
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, keep, kept, note, problems, say
from sft_ui.ui.plan_text import NO_PLAN, plan_line, plan_markdown
from sft_ui.ui.widgets import config_to_values, edits, values_to_dict

FIT_FIELDS = fit_names()  # what Fit may change (config/fields.py's `fit`)


@dataclass
class PlanControls:
    target: gr.Dropdown
    details: gr.Markdown
    fit: gr.Button
    measure: gr.Button
    apply: gr.Button
    notice: gr.Markdown


def build() -> PlanControls:
    """The panel's widgets, inside the Batch and time panel; the plan comes when the page
    loads."""
    target = target_plan.build()
    details = gr.Markdown(elem_id="plan")
    with gr.Row():
        fit = gr.Button(T("Fit to this machine"), size="sm", elem_id="plan-fit")
        measure = gr.Button(T("Measure speed"), size="sm", elem_id="plan-measure")
        apply = gr.Button(T("Apply suggestion"), size="sm", elem_id="plan-apply")
    notice = gr.Markdown(elem_id="plan-notice")
    return PlanControls(target, details, fit, measure, apply, notice)


def show_plan(actions: Actions, who: Who, values: dict, target: str = "") -> tuple[str, str]:
    """The plan for loose RunConfig values as Markdown (in full, and in one line), on this
    machine or a target GPU, or what is wrong with them; never a trace."""
    return plan_texts(actions, who, values, target)[:2]


def plan_texts(actions: Actions, who: Who, values: dict,
              target: str = "") -> tuple[str, str, dict | None]:
    """show_plan's two texts and the plan they show (None: no plan), which the one-line
    plan is written from again while a run trains (ui/run_controls.py)."""
    try:
        p = actions.plan(who, values, target)
    except UserError as e:
        text = problems("No plan for these settings:", e, NO_PLAN)
        return text, text, None
    except Exception as e:  # keep the page usable, say what happened
        text = say(Message("**No plan:** {error_type}: {error}", error_type=type(e).__name__,
                           error=str(e)))
        return text, text, None
    return plan_markdown(p), plan_line(p), p  # (each said in the page's language already)


class PlanHandlers:
    """What the plan panel does, each a method that tests call without building the page
    (`names`: the settings' names, in the order of the values each is given, the target
    after them)."""

    def __init__(self, actions: Actions, names: list[str]):
        self.actions, self.manager, self.names = actions, actions.manager, names

    def on_change(self, request: gr.Request, *values):
        """(the plan in full, its one line, the plan) for the settings and the target."""
        return plan_texts(self.actions, who(request), values_to_dict(self.names, values[:-1]),
                          values[-1] or "")

    def on_load(self, request: gr.Request):
        return plan_texts(self.actions, who(request), {})

    def on_fit(self, *values):
        """Fit to this machine (or the target): the fitted settings and what changed."""
        try:
            new, text = self.actions.fit(values_to_dict(self.names, values[:-1]),
                                         values[-1] or "")
        except UserError as e:
            return (*[gr.skip()] * len(FIT_FIELDS), problems("Cannot fit:", e))
        return (*config_to_values(new, FIT_FIELDS), note(text))

    def on_target(self, target):
        return gr.update(value=say(target_plan.fit_label(target or "")))

    def on_measure(self, request: gr.Request, *values):
        """Measure speed on this machine (whatever the target), then plan again with it."""
        try:
            speed = self.actions.measure(who(request), values_to_dict(self.names, values[:-1]))
        except UserError as e:
            return gr.skip(), gr.skip(), gr.skip(), problems("Cannot measure:", e)
        except Exception as e:  # out of memory, for one: say it in the page
            return gr.skip(), gr.skip(), gr.skip(), note(Message(
                "**Measuring failed:** {error_type}: {error}", error_type=type(e).__name__,
                error=str(e)))
        return (*self.on_change(request, *values),
                note(Message("Measured {speed} tokens/s.", speed=f"{speed:,.0f}")))

    def on_apply(self):
        """Apply suggestion: the settings of the last run that ran out of memory, with the
        smaller ones it suggested."""
        manager = self.manager
        runs = [manager.active()] if manager.active() else manager.all_runs()[:1]
        run = runs[0] if runs else None
        if run is None or run.state != "failed" or not run.suggestion:
            return (*[gr.skip()] * len(self.names),
                    note("No suggestion to apply: the last run did not run out of memory."))
        cfg = RunConfig.from_dict({**run.config.to_dict(), **run.suggestion})
        changes = ", ".join(f"{k} {v}" for k, v in run.suggestion.items())
        return (*config_to_values(cfg, self.names),
                note(Message("Filled in the settings of run {name} with {changes}. Press "
                             "Start.", name=run.name, changes=changes)))

    def on_other(self, request: gr.Request, shown_line, *values):
        """A plan that could not be made says why until its cause is gone: while it says
        so (or Start said it in its stead), a setting the plan does not read (the data's
        template...) makes it again."""
        if shown_line and not any(part.get("kind") == NO_PLAN for part in kept(shown_line)):
            return gr.skip(), gr.skip(), gr.skip()
        return self.on_change(request, *values)


def wire(c: PlanControls, line: gr.Markdown, names: list[str], inputs: list, widgets: dict,
         actions: Actions, shown: gr.State) -> None:
    """Bind the panel to PlanHandlers: re-plan on the settings the plan depends on, into
    the panel, the one-line plan `line` and `shown` (the plan itself); Fit, Measure speed
    and Apply suggestion."""
    h = PlanHandlers(actions, names)
    plan_of = [*inputs, c.target]  # the settings, then the target
    fitted = [widgets[n] for n in FIT_FIELDS]
    # The settings the plan depends on (their `plan` metadata); typed boxes re-plan when
    # left, not on every key.
    triggers = [widgets[n].change for n in plan_inputs("change") if n in widgets] + \
        [event for n in plan_inputs("leave") if n in widgets
         for event in ((widgets[n].change,) if isinstance(widgets[n], gr.Dropdown)
                       else (widgets[n].blur, widgets[n].submit))] + [c.target.change]
    # "multiple": with Gradio's "always_last", a change made while a plan was pending at
    # times left the effective batch above it unchanged (seen in the browser test).
    gr.on(triggers, h.on_change, plan_of, [c.details, line, shown], api_name="ui_plan",
          api_visibility="undocumented", show_progress="hidden", trigger_mode="multiple")
    # At page load, for the settings every panel starts with (not while the page is built:
    # the plan reads the data's token lengths, which imports TRL).
    gr.on(None, h.on_load, [], [c.details, line, shown], api_visibility="private",
          show_progress="hidden")
    after_switch(h.on_change, plan_of, [c.details, line, shown])
    c.target.change(h.on_target, c.target, c.fit, api_visibility="private",
                    show_progress="hidden")
    after_switch(h.on_target, c.target, c.fit)
    c.fit.click(h.on_fit, plan_of, [*fitted, c.notice], api_name="ui_fit",
                api_visibility="undocumented", show_progress_on=c.notice)
    c.measure.click(h.on_measure, plan_of, [c.details, line, shown, c.notice],
                    api_name="ui_measure_speed", api_visibility="undocumented")
    c.apply.click(h.on_apply, None, [*inputs, c.notice], api_name="ui_apply_suggestion",
                  api_visibility="undocumented", show_progress_on=c.notice)
    keep(c.notice)  # what Fit, Measure speed or Apply suggestion said, in a new language
    read = {*plan_inputs("change"), *plan_inputs("leave")}
    gr.on(edits([widgets[n] for n in names if n not in read]), h.on_other,
          [line, *plan_of], [c.details, line, shown], api_visibility="private",
          show_progress="hidden", trigger_mode="always_last")
