"""The plan under the batch settings: tokens per step, peak memory by part against
this machine, time per step and padding, updated as the settings change; Fit to
this machine, Measure speed, and Apply suggestion after a run ran out of memory.
The arithmetic is planner.py's; this module only shows it."""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.access import Who
from sft_ui.actions import Actions
from sft_ui.config import RunConfig
from sft_ui.config.registry import fit_names, plan_inputs
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.plan.memory import size_text
from sft_ui.plan.planner import duration_text
from sft_ui.ui import target_plan
from sft_ui.ui.access_panel import who
from sft_ui.ui.lang import T, after_switch, keep, kept, note, problems, say
from sft_ui.ui.widgets import config_to_values, edits, values_to_dict

PARTS = [("weights", "weights"), ("gradients", "gradients"),
         ("optimizer", "optimizer state (AdamW)"), ("activations", "activations"),
         ("logits", "logits and loss"), ("reference", "reference model"),
         ("generation", "answers' KV cache (beyond the step's own)"),
         ("vllm", "vLLM's share of the GPU (its weights and KV cache)"),
         ("runtime", "runtime")]
RUNTIME = {"cpu": "runtime (Python and its libraries)", "cuda": "runtime (CUDA context)"}
FIT_FIELDS = fit_names()  # what Fit may change (config/fields.py's `fit`)
NO_PLAN = "**No plan for these settings:**"  # (problems' heading of what is wrong with them)


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


class _Joined(Message):
    """Sentences said one after the other as one Message: in English a space between
    them, in a language whose sentences end in a full stop of its own ("。") none after
    it, as the translator joins sentences. Its template only places them; each is
    rendered from its own."""

    def render(self, lookup) -> str:
        out = ""
        for part in self.args.values():
            text = part.render(lookup) if isinstance(part, Message) else str(part)
            out += ("" if not out or out.endswith(FULL_STOPS) else " ") + text
        return out


FULL_STOPS = ("。", "）", "」", "！", "？")  # (as i18n's translator joins sentences)


def _joined(*parts: str) -> Message:
    return _Joined(" ".join(f"{{part{n}}}" for n in range(len(parts))),
                   **{f"part{n}": part for n, part in enumerate(parts)})


def _message(text: str) -> Message:
    """A short text of the plan (its fit) as a Message, also where the plan came through
    JSON as its English."""
    return text if isinstance(text, Message) else Message(text)


def budget_markdown(p: dict) -> str:
    """What the time budget chose (nothing without a budget), in the page's language."""
    if not p.get("budget_minutes"):
        return ""
    lines = [say(Message("**Time budget, {minutes} min,** chose:",
                         minutes=f"{p['budget_minutes']:g}"))]
    lines += [f"- {say(reason)}" for reason in p["budget"]] or \
        [f"- {say(Message('nothing: every setting it would choose is set'))}"]
    if p["budget_needs_speed"] and p.get("budget_fits_in_run"):  # a paragraph of its own
        lines.append("\n" + say(Message("The speed of these settings is not measured yet: "
                                         "the run's first steps measure it (they train), "
                                         "then set the number of steps.")))
    elif p["budget_needs_speed"]:
        lines.append("\n" + say(Message("The speed of these settings is not measured yet: "
                                         "Start measures it first (a few steps, counted in "
                                         "the budget), then sets the number of steps.")))
    return "\n".join(lines)


def plan_markdown(p: dict) -> str:
    """The plan in full, in the page's language: each of its sentences said on its own (a
    Message rendered from its template, nested values too)."""
    m = p["memory"]
    lines = [budget_markdown(p), say(_tokens_line(p))]
    if p.get("sized"):  # what the run's start sizes from the data (data/sized.py)
        lines.insert(1, "\n".join([say(Message("**Sized from the data** (settings left at "
                                                "their defaults):")),
                                    *(f"- {say(line)}" for line in p["sized"])]))
    if p.get("budget_needs_speed"):
        lines.append(say(Message("**Run:** the steps that fit the time budget, set by the "
                                 "run's first steps.")))
    elif p["steps"]:
        lines.append(say(Message("**Run:** {count} steps, at most {tokens} tokens.",
                                 count=f"{p['steps']:,}", tokens=f"{p['total_tokens']:,}")))
    else:
        lines.append(say(Message("**Run:** the number of steps is unknown until the data is "
                                 "measured.")))
    where = Message("GPU memory") if p["device"] == "cuda" else Message("RAM")
    lines.append(say(Message(
        "**Peak memory** ({where}, {precision}, {trained} of {params} parameters trained): "
        "about {total} of {available} available: **{fit}**", where=where,
        precision=p["precision"], trained=_count(p["trainable_params"]),
        params=_count(p["params"]), total=size_text(m["total"]),
        available=size_text(p["available_bytes"]), fit=_message(p["fit"]))))
    lines += [say(note) for note in p.get("memory_notes") or []]
    rows = [f"| {RUNTIME.get(p['device'], label) if key == 'runtime' else label} | "
            f"{size_text(m[key])} |" for key, label in PARTS if key in m]
    lines.append(say("\n".join(["| part | size |", "|---|---:|", *rows,
                                f"| **total** | **{size_text(m['total'])}** |"])))
    if p.get("strategy"):
        lines.append(say(Message("**{processes} processes:** {reason}",
                                 processes=p["processes"], reason=p["strategy"]["reason"])))
    lines.append(say(_time_line(p)))
    lines.append(say(_padding_line(p) or p.get("data_note", "")))
    lines += [say(note) for note in p.get("data_notes") or []]  # how the data was read
    if p.get("modes"):
        lines.append(say(target_plan.modes_markdown(p)))
    return "\n\n".join(line for line in lines if line)


def _count(n: int) -> str:
    for unit, size in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def _tokens_line(p: dict) -> Message:
    tokens, typical = f"{p['tokens_per_step']:,}", f"{p['tokens_per_step_typical']:,}"
    what = Message("the prompt and the longest answer") if p.get("writes_answers") else \
        "max_length"
    if p["padding"] and p["tokens_per_step_typical"] != p["tokens_per_step"]:
        return Message("**Tokens per optimizer step:** at most {tokens} (effective batch x "
                       "{what}; shorter rows are padded only to the longest in their batch), "
                       "about {typical} with this data.", tokens=tokens, what=what,
                       typical=typical)
    return Message("**Tokens per optimizer step:** at most {tokens} (effective batch x {what}; "
                   "shorter rows are padded only to the longest in their batch).",
                   tokens=tokens, what=what)


def _time_line(p: dict) -> Message:
    if not p["seconds_per_step"] and p.get("for_target"):
        return Message("**Time:** not measured on {device} for these settings yet (Measure "
                       "speed measures this machine; a run there remembers its speed).",
                       device=p["device_name"])
    if not p["seconds_per_step"] and p.get("writes_answers"):
        return Message("**Time:** not measured yet for these settings: a step of this stage "
                       "is mostly the answers the model writes, so a run of them measures it "
                       "(a time budget sets the steps on the run's first steps).")
    if not p["seconds_per_step"]:
        return Message("**Time:** not measured yet for this model, device and precision: "
                       "press *Measure speed* (a few training steps).")
    parts = [Message("**Time:** {duration} per step ({speed} tokens/s measured on {device}).",
                     duration=duration_text(p["seconds_per_step"]),
                     speed=f"{p['tokens_per_second']:,.0f}", device=p["device_name"])]
    if p["seconds_total"] and p.get("round_seconds"):
        parts.append(Message("{count} steps with {rounds} rounds of sample answers (about "
                             "{seconds} s each, measured in a run): {duration}.",
                             count=f"{p['steps']:,}", rounds=p["sample_rounds"],
                             seconds=f"{p['round_seconds']:.0f}",
                             duration=duration_text(p["seconds_total"])))
    elif p["seconds_total"]:
        parts.append(Message("{count} steps: {duration}.", count=f"{p['steps']:,}",
                             duration=duration_text(p["seconds_total"])))
    if p["padding"] is None and not p["packing"]:
        parts.append(Message("At most: every answer counted at its longest.")
                     if p.get("writes_answers") else
                     Message("At most: every row counted at max_length."))
    return _joined(*parts)


def _padding_line(p: dict) -> Message | str:
    pad = p["padding"]
    if p["packing"]:
        return Message("**Padding:** none: packing fills each sequence up to max_length.")
    if not pad:
        return ""
    if p.get("padding_free"):
        return Message("**Padding:** none: on a CPU the rows of a batch go end to end "
                       "(padding-free), so the {waste} of padding that batches of {batch} "
                       "consecutive rows would hold is not computed.",
                       waste=f"{pad['waste']:.0%}", batch=pad["batch"])
    text = Message("**Padding:** {waste} of the tokens in batches of {batch} consecutive rows "
                   "are padding (measured on the first {rows} rows).",
                   waste=f"{pad['waste']:.0%}", batch=pad["batch"], rows=f"{pad['rows']:,}")
    if pad["packed_sequences"] < pad["rows"] and not p.get("writes_answers"):
        return _joined(text, Message(
            "Packing would put these rows into about {sequences} sequences of max_length: "
            "{share} fewer sequences per epoch, and no padding.",
            sequences=f"{pad['packed_sequences']:,}",
            share=f"{1 - pad['packed_sequences'] / pad['rows']:.0%}"))
    return text


def plan_line(p: dict, run: dict | None = None) -> str:
    """The plan in one line, beside Start, each part in the request's language. While a
    run trains (`run`, its snapshot), its time is the plan's beside the run's own at its
    pace (run_time), not the plan's alone."""
    if p.get("data_error"):  # no figure holds for data it could not read: not "fits"
        return say("**Plan:**") + " " + say(f"cannot read the data: {p['data_error']}")
    parts = [Message("time budget {minutes} min", minutes=f"{p['budget_minutes']:g}")] \
        if p.get("budget_minutes") else []
    if p.get("for_target"):
        parts.append(Message("on {where}", where=p["target"]))
    if p.get("budget_needs_speed"):
        steps = Message("steps set by the run's first steps")
    elif p.get("budget_fits_in_run") and p["steps"]:  # (an estimate: the run sets them)
        steps = Message("about {n} steps (the run's first steps set them)", n=f"{p['steps']:,}")
    else:
        steps = Message("{n} steps", n=f"{p['steps']:,}") if p["steps"] else \
            Message("steps unknown until the data is read")
    parts += [Message("effective batch {n}", n=p["effective_batch"]), steps,
              Message("peak memory about {size} of {available}: **{fit}**",
                      size=size_text(p["memory"]["total"]),
                      available=size_text(p["available_bytes"]), fit=_message(p["fit"]))]
    if run is not None:
        parts.append(run_time(p.get("seconds_total"), run))
    elif p["seconds_total"]:
        parts.append(duration_text(p["seconds_total"]))  # "about 2 min" already
    return say("**Plan:**") + " " + " · ".join(say(part) for part in parts)


def run_time(planned: float | None, run: dict) -> Message:
    """What the plan said a run takes beside what the training run's pace says now (its
    time so far and its ETA: steps, sample rounds and the save left)."""
    if run.get("eta_seconds") is None:
        if not planned:
            return Message("the run's own estimate comes after its first steps")
        return Message("the plan said {duration}; the run's own estimate comes after its "
                       "first steps", duration=duration_text(planned))
    duration2 = duration_text(run["elapsed_seconds"] + run["eta_seconds"])
    duration3 = duration_text(run["eta_seconds"])
    if not planned:
        return Message("at the run's pace {duration2} in all, {duration3} left",
                       duration2=duration2, duration3=duration3)
    return Message("the plan said {duration}; at the run's pace {duration2} in all, "
                   "{duration3} left", duration=duration_text(planned), duration2=duration2,
                   duration3=duration3)


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
        text = problems("No plan for these settings:", e)
        return text, text, None
    except Exception as e:  # keep the page usable, say what happened
        text = say(f"**No plan:** {type(e).__name__}: {e}")
        return text, text, None
    return plan_markdown(p), plan_line(p), p  # (each said in the page's language already)


def wire(c: PlanControls, line: gr.Markdown, names: list[str], inputs: list, widgets: dict,
         actions: Actions, shown: gr.State) -> None:
    """Re-plan on the settings the plan depends on, into the panel, the one-line plan
    `line` and `shown` (the plan itself); Fit, Measure speed and Apply suggestion."""
    manager = actions.manager
    plan_of = [*inputs, c.target]  # the settings, then the target
    fitted = [widgets[n] for n in FIT_FIELDS]

    def on_change(request: gr.Request, *values):
        return plan_texts(actions, who(request), values_to_dict(names, values[:-1]),
                          values[-1] or "")

    def on_load(request: gr.Request):
        return plan_texts(actions, who(request), {})

    def on_fit(*values):
        try:
            new, text = actions.fit(values_to_dict(names, values[:-1]), values[-1] or "")
        except UserError as e:
            return (*[gr.skip()] * len(fitted), problems("Cannot fit:", e))
        return (*config_to_values(new, FIT_FIELDS), note(text))

    def on_target(target):
        return gr.update(value=say(target_plan.fit_label(target or "")))

    def on_measure(request: gr.Request, *values):
        try:  # on this machine, whatever the target
            speed = actions.measure(who(request), values_to_dict(names, values[:-1]))
        except UserError as e:
            return gr.skip(), gr.skip(), gr.skip(), problems("Cannot measure:", e)
        except Exception as e:  # out of memory, for one: say it in the page
            return gr.skip(), gr.skip(), gr.skip(), note(f"**Measuring failed:** "
                                                         f"{type(e).__name__}: {e}")
        return (*on_change(request, *values), note(f"Measured {speed:,.0f} tokens/s."))

    def on_apply():
        runs = [manager.active()] if manager.active() else manager.all_runs()[:1]
        run = runs[0] if runs else None
        if run is None or run.state != "failed" or not run.suggestion:
            return (*[gr.skip()] * len(inputs),
                    note("No suggestion to apply: the last run did not run out of memory."))
        cfg = RunConfig.from_dict({**run.config.to_dict(), **run.suggestion})
        changes = ", ".join(f"{k} {v}" for k, v in run.suggestion.items())
        return (*config_to_values(cfg, names),
                note(f"Filled in the settings of run {run.name} with {changes}. Press Start."))

    # The settings the plan depends on (their `plan` metadata); typed boxes re-plan when
    # left, not on every key.
    triggers = [widgets[n].change for n in plan_inputs("change") if n in widgets] + \
        [event for n in plan_inputs("leave") if n in widgets
         for event in ((widgets[n].change,) if isinstance(widgets[n], gr.Dropdown)
                       else (widgets[n].blur, widgets[n].submit))] + [c.target.change]
    # "multiple": with Gradio's "always_last", a change made while a plan was pending at
    # times left the effective batch above it unchanged (seen in the browser test).
    gr.on(triggers, on_change, plan_of, [c.details, line, shown], api_name="ui_plan",
          api_visibility="undocumented", show_progress="hidden", trigger_mode="multiple")
    # At page load, for the settings every panel starts with (not while the page is built:
    # the plan reads the data's token lengths, which imports TRL).
    gr.on(None, on_load, [], [c.details, line, shown], api_name=False,
          show_progress="hidden")
    after_switch(on_change, plan_of, [c.details, line, shown])
    c.target.change(on_target, c.target, c.fit, api_name=False, show_progress="hidden")
    after_switch(on_target, c.target, c.fit)
    c.fit.click(on_fit, plan_of, [*fitted, c.notice], api_name="ui_fit",
                api_visibility="undocumented", show_progress_on=c.notice)
    c.measure.click(on_measure, plan_of, [c.details, line, shown, c.notice],
                    api_name="ui_measure_speed", api_visibility="undocumented")
    c.apply.click(on_apply, None, [*inputs, c.notice], api_name="ui_apply_suggestion",
                  api_visibility="undocumented", show_progress_on=c.notice)
    keep(c.notice)  # what Fit, Measure speed or Apply suggestion said, in a new language

    def on_other(request: gr.Request, shown_line, *values):
        """A plan that could not be made says why until its cause is gone: while it says
        so (or Start said it in its stead), a setting the plan does not read (the data's
        template...) makes it again."""
        if shown_line and not any(part["text"] == NO_PLAN for part in kept(shown_line)):
            return gr.skip(), gr.skip(), gr.skip()
        return on_change(request, *values)
    read = {*plan_inputs("change"), *plan_inputs("leave")}
    gr.on(edits([widgets[n] for n in names if n not in read]), on_other, [line, *plan_of],
          [c.details, line, shown], api_name=False, show_progress="hidden",
          trigger_mode="always_last")
