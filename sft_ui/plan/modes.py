"""Which of full fine-tuning, LoRA (16-bit base) and QLoRA (4-bit base) fit this machine
or a target GPU (plan/targets.py), and at which batch, accumulation, max_length and
activation checkpointing; the best that fits is what "Fit" applies.

Owns the search over those settings against memory.py's peak estimate; knows nothing of
Gradio or runs. The effective batch stays (accumulation makes up for a smaller batch).
"""
from __future__ import annotations

import dataclasses
import math

from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import Hardware, unsupported
from sft_ui.plan.memory import TIGHT, loads_in_fp32, peak_memory, size_text
from sft_ui.plan.rollouts import length_setting
from sft_ui.plan.shape import ModelShape
from sft_ui.stages import stage_of

MODES = (("full", "full fine-tuning", {"use_peft": False, "load_in_4bit": False}),
         ("lora", "LoRA (16-bit base)", {"use_peft": True, "load_in_4bit": False}),
         ("qlora", "QLoRA (4-bit base)", {"use_peft": True, "load_in_4bit": True}))
MIN_LENGTH = 256    # max_length is halved down to this before a mode is said not to fit
# A batch of this many tokens keeps a GPU busy: checkpointing (which recomputes the forward
# pass: 1.8x the time of a step on an H100, README "Benchmark") is chosen only to reach it.
GOOD_TOKENS = 2048


@dataclasses.dataclass(frozen=True)
class ModeFit:
    mode: str           # "full", "lora", "qlora"
    label: Message
    fits: bool
    changes: dict       # the RunConfig fields that set this mode up (empty if it cannot)
    memory: int         # the peak estimate of that setup (or of the smallest tried)
    reason: Message

    def as_dict(self) -> dict:  # (not asdict: it would copy the Messages as plain str)
        return {**{f.name: getattr(self, f.name) for f in dataclasses.fields(self)},
                "changes": dict(self.changes)}


def _need(cfg: RunConfig, shape: ModelShape, hw: Hardware, **changes) -> int:
    return sum(peak_memory(dataclasses.replace(cfg, **changes), shape, hw).values())


def _batches(cfg: RunConfig) -> list[int]:
    """The batch sizes tried, largest first: powers of two up to the effective batch, none
    below the stage's minimum (KTO compares answers within a batch)."""
    target = cfg.per_device_train_batch_size * cfg.gradient_accumulation_steps
    low = stage_of(cfg).min_batch
    return sorted({max(cfg.per_device_train_batch_size, low)} |
                  {2**k for k in range(target.bit_length()) if low <= 2**k <= target},
                  reverse=True)


def _lengths(cfg: RunConfig) -> list[int]:
    n = getattr(cfg, length_setting(cfg))
    lengths = [n]
    while n // 2 >= MIN_LENGTH:
        n //= 2
        lengths.append(n)
    return lengths


def fit_mode(cfg: RunConfig, mode: str, shape: ModelShape, hw: Hardware,
             available: int) -> ModeFit:
    """The largest batch of `mode` that fits `available` bytes (under the "tight" share):
    without activation checkpointing when a batch of GOOD_TOKENS (or the whole effective
    batch) fits so, else with it if that fits a larger batch; max_length halved only when
    nothing else fits."""
    _, label, switch = next(m for m in MODES if m[0] == mode)
    label = Message(label)
    base = dataclasses.replace(cfg, **switch)
    if mode == "lora" and loads_in_fp32(base, hw):  # a CPU, or a GPU in fp32: no 16 bits
        label = Message("LoRA (fp32 base)")
    problems = unsupported(base, hw, fixes=False)  # a way to train, not a setting to change
    if problems:  # each a Message (several: a template that only spaces them)
        return ModeFit(mode, label, False, {}, 0, problems[0] if len(problems) == 1 else
                       Message(" ".join(f"{{problem{n}}}" for n in range(len(problems))),
                               **{f"problem{n}": p for n, p in enumerate(problems)}))
    target = cfg.per_device_train_batch_size * cfg.gradient_accumulation_steps
    room = TIGHT * available
    key = length_setting(cfg)  # max_length (GRPO: max_completion_length)
    for length in _lengths(cfg):
        best = {}
        for checkpointing in (False, True):
            best[checkpointing] = next(
                (b for b in _batches(cfg) if _need(base, shape, hw, **{key: length},
                                                   per_device_train_batch_size=b,
                                                   activation_checkpointing=checkpointing)
                 <= room), None)
        plain, saved = best[False], best[True]
        enough = plain and (plain == target or plain * length >= GOOD_TOKENS)
        checkpointing = bool(saved) and not enough and (plain or 0) < (saved or 0)
        batch = best[checkpointing]
        if batch is None:
            continue
        changes = {**switch, "per_device_train_batch_size": batch,
                   "gradient_accumulation_steps": math.ceil(target / batch),
                   key: length, "activation_checkpointing": checkpointing}
        need = _need(cfg, shape, hw, **changes)
        text = Message("batch {batch} x accumulation {accum}, {setting} {length}, activation "
                       "checkpointing on: about {size} of {available}" if checkpointing else
                       "batch {batch} x accumulation {accum}, {setting} {length}, activation "
                       "checkpointing off: about {size} of {available}", batch=batch,
                       accum=changes["gradient_accumulation_steps"], setting=key,
                       length=length, size=size_text(need), available=size_text(available))
        if length < getattr(cfg, key):  # the two as one Message (a space between them)
            text = Message("{fit} {shortened}", fit=text, shortened=Message(
                "({setting} shortened from {old})", setting=key, old=getattr(cfg, key)))
        return ModeFit(mode, label, True, changes, need, text)
    low = stage_of(cfg).min_batch
    smallest = _need(base, shape, hw, **{key: _lengths(cfg)[-1]},
                     per_device_train_batch_size=low, activation_checkpointing=True)
    return ModeFit(mode, label, False, {}, smallest,
                   Message("even batch {batch} at {setting} {length} with activation "
                           "checkpointing needs about {size} of {available}", batch=low,
                           setting=key, length=_lengths(cfg)[-1], size=size_text(smallest),
                           available=size_text(available)))


def fit_modes(cfg: RunConfig, shape: ModelShape, hw: Hardware, available: int) -> list[ModeFit]:
    return [fit_mode(cfg, mode, shape, hw, available) for mode, _, _ in MODES]


def best(fits: list[ModeFit], cfg: RunConfig) -> ModeFit | None:
    """What Fit applies: full fine-tuning where it fits, else LoRA, else QLoRA; a LoRA
    the settings already ask for is kept (not traded for full fine-tuning), and so is
    QLoRA."""
    wanted = "qlora" if cfg.use_peft and cfg.load_in_4bit else "lora" if cfg.use_peft else "full"
    order = [m for m, _, _ in MODES]
    allowed = order[order.index(wanted):]
    return next((f for f in fits if f.fits and f.mode in allowed), None)
