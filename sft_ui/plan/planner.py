"""Will a run fit this machine, and how long will it take: the plan of a run before it starts
(batch, tokens per step, peak memory against this machine, time per step, padding waste) and
Fit. Knows nothing of Gradio; imports torch only to measure.
"""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from sft_ui.config import ConfigError, RunConfig, length
from sft_ui.config.registry import for_stage
from sft_ui.data.formats import DataError
from sft_ui.errors import said
from sft_ui.i18n.message import Message
from sft_ui.models import ModelError
from sft_ui.plan import budget, kernels, modes, targets
from sft_ui.plan.disk import disk_plan
from sft_ui.plan.hardware import Hardware, detect, precision
from sft_ui.plan.memory import (
    TIGHT,
    available_memory,
    fit_mark,
    memory_notes,
    model_shape,
    peak_memory,
    size_text,
    trainable_params,
)
from sft_ui.plan.passes import sequences_per_example, step_cost
from sft_ui.plan.rollouts import length_setting, prompt_tokens, sequence_tokens, writes_answers
from sft_ui.plan.sample import DataSample, padding, quick_data_sample, quick_sized, run_steps
from sft_ui.plan.speed import NEAR_END, measured_speed, round_seconds
from sft_ui.stages import stage_of


# ---- the plan ------------------------------------------------------------------
def plan_with_data(cfg: RunConfig, hw: Hardware | None = None, target: str = "",
                   runs: Path | None = None) -> dict:
    """plan() with the data's padding and row count where they are cheap to measure
    (`data_note` says why they are missing), for this machine or a target GPU
    (plan/targets.py; blank: this machine): which of full fine-tuning, LoRA and QLoRA
    fit there ("modes", "best") and the precision and kernels chosen there ("kernels"),
    for the settings the run's start sizes from its data ("sized": a sentence each); the
    disk its checkpoints and model take against the free disk of `runs` (plan/disk.py)."""
    found = quick_sized(for_stage(cfg))
    cfg = found.config
    unread = ""  # why the data could not be read, where it could not
    try:
        data = quick_data_sample(cfg)
        note = "" if data else Message("The data is not measured (a Hub dataset, or over 64 "
                                       "MB).")
    except (ConfigError, DataError, ModelError) as e:
        data, note = None, Message("The data could not be measured: {error}", error=said(e))
        unread = said(e) if isinstance(e, DataError) else ""
    _check(cfg)
    available, where = None, ""
    if target.strip() or hw is None:
        hw, available, where = targets.resolve(target)
    choice = budget.choose(cfg, data, model_shape(cfg.model_name_or_path).params(), hw=hw)
    return {**plan(choice.config, hw, data, available, runs), "data_note": note,
            "data_error": unread,
            "length_note": length.said(cfg),
            "budget_minutes": cfg.time_budget_minutes, "budget": choice.reasons,
            "budget_needs_speed": choice.needs_speed, "budget_fits_in_run": choice.fits_in_run,
            "for_target": targets.find(target) is not None,
            "sized": [*found.reasons, *found.notes],
            **plan_modes(choice.config, hw, available, where)}


def plan_modes(cfg: RunConfig, hw: Hardware, available: int | None = None,
               where: str = "") -> dict:
    """Which of full fine-tuning, LoRA and QLoRA fit hw (with `available` bytes, default:
    what is free there), the best (what Fit applies) with its measured speed if any, and
    the precision and kernels chosen there, each with its reason."""
    shape = model_shape(cfg.model_name_or_path)
    available = available_memory(hw) if available is None else available
    fits = modes.fit_modes(cfg, shape, hw, available)
    best = modes.best(fits, cfg)
    chosen = dataclasses.replace(cfg, **best.changes) if best else cfg
    return {"target": where or hw.name, "target_memory": available,
            "modes": [f.as_dict() for f in fits], "best": best.mode if best else None,
            "best_changes": best.changes if best else {},
            "best_tokens_per_second": measured_speed(chosen, hw),
            "kernels": {name: {"value": c.value, "reason": c.reason}
                        for name, c in kernels.choose(chosen, hw).items()}}


def fit_to_target(cfg: RunConfig, target: str) -> tuple[RunConfig, Message]:
    """Fit for a target GPU (or this machine's GPU, target blank): the best of full
    fine-tuning, LoRA and QLoRA that fits there (modes.best), with its batch,
    accumulation, max_length and activation checkpointing."""
    _check(cfg)
    hw, available, where = targets.resolve(target)
    available = available_memory(hw) if available is None else available
    fits = modes.fit_modes(cfg, model_shape(cfg.model_name_or_path), hw, available)
    best = modes.best(fits, cfg)
    if best is None:
        raise ConfigError([Message("Nothing fits {where}: {label}: {reason}.", where=where,
                                   label=f.label, reason=f.reason) for f in fits])
    return dataclasses.replace(cfg, **best.changes), Message(
        "{label} on {where}: {reason}.", label=best.label, where=where, reason=best.reason)


def plan(cfg: RunConfig, hw: Hardware | None = None, data: DataSample | None = None,
         available: int | None = None, runs: Path | None = None) -> dict:
    """Everything known about cfg's run before it starts (sizes in bytes, times in s;
    `runs`: where runs are kept, for the disk it has)."""
    cfg = for_stage(cfg)
    _check(cfg)
    hw = hw or detect()
    shape = model_shape(cfg.model_name_or_path)
    prompt = prompt_tokens(cfg, data.lengths if data else None)
    parts = peak_memory(cfg, shape, hw, prompt)
    total = sum(parts.values())
    available = available_memory(hw) if available is None else available
    processes = cfg.processes(hw.devices)
    effective = cfg.effective_batch(processes)
    # An upper bound: rows pad to their batch's longest (DPO and ORPO: two answers a row;
    # GRPO: the prompt and its longest answer).
    longest = sequence_tokens(cfg, prompt)
    per_step = effective * longest * sequences_per_example(cfg)
    pad = padding(data.lengths, cfg.per_device_train_batch_size, longest) \
        if data and data.lengths else None
    padding_free = kernels.lean_pads_nothing(cfg, hw)
    typical = per_step if pad is None or cfg.packing else \
        round(effective * sequences_per_example(cfg) *
              pad["tokens" if padding_free else "padded_tokens"] / pad["rows"])
    steps = run_steps(cfg, processes, data)
    speed = measured_speed(cfg, hw)
    seconds = typical / speed if speed else None
    if seconds:  # a preference step's passes without gradients (passes.step_cost)
        seconds *= step_cost(cfg)
    rounds = sample_rounds(cfg, steps)
    round_time = round_seconds(cfg, hw) if rounds else None
    return {"device": hw.device, "device_name": hw.name, "devices": hw.devices,
            "precision": precision(cfg.bf16, cfg.fp16, hw),
            "params": shape.params(), "trainable_params": trainable_params(cfg, shape),
            "effective_batch": effective, "tokens_per_step": per_step,
            "tokens_per_step_typical": typical, "steps": steps,
            "total_tokens": steps * per_step if steps else None,
            "memory": {**parts, "total": total},
            "memory_notes": memory_notes(cfg, shape, hw, prompt),
            "available_bytes": available,
            "memory_share": total / max(available, 1), "fit": fit_mark(total, available),
            "padding": pad, "packing": cfg.packing, "data_rows": data.rows if data else None,
            "data_notes": list(data.notes) if data else [],
            "padding_free": padding_free, "writes_answers": writes_answers(cfg),
            "tokens_per_second": speed, "seconds_per_step": seconds,
            "sample_rounds": rounds, "round_seconds": round_time,
            "seconds_total": seconds * steps + rounds * (round_time or 0)
            if seconds and steps else None,
            "processes": processes, "strategy": strategy(cfg, hw, parts, available, processes),
            "disk": disk_plan(cfg, shape, hw, steps, runs)}


def sample_rounds(cfg: RunConfig, steps: int | None) -> int:
    """Rounds of sample answers a run of `steps` steps generates after its start (the
    answers before training are kept from an earlier run): every sample_steps, and at
    its end; none for a stage whose trainer shows its own answers."""
    every = cfg.sample_steps
    if not steps or not every or stage_of(cfg).own_samples or \
            not any(p.strip() for p in cfg.sample_prompts):
        return 0
    return 1 + sum(1 for step in range(every, steps, every)  # (the end's, and each due)
                   if not (every > NEAR_END and steps - step <= NEAR_END))


def strategy(cfg: RunConfig, hw: Hardware, parts: dict, available: int,
             processes: int) -> dict | None:
    """For a run on several GPUs: DDP (each holds the whole model) when its training fits
    one GPU, else FSDP (weights, gradients and optimizer state split across them), with
    the memory per GPU of each (a preference run's reference model is split too, as TRL
    prepares it for FSDP); None for one process."""
    if processes < 2:
        return None
    whole = sum(parts.values())
    sharded = sum(v for k, v in parts.items()
                  if k in ("weights", "gradients", "optimizer", "reference"))
    split = whole - sharded + sharded / processes
    best = "ddp" if whole <= TIGHT * available else "fsdp"
    ddp, fsdp, room = size_text(whole), size_text(split), size_text(available)
    if best == "ddp":
        reason = Message("ddp: each GPU holds the whole run, about {ddp} of {room}, and no "
                         "weights travel between GPUs.", ddp=ddp, room=room)
    else:
        reason = Message("fsdp: under ddp each GPU would need about {ddp} of {room}; fsdp "
                         "splits the weights, gradients and optimizer state across the "
                         "{processes} GPUs, about {fsdp} each.", ddp=ddp, room=room,
                         processes=processes, fsdp=fsdp)
    return {"choice": best, "reason": reason, "ddp_bytes": whole, "fsdp_bytes": round(split)}


def _check(cfg: RunConfig) -> None:
    problems = cfg.validate()
    if problems:
        raise ConfigError(problems)


def fit_to_machine(cfg: RunConfig, hw: Hardware | None = None,
                   available: int | None = None) -> tuple[RunConfig, Message]:
    """The largest batch per device (a power of two, or the current one) that fits, with
    accumulation raised to keep the effective batch; and what changed, in words."""
    _check(cfg)
    hw = hw or detect()
    shape = model_shape(cfg.model_name_or_path)
    available = available_memory(hw) if available is None else available
    batch, accum = cfg.per_device_train_batch_size, cfg.gradient_accumulation_steps
    target = batch * accum

    def need(b: int) -> int:
        return sum(peak_memory(dataclasses.replace(cfg, per_device_train_batch_size=b), shape,
                               hw).values())
    low = stage_of(cfg).min_batch  # never below the stage's minimum
    sizes = sorted({max(batch, low)} | {2**k for k in range(target.bit_length())
                                        if low <= 2**k <= target}, reverse=True)
    new_batch = next((b for b in sizes if need(b) <= TIGHT * available), low)
    new = dataclasses.replace(cfg, per_device_train_batch_size=new_batch,
                              gradient_accumulation_steps=math.ceil(target / new_batch))
    needed = need(new_batch)
    room = Message("{needed} of {available} available", needed=size_text(needed),
                   available=size_text(available))
    if needed > TIGHT * available:
        return new, Message("Even batch {batch} needs about {room}: shorten {setting}, or "
                            "turn on activation checkpointing or LoRA.", batch=new_batch,
                            room=room, setting=length_setting(cfg))
    if new == cfg:
        return new, Message("Batch {batch} x accumulation {accum} is the largest that fits "
                            "({room}).", batch=batch, accum=accum, room=room)
    text = Message("Batch per device {batch} -> {new_batch}, accumulation {accum} -> "
                   "{new_accum}: about {room}.", batch=batch, new_batch=new_batch, accum=accum,
                   new_accum=new.gradient_accumulation_steps, room=room)
    if new_batch * new.gradient_accumulation_steps == target:
        return new, Message("{text} The effective batch stays {total}.", text=text,
                            total=target * hw.devices)
    return new, Message("{text} The effective batch becomes {new} instead of {old}, the "
                        "nearest above that batch {batch} divides.", text=text,
                        new=new.effective_batch(hw.devices), old=target * hw.devices,
                        batch=new_batch)


def duration_text(seconds: float) -> Message:
    if seconds < 90:
        return Message("about {seconds} s", seconds=max(round(seconds), 1))
    if seconds < 90 * 60:
        return Message("about {minutes} min", minutes=round(seconds / 60))
    return Message("about {hours} h", hours=f"{seconds / 3600:.1f}")
