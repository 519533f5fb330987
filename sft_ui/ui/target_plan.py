"""The plan's part about where a run trains: the "Plan for" choice (this machine or a
GPU as a Space offers them), which of full fine-tuning, LoRA and QLoRA fit there and
how, the expected speed, and the precision and kernels chosen there with the reasons.
The arithmetic is plan/modes.py's and plan/kernels.py's; this module only shows it."""
from __future__ import annotations

import gradio as gr

from sft_ui.i18n.message import Message
from sft_ui.plan import targets
from sft_ui.plan.memory import size_text
from sft_ui.ui.lang import T, relabel, say

KERNEL_LABELS = {"precision": "precision", "optim": "optimizer",
                 "use_liger_kernel": "Liger kernels", "padding_free": "padding-free batching"}


def build() -> gr.Dropdown:
    """The "Plan for" choice, "This machine" in the page's language."""
    target = gr.Dropdown(
        targets.choices(), value=targets.THIS_MACHINE, allow_custom_value=True,
        label=T("Plan for"), elem_id="plan-target",
        info=T("Where the run will train: this machine, or a GPU as a Space offers them "
               "(or type a size such as 24 GB). The plan and Fit then say what fits there."))
    relabel(target, targets.choices)
    return target


def fit_label(target: str) -> str:
    """The Fit button's text for the chosen target."""
    return "Fit to this machine" if targets.find(target) is None else "Fit to this GPU"


def _mark(fits: bool) -> str:
    return "fits" if fits else "will not fit"


def modes_markdown(p: dict) -> str:
    """Full fine-tuning, LoRA and QLoRA on the plan's target: which fit, how, the speed
    and the kernels; in the page's language, each sentence and cell said on its own (the
    target, a mode's label and reason: Messages or words of the catalogue)."""
    rows = [f"| {say(m['label'])} | **{say(_mark(m['fits']))}** | {say(m['reason'])} | "
            f"{size_text(m['memory']) if m['memory'] else '-'} |" for m in p["modes"]]
    lines = [say(Message("**Full fine-tuning, LoRA or QLoRA on {where}** (GPU memory or RAM "
                         "{size}; a setup fits under 80% of it):", where=p["target"],
                         size=size_text(p["target_memory"]))),
             "\n".join([say("| way to train | fits? | setup | peak memory |"), "|---|---|---|---:|",
                        *rows])]
    best = next((m for m in p["modes"] if m["mode"] == p["best"]), None)
    if best:
        lines.append(say(Message("**Fit applies {label}:** {reason}.", label=best["label"],
                                 reason=best["reason"])))
    else:
        lines.append(say("**Nothing fits there:** shorten max_length, or choose a smaller "
                         "model or a larger GPU."))
    speed = p["best_tokens_per_second"]
    lines.append(say(Message("**Expected speed there:** {speed} tokens/s (measured).",
                             speed=f"{speed:,.0f}") if speed else
                     Message("**Expected speed there:** not measured for this model and setup "
                             "on {where} yet.", where=p["target"])))
    lines.append(say("**Precision and kernels there:**"))
    lines.append("\n".join(f"- {say(KERNEL_LABELS[name])}: **{say(_value(c['value']))}**: "
                           f"{say(c['reason'])}" for name, c in p["kernels"].items()))
    return "\n\n".join(lines)


# The optimizers' names as a person reads them (the settings' values are TRL's).
OPTIMIZERS = {"adamw_torch_fused": "fused AdamW", "adamw_torch": "AdamW",
              "adamw_8bit": "8-bit AdamW", "paged_adamw_8bit": "paged 8-bit AdamW"}


def _value(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return OPTIMIZERS.get(str(value), str(value))
