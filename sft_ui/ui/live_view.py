"""The live view of a run: status, progress, loss (train raw and smoothed, eval),
learning rate, grad norm, throughput and memory, samples and the run's log.

Everything is drawn from a run snapshot (RunManager), so a reload or a second
tab shows the same run; `update` only re-sends what changed.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import gradio as gr
import pandas as pd

from sft_ui.ui.lang import T, say

SAMPLE_COLUMNS = ["step", "prompt", "completion"]
LOSS_COLOURS = {"train": "#93c5fd", "train (smoothed)": "#1d4ed8", "eval": "#dc2626"}
SMOOTHING = 0.6  # exponential moving average weight, as TensorBoard's default
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
    lr: gr.LinePlot
    grad: gr.LinePlot
    samples: gr.Dataframe
    log: gr.Textbox

    def outputs(self) -> list:
        return [self.status, self.progress, self.loss, self.lr, self.grad, self.samples,
                self.log]


def build_progress() -> gr.HTML:
    return gr.HTML(_no_run(T("No run yet.")))


def build(progress: gr.HTML) -> LiveView:
    """The live view below `progress` (built where the page pins it)."""
    status = gr.Markdown(T(status_markdown(None)), elem_id="run-status")
    loss = gr.LinePlot(None, x="step", y="value", color="series", color_map=LOSS_COLOURS,
                       label=T("Loss (train, smoothed, eval)"), height=280,
                       elem_id="loss-plot", **_axes("loss"))
    with gr.Row():
        lr = gr.LinePlot(None, x="step", y="value", label=T("Learning rate"), height=180,
                         **_axes("learning rate"))
        grad = gr.LinePlot(None, x="step", y="value", label=T("Grad norm"), height=180,
                           **_axes("grad norm"))
    samples = gr.Dataframe(samples_frame(None), label=T("Samples (newest first)"), wrap=True,
                           interactive=False, elem_id="samples",
                           column_widths=["10%", "30%", "60%"])
    log = gr.Textbox(label=T("Log"), lines=8, max_lines=8, autoscroll=True,
                     interactive=False, elem_id="run-log")
    return LiveView(status, progress, loss, lr, grad, samples, log)


def _axes(y_title: str) -> dict:
    """Axis titles in the page's language, whole-number steps, and no legend title (its
    room goes to the series' names)."""
    return {"x_title": T("step"), "y_title": T(y_title), "color_title": "",
            "x_axis_format": "d"}


def update(snap: dict, last_seen) -> tuple[list, tuple]:
    """New values for LiveView.outputs() (gr.skip() where nothing changed) and the key
    that says what was drawn."""
    log = snap["log"]
    key = (snap["run_id"], len(snap["metrics"]), len(snap["samples"]), len(log))
    if key == last_seen:
        return [status_markdown(snap), progress_html(snap)] + [gr.skip()] * 5, key
    return [status_markdown(snap), progress_html(snap), loss_frame(snap),
            metric_frame(snap, "learning_rate"), metric_frame(snap, "grad_norm"),
            samples_frame(snap), log], key


def _no_run(text) -> str:
    return f"<div id='run-progress'>{text}</div>"


def _duration(seconds) -> str:
    if seconds is None:
        return "--"
    seconds = int(seconds)
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _last(snap: dict, key: str):
    return next((m[key] for m in reversed(snap["metrics"]) if key in m), None)


def progress_html(snap: dict | None) -> str:
    if not snap:
        return _no_run(say("No run yet."))
    step, total = snap["step"], max(snap["max_steps"], 1)
    pct = min(100.0, 100.0 * step / total)
    parts = [f"Step {step}/{total} ({pct:.0f}%)",
             f"elapsed {_duration(snap['elapsed_seconds'])}",
             f"ETA {_duration(snap['eta_seconds'])}"]
    epoch, speed, memory = (_last(snap, k) for k in ("epoch", "tokens_per_second",
                                                      "memory_bytes"))
    if epoch is not None:
        parts.append(f"epoch {epoch:.2f}")
    if speed is not None:
        parts.append(f"{speed:,.0f} tokens/s")
    if memory is not None:
        parts.append(f"memory {memory / 2**30:.2f} GiB")
    return (f"<div id='run-progress'><progress value='{step}' max='{total}' "
            f"style='width:100%'></progress>"
            f"<div>{' &middot; '.join(say(p) for p in parts)}</div></div>")


def status_markdown(snap: dict | None) -> str:
    if not snap:
        return say("Ready. Choose settings and click **Start**.")
    head = say(f"**Run {snap['run_id']}: {snap['state']}.**")
    text = f"{head} {html.escape(say(snap['message']))}"
    if snap["error"]:
        text += f"\n\n**{say('Error:')}** {html.escape(say(snap['error']))}"
    return text


def _frame(rows: list[tuple]) -> pd.DataFrame | None:
    # No frame rather than an empty one: the plot fixes its axis and colour encodings
    # from the first frame it gets, and an empty frame would leave them untyped.
    if not rows:
        return None
    return pd.DataFrame({"step": pd.Series([r[0] for r in rows], dtype="int64"),
                         "value": pd.Series([r[1] for r in rows], dtype="float64"),
                         "series": pd.Series([r[2] for r in rows], dtype="object")})


def smooth(values: list[float], weight: float = SMOOTHING) -> list[float]:
    """Debiased exponential moving average (TensorBoard's smoothing)."""
    out, avg = [], 0.0
    for n, v in enumerate(values, 1):
        avg = weight * avg + (1 - weight) * v
        out.append(avg / (1 - weight ** n))
    return out


def loss_frame(snap: dict | None) -> pd.DataFrame | None:
    metrics = (snap or {}).get("metrics", [])
    train = [(m["step"], m["loss"]) for m in metrics if "loss" in m]
    rows = [(s, v, "train") for s, v in train]
    rows += [(s, v, "train (smoothed)")
             for (s, _), v in zip(train, smooth([v for _, v in train]))]
    rows += [(m["step"], m["eval_loss"], "eval") for m in metrics if "eval_loss" in m]
    return _frame(rows)


def metric_frame(snap: dict | None, key: str) -> pd.DataFrame | None:
    return _frame([(m["step"], m[key], key) for m in (snap or {}).get("metrics", [])
                   if key in m])


def samples_frame(snap: dict | None) -> pd.DataFrame:
    rows = list(reversed((snap or {}).get("samples", [])))  # newest first
    return pd.DataFrame(rows, columns=SAMPLE_COLUMNS)
