"""The Train tab's run controls: Start, Stop, Resume, Add to queue, the progress bar,
Continue and what Start answered, the plan in one line and the live view, and the timer
that keeps the live view current while a run trains (ui/train_tab.py puts them beside the
settings). Reads the settings only as the widgets' values; what a run is and does is the
actions' (actions.py) and the run manager's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.runs import ACTIVE_STATES, RunError
from sft_ui.ui import live_view, plan_text, queue_panel, stage_view
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, keep, kept, note, page, problem, problems, say
from sft_ui.ui.widgets import AFTER_EACH, edits, values_to_dict

# Seconds between the live view's looks at the run: until the first loss shows, then
# while the run brings something new, and after a look that found nothing new (a slow step).
FIRST_TICKS, STEADY_TICKS, QUIET_TICKS = 1.0, 3.0, 6.0
# What Start, Resume or Continue answered comes into view with the buttons above it: on a
# wide screen the bar stops sticking while it shows (ui/style.py), and a page scrolled down
# would lose both; on a phone they are pinned in sight.
REFUSED = "start refused"  # the kind of Start's notice that says why it did not start
SHOW_NOTICE_JS = """() => requestAnimationFrame(() => {
  const notice = document.querySelector('#start-notice');
  if (notice && notice.innerText.trim() && matchMedia('(min-width: 769px)').matches)
    document.querySelector('#run-bar').scrollIntoView({block: 'nearest'});
})"""


@dataclass
class RunControls:
    start: gr.Button
    stop: gr.Button
    resume: gr.Button
    notice: gr.Markdown
    plan_line: gr.Markdown
    live: live_view.LiveView
    follow: gr.Button  # Continue with the next stage, after a finished run
    follow_also: gr.Button  # Continue with another stage offered there (GRPO after SFT)
    plan: gr.State  # the plan the plan line shows (None: none), redrawn while a run trains
    add: gr.Button  # Add to queue (ui/queue_panel.py)
    queue: queue_panel.QueuePanel
    run_state: gr.State | None = None  # (run, state) the live view shows, once wired


def build_run_controls() -> RunControls:
    """Start, Stop, Resume, the progress bar, Continue and what Start answered (a bar kept
    in sight: sticky on a wide screen, Continue beside Start; on a phone Start, Stop,
    Resume, the progress and the notice pinned to its bottom, Continue above the live
    view, out of the pinned bar: ui/style.py), the plan in one line, then the live view."""
    with gr.Column(elem_id="run-bar"):
        with gr.Column(elem_id="run-pinned"):
            with gr.Row(elem_id="run-buttons"):
                start = gr.Button(T("Start"), variant="primary", min_width=80)
                stop = gr.Button(T("Stop"), variant="stop", interactive=False, min_width=80)
                resume = gr.Button(T("Resume"), interactive=False, min_width=80)
                add = gr.Button(T("Add to queue"), min_width=80, elem_id="queue-add")
            progress = live_view.build_progress()
            notice = gr.Markdown(elem_id="start-notice")
        with gr.Row(elem_id="continue-row"):
            follow, follow_also = stage_view.build_continue()
    plan_line = gr.Markdown(elem_id="plan-summary")
    queue = queue_panel.build()
    return RunControls(start, stop, resume, notice, plan_line, live_view.build(progress),
                       follow, follow_also, gr.State(None), add, queue)


class RunHandlers:
    """What Start, Stop, Resume, the timer and a page opened do, each a method that tests
    call without building the page (`names`: the settings' names, in the order of the
    values Start is given; `rest`: how many outputs on_pulse fills)."""

    def __init__(self, actions: Actions, names, rest: int):
        self.actions, self.manager, self.names, self.rest = \
            actions, actions.manager, names, rest

    def on_start(self, request: gr.Request, token, plan_shown, *values):
        """(run id, the notice, the timer, the plan line): a refusal the plan line already
        shows is said once, by Start's notice (the plan line steps aside until the next
        plan)."""
        try:
            new_id = self.actions.start(who(request), values_to_dict(self.names, values),
                                        token)
        except UserError as e:
            same = plan_shown == problems("No plan for these settings:", e, plan_text.NO_PLAN)
            return gr.skip(), problems("Cannot start:", e, REFUSED), gr.skip(), \
                ("" if same else gr.skip())
        except Exception as e:  # keep the page usable, say what happened
            return (gr.skip(), note(Message("**Start failed:** {error_type}: {error}",
                                            error_type=type(e).__name__, error=str(e))),
                    gr.skip(), gr.skip())
        return new_id, "", gr.Timer(FIRST_TICKS, active=True), gr.skip()

    def recheck(self, request: gr.Request, notice, token, *values):
        """Start's refusal goes once its cause is gone (another file, a setting filled in,
        the run that trained ended): while the notice says it, Start's checks again,
        without starting; the refusal they give now, or none. While a run trains that the
        refusal does not name (Start itself may have just started it, this event racing
        it), that run is left out and only a refusal gone is said."""
        refused = [part for part in kept(notice) if part.get("kind") == REFUSED]
        if not refused:
            return gr.skip()
        busy = self.manager.busy()
        named = bool(busy) and any(busy in part["items"] for part in refused)
        try:
            self.actions.check_start(who(request), values_to_dict(self.names, values), token,
                                     idle=named or not busy)
        except UserError as e:
            again = problems("Cannot start:", e, REFUSED)
            return again if kept(again) != kept(notice) and (named or not busy) else gr.skip()
        except Exception:  # (Start itself says what went wrong, when pressed)
            return gr.skip()
        return ""

    def shown_run(self, current):
        """The run training now (whichever tab started it), else this page's last run."""
        active = self.manager.active()
        if active is not None and active.state in ACTIVE_STATES:
            return active
        try:
            return self.manager.get(current) if current else active
        except RunError:
            return active

    def on_stop(self, request: gr.Request, current):
        run = self.shown_run(current)
        if run is None or run.state not in ACTIVE_STATES:
            return note("No run is training.")
        try:
            return live_view.status_markdown(self.actions.stop(who(request), run.id))
        except UserError as e:
            return problem("Cannot stop:", e)

    def on_resume(self, request: gr.Request, current):
        run = self.shown_run(current)
        try:
            return (self.actions.resume(who(request), run.id if run else ""), "",
                    gr.Timer(FIRST_TICKS, active=True))
        except UserError as e:
            return gr.skip(), problem("Cannot resume:", e), gr.skip()

    def on_tick(self, current, last_seen, last_drawn, plan):
        """(status, progress, seen, pulse, timer, plan line): the status and progress where
        their text changed; a pulse where the rest of the view has something to draw (its
        parts that live_view.sent_parts names, or the buttons of a new state); the plan
        line, while the run trains, with the run's own time beside the plan's (and the
        plan's alone again after it)."""
        run = self.shown_run(current)
        if run is None:
            return (gr.skip(),) * 4 + (gr.Timer(active=False), gr.skip())
        snap, now = run.snapshot(), time.monotonic()
        status, progress = live_view.status_markdown(snap), live_view.progress_html(snap)
        shown_status, shown_progress, shown_every, shown_line = last_seen or (None,) * 4
        line = say(plan_text.plan_line(plan, snap if snap["state"] in ACTIVE_STATES
                                        else None)) if plan else shown_line
        shown_key, shown_state = last_drawn or (None, None)
        fire = bool(live_view.sent_parts(snap, shown_key, now)) or \
            (run.id, snap["state"]) != shown_state
        if not any("loss" in m for m in snap["metrics"]):
            every = FIRST_TICKS
        else:  # something new since the last look, or not (a slow step)
            every = STEADY_TICKS if fire else QUIET_TICKS
        if snap["state"] not in ACTIVE_STATES and not fire:
            ticks = gr.Timer(active=False)  # ended, and the page shows all of it
        else:
            ticks = gr.Timer(every, active=True) if every != shown_every else gr.skip()
        return (status if status != shown_status else gr.skip(),
                progress if progress != shown_progress else gr.skip(),
                (status, progress, every, line),
                (run.id, snap["state"], now) if fire else gr.skip(), ticks,
                line if line != shown_line else gr.skip())

    def on_pulse(self, current, last_drawn, fired):
        """The rest of the live view and the buttons, after a tick fired the pulse (at
        the tick's time, so that the parts it found due are the parts sent)."""
        run = self.shown_run(current)
        if run is None or fired is None:
            return (gr.skip(),) * self.rest
        snap = run.snapshot()
        shown_key, shown_state = last_drawn or (None, None)
        values, key = live_view.update(snap, shown_key, now=fired[2])
        state = snap["state"]
        active = state in ACTIVE_STATES
        # (by run and state: a run that ended between two looks, after one that ended too)
        changed = (run.id, state) != shown_state
        buttons = (gr.skip(),) * 5 if not changed else (
            gr.update(interactive=not active), gr.update(interactive=active),
            gr.update(interactive=state in ("stopped", "failed")),
            *stage_view.continue_update(snap))
        return (*values[2:], *buttons, (key, (run.id, state)),
                (run.id, state) if changed else gr.skip())

    def wake(self):
        """On a page opened, and when the runs changed: the timer ticks until the page
        shows the run of the moment (one that began and ended between two looks too)."""
        return gr.Timer(active=True) if self.manager.active() is not None else gr.skip()

    def opened(self, current):
        """A page opened: the run of the moment, else the latest run there is (after a
        restart of the server too), shown rather than "No run yet"."""
        if self.manager.active() is not None or current:
            return self.wake(), gr.skip()
        runs = self.manager.all_runs()
        return (gr.Timer(active=True), runs[0].id) if runs else (gr.skip(), gr.skip())


def wire_run_controls(c: RunControls, s, actions: Actions, lists=None) -> None:
    """Start, Stop, Resume and the live view's timer bound to RunHandlers (`s`: the settings
    column, train_tab.Settings, whose names, inputs and Hugging Face token Start reads).
    The timer ticks while a run trains (FIRST_TICKS until the first loss shows,
    STEADY_TICKS then, QUIET_TICKS after a tick that found nothing new) and stops once the
    page shows all of the run's end: each tick costs the browser, often on the machine that
    trains, a round of Gradio's client work over each of its outputs. So a tick updates the
    status and the progress alone, and the rest (plots, samples, log, buttons) follows only
    when what it draws from changed (`pulse`). Start, Resume, a page opened, a language
    switch and a run started or ended elsewhere (`lists`) wake it."""
    live = c.live
    h = RunHandlers(actions, s.names, len(live.outputs()) + 5)
    run_id = gr.State("")
    seen = gr.State(None)  # (status, progress, timer's seconds, plan line) the tick sent
    pulse = gr.State(None)  # (run, state, time) of the tick that found more to draw
    drawn = gr.State(None)  # (live_view.update's key, (run, state)) the rest shows
    run_state = gr.State(None)  # (run, state) the page shows, set when either changes
    c.run_state = run_state  # (the queue's table follows it: ui/queue_panel.py)
    timer = gr.Timer(FIRST_TICKS, active=False)
    c.start.click(h.on_start, [s.hf_token, c.plan_line, *s.inputs],
                  [run_id, c.notice, timer, c.plan_line],
                  api_name="ui_start", api_visibility="undocumented")
    c.stop.click(h.on_stop, run_id, live.status, api_name="ui_stop",
                 api_visibility="undocumented")
    c.resume.click(h.on_resume, run_id, [run_id, c.notice, timer], api_name="ui_resume",
                   api_visibility="undocumented")
    timer.tick(h.on_tick, [run_id, seen, drawn, c.plan],
               [live.status, live.progress, seen, pulse, timer, c.plan_line],
               api_name="ui_tick", api_visibility="undocumented", show_progress="hidden",
               show_progress_on=timer)
    pulse.change(h.on_pulse, [run_id, drawn, pulse],
                 [*live.outputs()[2:], c.start, c.stop, c.resume, c.follow, c.follow_also,
                  drawn, run_state], api_name="ui_pulse", api_visibility="undocumented",
                 show_progress="hidden", show_progress_on=timer)
    # Start's refusal is asked again when a setting changed or the shown run's state did.
    gr.on([*edits(s.inputs), run_state.change], h.recheck,
          [c.notice, s.hf_token, *s.inputs], c.notice, api_visibility="private",
          show_progress="hidden", trigger_mode=AFTER_EACH)
    keep(c.notice, live.status)  # what Start, Resume, Continue or Stop said, in a new one
    c.notice.change(None, js=SHOW_NOTICE_JS, api_visibility="private", show_progress="hidden")
    stage_view.wire_continue((c.follow, c.follow_also), h.shown_run, run_id, s.names,
                             s.inputs, c.notice, actions)
    page().load(h.opened, run_id, [timer, run_id], api_visibility="private",
                show_progress="hidden")
    # A shown run is redrawn in the page's new language by one more tick.
    after_switch(lambda: gr.Timer(active=True), None, timer)
    if lists is not None:
        lists.add(h.wake, [], [timer])
