"""The live view of a run (status, progress, loss, the stage's own plots, samples and log),
drawn from a run snapshot so a reload or a second tab shows the same run, in the language of
the request; `update` re-sends only what changed. Its data: ui/run_frames.py.
"""
from __future__ import annotations

import html
import time
from dataclasses import dataclass

import gradio as gr
import pandas as pd

from sft_ui import i18n
from sft_ui.i18n.message import Message, as_message
from sft_ui.runs.snapshot import RunSnapshot
from sft_ui.ui.lang import T, after_switch, current_language, page, say
from sft_ui.ui.run_frames import (
    ACCURACY_COLOURS,
    LOSS_COLOURS,
    OWN_SERIES,
    REWARD_COLOURS,
    accuracy_frame,
    loss_colours,
    loss_frame,
    metric_frame,
    plot_series,
    reward_frame,
    samples_frame,
    series_name,
    stage_plots,
    step_limits,
)

# The log shows its newest lines: scrolled to the end whenever its text grew (a person
# who scrolled up to read keeps their place until new lines come).
SCROLL_LOG_JS = """() => {
  const box = document.querySelector('#run-log textarea');
  if (box && box.value.length !== Number(box.dataset.seen || -1)) {
    box.dataset.seen = box.value.length;
    box.scrollTop = box.scrollHeight;
  }
}"""


@dataclass
class LiveView:
    status: gr.Markdown
    progress: gr.HTML
    loss: gr.LinePlot
    rewards: gr.LinePlot
    accuracy: gr.LinePlot
    lr: gr.LinePlot
    grad: gr.LinePlot
    samples: gr.Dataframe
    log: gr.Textbox
    series: gr.State  # the loss series drawn (their names in the page's language)
    reward_series: gr.State  # the reward series drawn, likewise
    plot_notes: gr.Markdown  # what the stage's own plots show (stages/: each Plot's line)

    def outputs(self) -> list:
        return [self.status, self.progress, self.loss, self.rewards, self.accuracy, self.lr,
                self.grad, self.samples, self.log, self.series, self.reward_series,
                self.plot_notes]


def build_progress() -> gr.HTML:
    return gr.HTML(_no_run(T("No run yet.")))


def build(progress: gr.HTML) -> LiveView:
    """The live view below `progress` (built where the page pins it)."""
    status = gr.Markdown(T(status_markdown(None)), elem_id="run-status")
    loss = gr.LinePlot(None, x="step", y="value", color="series", color_map=_every_colour(),
                       label=T("Loss (train, smoothed, eval)"), height=280,
                       elem_id="loss-plot", **_axes("loss"))
    # A preference run's rewards and reward accuracy, shown when the run logs them.
    rewards = gr.LinePlot(None, x="step", y="value", color="series",
                          color_map=_every_colour(REWARD_COLOURS),
                          label=T("Rewards (chosen, rejected, margin)"), height=280,
                          visible=False, elem_id="reward-plot", **_axes("reward"))
    with gr.Row():
        accuracy = gr.LinePlot(None, x="step", y="value", color="series",
                               color_map=_every_colour(ACCURACY_COLOURS),
                               label=T("Reward accuracy"), y_lim=[0, 1], height=180,
                               visible=False, elem_id="accuracy-plot", **_axes("accuracy"))
        lr = gr.LinePlot(None, x="step", y="value", label=T("Learning rate"), height=180,
                         elem_id="lr-plot", **_axes("learning rate"))
        grad = gr.LinePlot(None, x="step", y="value", label=T("Grad norm"), height=180,
                           elem_id="grad-plot", **_axes("grad norm"))
    plot_notes = gr.Markdown("", visible=False, elem_id="stage-plot-notes")
    samples = gr.Dataframe(samples_frame(None), label=T("Samples (newest first)"), wrap=True,
                           interactive=False, elem_id="samples",
                           column_widths=SAMPLE_WIDTHS[3])
    log = gr.Textbox(label=T("Log"), lines=8, max_lines=8, autoscroll=True,
                     interactive=False, elem_id="run-log")
    gr.HTML("", elem_id="bar-room")  # a phone's pinned bar covers this, not the log
    # The plot fixes its series and colours when its colour map changes, not when its data
    # does: once new data is drawn with new series (eval, another language), a new map
    # redraws it. (Sent with the data, the map would be drawn with the data before it.)
    series, reward_series = gr.State(None), gr.State(None)
    series.change(_recolour, series, loss, api_visibility="private", show_progress="hidden")
    reward_series.change(_recolour_rewards, reward_series, [rewards, accuracy],
                         api_visibility="private", show_progress="hidden")
    log.change(None, js=SCROLL_LOG_JS, api_visibility="private", show_progress="hidden")
    # The samples table is built before any request: its headers are English until the
    # page loads or switches language (a shown run's table is redrawn by `update`).
    page().load(_relabel_samples, samples, samples, api_visibility="private",
                show_progress="hidden")
    after_switch(_relabel_samples, samples, samples)
    return LiveView(status, progress, loss, rewards, accuracy, lr, grad, samples, log, series,
                    reward_series, plot_notes)


def _every_colour(colours: dict[str, str] = LOSS_COLOURS) -> dict[str, str]:
    """Each series' colour by its name in every language: the first frame a page draws is
    in its colours whatever its language."""
    return {i18n.translate(name, lang): colour for lang in i18n.LANGUAGES
            for name, colour in colours.items()}


def _recolour(series):
    """The loss plot's colour map for the series it shows now."""
    if not series:
        return gr.skip()
    return gr.update(color_map=loss_colours(set(series)))


def _recolour_rewards(series):
    """The reward and accuracy plots' colour maps for the series they show now."""
    if not series:
        return gr.skip(), gr.skip()
    return (gr.update(color_map=loss_colours(set(series), REWARD_COLOURS)),
            gr.update(color_map=loss_colours(set(series), ACCURACY_COLOURS)))


def _relabel_samples(shown):
    """An empty samples table with headers in the page's language (one with rows belongs
    to a run, which `update` redraws)."""
    if shown is not None and len(shown.replace("", pd.NA).dropna(how="all")):
        return gr.skip()
    return samples_frame(None)


def _axes(y_title: str) -> dict:
    """Axis titles in the page's language, whole-number steps, and no legend title (its
    room goes to the series' names)."""
    return {"x_title": T("step"), "y_title": T(y_title), "color_title": "",
            "x_axis_format": "d"}


PLOTS = {"loss", "lr", "grad", "rewards", "accuracy"}  # the parts that are plots
# While a run trains its plots and its log are redrawn at most this often: each redraw
# costs the browser, often on the machine that trains (a step is logged every few seconds).
PLOT_SECONDS = 10.0
TIMED = PLOTS | {"log"}
# What each part of the live view draws from: the metric keys of a plot (its rows counted),
# the samples (counted) and the log (its length).
PARTS = {"loss": ("loss", "eval_loss"), "lr": ("learning_rate",), "grad": ("grad_norm",)}


def drawn_from(snap: RunSnapshot) -> dict:
    """Each part's key: what it shows changes only when its key does (a new row of its
    own metrics, a new sample, a longer log, another run or language)."""
    both = (snap["run_id"], current_language())
    keys = {part: (*both, sum(1 for m in snap["metrics"] if any(k in m for k in names)))
            for part, names in PARTS.items()}
    for part in OWN_SERIES:
        series = plot_series(snap, part)
        keys[part] = (*both, sum(1 for m in snap["metrics"]
                                 if any(series_name(series, k) for k in m)))
    return {**keys, "samples": (*both, len(snap["samples"])), "log": (*both, len(snap["log"]))}


def sent_parts(snap: RunSnapshot, drawn, now: float) -> set:
    """The parts besides the status and the progress that update() sends now: a plot when
    a step of its own was logged, the log when it grew (while the run trains, each at most
    every PLOT_SECONDS), the samples when one came; each at once for another run or
    language."""
    keys = drawn_from(snap)
    shown, plotted = dict((drawn or (None,) * 6)[2] or {}), (drawn or (None,) * 6)[5]
    training = snap["state"] in ("queued", "running", "stopping")
    due = not training or plotted is None or now - plotted >= PLOT_SECONDS

    def new(part):
        if keys[part] == shown.get(part):
            return False
        return part not in TIMED or due or (shown.get(part) or ())[:2] != keys[part][:2]
    return {part for part in keys if new(part)}


def update(snap: RunSnapshot, drawn, now: float | None = None) -> tuple[list, tuple]:
    """New values for LiveView.outputs(), gr.skip() for what the page shows already
    (`drawn`, the key this returned last), and the key of what it shows then: a page
    redraws every output it is sent, so a part is sent only when sent_parts says (`now`:
    time.monotonic()), the status and progress only when their text changed."""
    now = time.monotonic() if now is None else now
    status, progress = status_markdown(snap), progress_html(snap)
    keys = drawn_from(snap)
    shown_status, shown_progress, shown, shown_series, shown_rewards, plotted = \
        drawn or (None,) * 6
    shown = dict(shown or {})
    sent = sent_parts(snap, drawn, now)
    values = [status if status != shown_status else gr.skip(),
              progress if progress != shown_progress else gr.skip()]
    series: tuple | None  # (what the page shows: None before its first draw)
    if "loss" in sent:
        loss = loss_frame(snap)
        series = tuple(sorted(set(loss["series"]))) if loss is not None else ()
        values.append(_on_steps(loss))
    else:
        series = shown_series
        values.append(gr.skip())
    reward_series = shown_rewards
    if sent & {"rewards", "accuracy"}:
        sent |= {"rewards", "accuracy"}
        rewards, accuracy = reward_frame(snap), accuracy_frame(snap)
        reward_series = tuple(sorted({*(rewards["series"] if rewards is not None else ()),
                                      *(accuracy["series"] if accuracy is not None else ())}))
        plots = stage_plots(snap)
        if rewards is None and accuracy is None and shown_rewards == ():
            values += [gr.skip()] * 2  # hidden, and nothing to show
            notes = gr.skip()
        else:  # axis titles sent too: a plot built hidden shows untranslated ones
            values += [gr.update(value=frame, visible=frame is not None, x_title=say("step"),
                                 y_title=say(_y_title(plots.get(key), title)),
                                 x_lim=step_limits(frame), **_titled(plots.get(key)))
                       for frame, title, key in ((rewards, "reward", "rewards"),
                                                 (accuracy, "accuracy", "accuracy"))]
            text = plot_notes_markdown(plots, {"rewards": rewards, "accuracy": accuracy})
            notes = gr.update(value=text, visible=bool(text))
    else:
        values += [gr.skip()] * 2
        notes = gr.skip()
    values += [_on_steps(metric_frame(snap, "learning_rate")) if "lr" in sent else gr.skip(),
               _on_steps(metric_frame(snap, "grad_norm")) if "grad" in sent else gr.skip(),
               _samples_update(snap) if "samples" in sent else gr.skip(),
               snap["log"] if "log" in sent else gr.skip(),
               series if series != shown_series else gr.skip(),
               reward_series if reward_series != shown_rewards else gr.skip(), notes]
    shown.update({part: keys[part] for part in sent})
    if sent & TIMED:
        plotted = now
    return values, (status, progress, shown, series, reward_series, plotted)


# The samples table's column widths by its columns (a GRPO run's answers have a reward).
# Shares of the table's width: the step's holds its whole header on a phone (390 px: 78
# px for "ステップ", 72 wide; at 12% it was cut to "ステ"). ("auto" sizes it by the
# samples' text too, and the table ran past a phone's width.)
SAMPLE_WIDTHS: dict[int, list[str | int]] = {3: ["21%", "29%", "50%"],
                                             4: ["21%", "22%", "35%", "22%"]}


def _samples_update(snap: RunSnapshot):
    frame = samples_frame(snap)
    return gr.update(value=frame, column_widths=SAMPLE_WIDTHS[len(frame.columns)])


def _titled(plot) -> dict:
    return {"label": say(plot.title)} if plot else {}


def _y_title(plot, own: str) -> str:
    """A stage plot's value axis title: the stage's (GRPO's shares are not an accuracy),
    else the live view's own."""
    return plot.y_title if plot and plot.y_title else own


def _on_steps(frame):
    """A plot's frame with its step axis' range (whole steps, none twice); None clears."""
    return None if frame is None else gr.update(value=frame, x_lim=step_limits(frame))


def plot_notes_markdown(plots: dict, frames: dict) -> str:
    """One line per plot of the stage that has data (`frames`, by part): what it shows and
    what a good curve does."""
    return "\n".join(f"- **{say(p.title)}**: {say(p.explanation)}"
                     for key, p in plots.items() if frames.get(key) is not None)


def _no_run(text) -> str:
    return f"<div id='run-progress'>{text}</div>"


def _duration(seconds) -> str:
    """'1m 05s' or '14s', in the request's language ('1分05秒')."""
    if seconds is None:
        return "--"
    seconds, lang = int(seconds), current_language()
    if seconds >= 60:
        return i18n.formatted("{minutes}m {seconds}s", lang, minutes=seconds // 60,
                              seconds=f"{seconds % 60:02d}")
    return i18n.formatted("{seconds}s", lang, seconds=seconds)


def _last(snap: RunSnapshot, key: str):
    return next((m[key] for m in reversed(snap["metrics"]) if key in m), None)


def progress_html(snap: RunSnapshot | None) -> str:
    if not snap:
        return _no_run(say("No run yet."))
    step, total = snap["step"], max(snap["max_steps"], 1)
    pct = min(100.0, 100.0 * step / total)
    parts = [Message("Step {step}/{total} ({percent}%)", step=step, total=total,
                     percent=f"{pct:.0f}"),
             Message("elapsed {duration}", duration=_duration(snap["elapsed_seconds"])),
             Message("ETA {duration}", duration=_duration(snap["eta_seconds"]))]
    epoch, speed, memory = (_last(snap, k) for k in ("epoch", "tokens_per_second",
                                                      "memory_bytes"))
    if epoch is not None:
        parts.append(Message("epoch {epoch}", epoch=f"{epoch:.2f}"))
    if speed is not None:
        parts.append(Message("{speed} tokens/s", speed=f"{speed:,.0f}"))
    if memory is not None:
        parts.append(Message("memory {memory} GiB", memory=f"{memory / 2**30:.2f}"))
    return (f"<div id='run-progress'><progress value='{step}' max='{total}' "
            f"style='width:100%'></progress>"
            f"<div>{' &middot; '.join(say(p) for p in parts)}</div></div>")


def status_markdown(snap: RunSnapshot | None) -> str:
    if not snap:
        return say("Choose settings and click **Start**.")  # (not "ready": the data may not be)
    head = say(Message("**Run {run_id}: {state}.**", run_id=snap["run_id"],
                       state=as_message(snap["state"])))
    text = f"{head} {html.escape(say(snap['message']))}"
    if snap.get("stalled"):  # its latest steps learn nothing (runs/run.py)
        text += f"\n\n**{say('Warning:')}** {html.escape(say(snap['stalled']))}"
    if snap["error"]:
        text += f"\n\n**{say('Error:')}** {html.escape(say(snap['error']))}"
    return text

