"""What follows a finished run: the settings of a preference run (DPO) that continues a
finished SFT run from the model it saved. The page's "Continue with preference tuning"
fills them in; nothing starts until the person presses Start. Knows nothing of Gradio.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from sft_ui.config import RunConfig
from sft_ui.config.stages import PREFERENCE_DEMO, SFT_DEMO
from sft_ui.runs.run import Run, RunError

NEXT_STAGE = "dpo"
# DPO's learning rate: far below SFT's, as TRL's DPO examples use (the preference signal
# is strong and a high rate soon pulls the model away from its reference).
LEARNING_RATES = {True: 5e-5, False: 5e-6}  # by LoRA on / off
FINISHED = ("done", "stopped")  # a run that saved its model (a stopped one does too)


@dataclass
class FollowUp:
    """The settings of the next run, and what was set, a sentence each (English)."""
    config: RunConfig
    notes: list[str]


def can_continue(snap: dict) -> bool:
    """Whether a run (its snapshot) can be continued with preference tuning: an SFT run
    that ended and saved its model."""
    return (snap.get("state") in FINISHED and bool(snap.get("model_dir"))
            and (snap.get("config") or {}).get("stage", "sft") == "sft")


def preference_after(run: Run) -> FollowUp:
    """DPO settings that continue `run`, a finished SFT run: its settings, with the model
    it saved as the model, stage dpo, the preference demo set after the demo set (other
    data is left for the person to choose), LoRA as the run had it (an adapter trains
    on) and a learning rate for DPO. RunError when the run cannot be continued."""
    cfg = run.config
    if cfg.stage != "sft":
        raise RunError(f"Run {run.id} trained {cfg.stage}, not sft: preference tuning "
                       "continues a finished SFT run.")
    if run.state not in FINISHED:
        raise RunError(f"Run {run.id} is {run.state}: continue it with preference tuning "
                       "once it is done.")
    model_dir = str(run.model_dir or "")
    if not model_dir or not Path(model_dir).exists():
        raise RunError(f"Run {run.id} has no saved model to continue from.")
    rate = LEARNING_RATES[bool(cfg.use_peft)]
    dataset = PREFERENCE_DEMO if cfg.dataset_name.strip() == SFT_DEMO else ""
    new = replace(cfg, model_name_or_path=model_dir, stage=NEXT_STAGE, dataset_name=dataset,
                  learning_rate=rate, ref_model="", time_budget_minutes=0.0)
    notes = [f"Model: the model run {run.id} saved (`{model_dir}`).",
             f"Stage: `{NEXT_STAGE}`."]
    if dataset:
        notes.append(f"Dataset: `{PREFERENCE_DEMO}`, the preference pairs of the demo set.")
    else:
        notes.append(f"Dataset: choose preference data (prompt/chosen/rejected rows); run "
                     f"{run.id} trained on `{cfg.dataset_name}`, which holds SFT examples.")
    if cfg.use_peft:
        notes.append("LoRA: on, as in the SFT run: its adapter trains on, with a frozen "
                     "copy of it as the reference model.")
    else:
        notes.append("LoRA: off, as in the SFT run (full fine-tuning).")
    notes.append(f"Learning rate: {rate:g}, lower than SFT's, as DPO needs.")
    return FollowUp(new, notes)
