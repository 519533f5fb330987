"""Precision, optimizer, Liger kernels and padding-free batching decided for the hardware a run
trains on (or is planned for), each with the reason a person reads in the plan; a setting the
person set wins. Knows nothing of TRL or the UI: train/arguments.py applies the choices.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import Hardware, precision
from sft_ui.stages import stage_of

SMALL_CARD = 24 * 2**30  # a paged 8-bit optimizer pays off for QLoRA up to this size
EIGHT_BIT = ("adamw_8bit", "paged_adamw_8bit")


@dataclass(frozen=True)
class Choice:
    value: object
    reason: str


def _precision(cfg, hw: Hardware) -> Choice:
    value = precision(cfg.bf16, cfg.fp16, hw)
    if cfg.bf16 is not None or cfg.fp16 is not None:
        return Choice(value, "set in the settings")
    if value == "bf16":
        return Choice(value, Message("{device} computes bf16 natively", device=hw.name))
    if value == "fp16":
        return Choice(value, Message("{device} has no bf16: fp16 mixed precision, with loss "
                                     "scaling against underflow", device=hw.name))
    return Choice(value, "bf16 is not faster than fp32 on this CPU (emulated without "
                         "avx512_bf16 it is 10-125x slower; measured without AMX, 0.6x)")


def _optimizer(cfg, hw: Hardware, has=None) -> Choice:
    has = has or hw.has
    if cfg.optim != "auto":
        return Choice(cfg.optim, "set in the settings")
    if hw.device != "cuda":
        return Choice("adamw_torch_fused", "fused AdamW on a CPU too: 0.09 s a step for the "
                                           "default model against 0.3-0.45 s for the "
                                           "per-tensor loop")
    if cfg.use_peft and cfg.load_in_4bit and hw.memory_bytes <= SMALL_CARD \
            and has("bitsandbytes"):
        return Choice("paged_adamw_8bit", "QLoRA on a card of 24 GB or less: bitsandbytes' "
                                          "paged 8-bit AdamW keeps the optimizer state small "
                                          "and pages it out under memory spikes")
    return Choice("adamw_torch_fused", "fused AdamW: one CUDA kernel for all the weights")


def _liger(cfg, hw: Hardware, has=None) -> Choice:
    has = has or hw.has
    if cfg.use_liger_kernel is not None:
        return Choice(bool(cfg.use_liger_kernel), "set in the settings")
    if hw.device != "cuda":
        return Choice(False, "Liger's Triton kernels need a CUDA GPU")
    if not has("liger_kernel"):
        return Choice(False, "the liger-kernel package is not installed "
                             "(pip install liger-kernel)")
    return Choice(True, "liger-kernel is installed there: fused RMSNorm, RoPE and SwiGLU, "
                        "about a fifth less activation memory")


def lean_pads_nothing(cfg, hw: Hardware) -> bool:
    """Whether a run trains on padding-free batches without packing: on a CPU the engine's
    lean step (train/lean.py, SFT only: the preference trainers pad each batch) lays each
    batch's rows end to end; a model's own remote code may not keep such rows apart, so it
    keeps padded batches."""
    return hw.device == "cpu" and stage_of(cfg).lean_step and not cfg.packing and \
        not cfg.trust_remote_code


def _padding_free(cfg, hw: Hardware, has=None) -> Choice:
    has = has or hw.has
    if lean_pads_nothing(cfg, hw):
        return Choice(True, "on a CPU the studio's own training step lays the rows of each "
                            "batch end to end, so no padding is computed (TRL's padding_free "
                            "itself stays off without packing)")
    if not cfg.packing:
        return Choice(False, "off without packing: TRL 1.16 then stops enforcing max_length, "
                             "so memory would not be bounded; turn on packing instead")
    if cfg.packing_strategy == "wrapped":
        return Choice(False, "the 'wrapped' packing strategy pads nothing anyway")
    if hw.device == "cuda" and has("flash_attn"):
        return Choice(True, "packing (bfd) runs padding-free, each example kept apart by "
                            "FlashAttention's variable-length kernels")
    return Choice(True, "packing (bfd) runs padding-free; TRL 1.16 documents it for "
                        "FlashAttention 2/3 only: with SDPA (no flash-attn installed) "
                        "transformers keeps the examples apart with a block mask, correct "
                        "but its attention spans the whole packed row")


def choose(cfg, hw: Hardware, has=None) -> dict[str, Choice]:
    """What a run of cfg uses on hw, and why: precision, optim, use_liger_kernel,
    padding_free. `has(module)`: whether a package is installed there (default: hw.has)."""
    return {"precision": _precision(cfg, hw), "optim": _optimizer(cfg, hw, has),
            "use_liger_kernel": _liger(cfg, hw, has),
            "padding_free": _padding_free(cfg, hw, has)}


def liger_on(cfg, hw: Hardware) -> bool:
    return bool(_liger(cfg, hw).value)


def optimizer(cfg, hw: Hardware) -> str:
    return cast(str, _optimizer(cfg, hw).value)  # (an optimizer's name)
