"""What follows a finished run: the settings of a stage that follows its stage (a Stage's
`follows`: after SFT, DPO or GRPO; after DPO, ORPO or KTO, GRPO), continuing from the
model it saved. The page's Continue button fills them in; nothing starts until the
person presses Start. Knows nothing of Gradio.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from sft_ui.runs.snapshot import RunSnapshot
from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message, as_message
from sft_ui.runs.run import Run, RunError
from sft_ui.stages import demos, following, get, hook, stage_of

FINISHED = ("done", "stopped")  # a run that saved its model (a stopped one does too)


@dataclass
class FollowUp:
    """The settings of the next run, and what was set, a sentence each (Messages where
    the runs layer says them: English, rendered in the reader's language at the edge)."""
    config: RunConfig
    notes: list[str]


def next_stages(stage_name: str) -> list:
    """The Stages Continue offers after a run of `stage_name`, the first on its first
    button."""
    stage = get(stage_name)
    return following(stage) if stage else []


def next_stage(stage_name: str, choice: str = ""):
    """The Stage Continue offers after a run of `stage_name` (`choice`: one of those it
    offers, by name; blank: the first), or None."""
    offered = next_stages(stage_name)
    return next((s for s in offered if s.name == choice), None) if choice else \
        (offered[0] if offered else None)


def can_continue(snap: RunSnapshot) -> bool:
    """Whether a run (its snapshot) can be continued with the next stage: a run of a stage
    that has one, ended, with its model saved."""
    return (snap.get("state") in FINISHED and bool(snap.get("model_dir"))
            and next_stage((snap.get("config") or {}).get("stage", "sft")) is not None)


def preference_after(run: Run, choice: str = "") -> FollowUp:
    """The next stage's settings that continue `run`, a finished run (`choice`: which of
    the stages offered after it; blank: the first): its settings, with the model
    it saved as the model, the next stage, that stage's demo set after the demo set
    (other data: what the next stage's family makes of it, its `follow_data` hook, else
    left for the person to choose), LoRA as the run had it (an adapter
    trains on) and that stage's learning rate. RunError when the run cannot be
    continued."""
    cfg = run.config
    stage, after = stage_of(cfg), next_stage(cfg.stage, choice)
    offered = ", ".join(s.name for s in next_stages(cfg.stage))
    if after is None and choice and offered:
        raise RunError(Message("{choice} does not follow {title}: choose one of {offered}.",
                               choice=choice, title=stage.title, offered=offered))
    if after is None:
        raise RunError(Message("Run {run_id} trained {stage}, which has no next stage: "
                               "continue a finished SFT run.", run_id=run.id,
                               stage=stage.title))
    if run.state not in FINISHED:
        raise RunError(Message("Run {run_id} is {state}: continue it with {stage} once it is "
                               "done.", run_id=run.id, state=as_message(run.state),
                               stage=after.title))
    model_dir = str(run.model_dir or "")
    if not model_dir or not Path(model_dir).exists():
        raise RunError(Message("Run {run_id} has no saved model to continue from.",
                               run_id=run.id))
    rate = after.default_learning_rate(cfg.use_peft)
    reader = demos().get(cfg.dataset_name.strip())
    dataset = after.demo if reader is not None and reader.family == stage.family else ""
    follow = hook(after, "follow_data") if reader is None else None
    made = follow(cfg, run.dir) if follow else None  # (the run's own data, in the next form)
    dataset = made[0] if made else dataset
    new = replace(cfg, model_name_or_path=model_dir, stage=after.name, dataset_name=dataset,
                  learning_rate=rate, ref_model="")  # the time budget set stays
    fix = hook(after, "continued")  # what the next stage's family needs of the settings
    new, grouped = fix(new) if fix else (new, "")
    notes: list[str] = [
        Message("Model: the model run {run_id} saved (`{folder}`).", run_id=run.id,
                folder=model_dir), Message("Stage: `{stage}`.", stage=after.name)]
    if made:
        notes.append(made[1])
    elif dataset:
        notes.append(Message("Dataset: `{name}`, the {stage} rows of the demo set.",
                             name=dataset, stage=after.title))
    else:
        notes.append(Message("Dataset: choose {stage} data ({columns} rows); run {run_id} "
                             "trained on `{name}`, which holds {stage2} examples.",
                             stage=after.title, columns=after.columns, run_id=run.id,
                             name=cfg.dataset_name, stage2=stage.title))
    if cfg.use_peft:
        notes.append(Message(
            "LoRA: on, as in the {stage} run: its adapter trains on, with a frozen copy of "
            "it as the reference model." if after.reference else
            "LoRA: on, as in the {stage} run: its adapter trains on.", stage=stage.title))
    else:
        notes.append(Message("LoRA: off, as in the {stage} run (full fine-tuning).",
                             stage=stage.title))
    if rate < cfg.learning_rate:
        notes.append(Message("Learning rate: {rate}, lower than {stage}'s, as {next} needs.",
                             rate=f"{rate:g}", stage=stage.title, next=after.title))
    else:
        notes.append(Message("Learning rate: {rate}, {stage}'s.", rate=f"{rate:g}",
                             stage=after.title))
    if grouped:
        notes.append(grouped)
    return FollowUp(new, notes)
