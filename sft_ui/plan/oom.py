"""What to do when a run runs out of memory: the error recognised (torch's, the CPU
allocator's, CUDA's), and the fixes to try in order, each as a sentence and as the
RunConfig changes that "Apply suggestion" fills in. plan/memory.py's guard gives the same
fixes before a run that would not fit. Knows nothing of Gradio or runs.
"""
from __future__ import annotations

import math

from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import Hardware, detect
from sft_ui.plan.rollouts import length_setting
from sft_ui.stages import stage_of


def is_out_of_memory(error: BaseException) -> bool:
    import torch  # heavy: torch loaded on first use
    return isinstance(error, torch.OutOfMemoryError) or \
        any(text in str(error) for text in ("DefaultCPUAllocator: can't allocate memory",
                                            "CUDA out of memory", "OutOfMemoryError"))


def _fixes(cfg: RunConfig, hw: Hardware | None = None) -> list[tuple[Message, dict]]:
    """What to try when a run does not fit, in order: (what, RunConfig changes)."""
    hw = hw or detect()
    batch, accum = cfg.per_device_train_batch_size, cfg.gradient_accumulation_steps
    fixes = []
    if batch // 2 >= stage_of(cfg).min_batch:  # never below the stage's minimum
        half = batch // 2
        more = math.ceil(batch * accum / half)
        same = Message("the same effective batch") if half * more == batch * accum else \
            Message("{new} examples per device and step instead of {old}", new=half * more,
                    old=batch * accum)
        fixes.append((Message("halve the batch per device and raise accumulation (batch "
                              "{batch} x accumulation {accum}: {same})", batch=half,
                              accum=more, same=same),
                       {"per_device_train_batch_size": half, "gradient_accumulation_steps": more}))
    length = length_setting(cfg)  # max_length; GRPO: its answers' (max_length unread)
    tokens = getattr(cfg, length)
    if tokens >= 16:
        fixes.append((Message("shorten {setting} ({old} -> {new} tokens)", setting=length,
                              old=tokens, new=tokens // 2),
                      {length: tokens // 2}))
    if not cfg.activation_checkpointing:
        fixes.append((Message("turn on activation checkpointing (less memory, some more time)"),
                      {"activation_checkpointing": True}))
    if not cfg.use_peft:
        fixes.append((Message("train a LoRA adapter instead of every weight (no gradients or "
                              "optimizer state for the base model)"), {"use_peft": True}))
    if hw.device == "cuda" and not cfg.load_in_4bit:
        fixes.append((Message("load the base model in 4 bits under the LoRA adapter (QLoRA, "
                              "bitsandbytes): a quarter of the weights' memory"),
                      {"use_peft": True, "load_in_4bit": True}))
    return fixes


def fixes_text(cfg: RunConfig, hw: Hardware | None = None) -> Message:
    """The fixes numbered in order ("1. ...; 2. ..."), each a Message of its own: the list's
    template holds only their numbers and separators, so it needs no entry of its own."""
    fixes = [text for text, _ in _fixes(cfg, hw)]
    return Message("; ".join(f"{n}. {{fix{n}}}" for n in range(1, len(fixes) + 1)),
                   **{f"fix{n}": text for n, text in enumerate(fixes, 1)})


def out_of_memory_advice(cfg: RunConfig, hw: Hardware | None = None) -> tuple[Message, dict]:
    """What to try after running out of memory, in order, and the first fix as RunConfig
    changes (for "Apply suggestion")."""
    suggestion = next((changes for _, changes in _fixes(cfg, hw) if changes), {})
    return (Message("Try, in this order: {steps}. Apply suggestion fills in the first.",
                    steps=fixes_text(cfg, hw)), suggestion)
