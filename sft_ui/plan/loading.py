"""How a run's model is loaded on this machine: the half precision autocast computes in,
from_pretrained's options (trained weights stay fp32; a frozen LoRA base on a GPU in its
half precision, or in 4 bits for QLoRA) and the LoRA adapter. The engine, the speed probe
(speed.calibrate) and the memory estimate (memory.py) all follow these.
"""
from __future__ import annotations

import os

from sft_ui.config import RunConfig
from sft_ui.config.trl import translate
from sft_ui.plan.hardware import detect, precision


def half_dtype(cfg: RunConfig):
    """torch's dtype for cfg's mixed precision on this machine; None for fp32."""
    import torch  # heavy: loaded on first use
    return {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision(cfg.bf16, cfg.fp16))


def load_options(cfg: RunConfig) -> dict:
    """How from_pretrained loads cfg's model on this machine. Trained weights stay fp32
    (autocast computes in half precision); a frozen LoRA base on a GPU is kept in its
    half precision, or in 4 bits for QLoRA, on this process's GPU."""
    hw, half = detect(), half_dtype(cfg)
    if not (cfg.use_peft and hw.device == "cuda" and half is not None):
        return {}
    options = {"dtype": half, "device_map": {"": int(os.environ.get("LOCAL_RANK", "0"))}}
    if cfg.load_in_4bit:
        from transformers import BitsAndBytesConfig  # heavy: loaded on first use
        options["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=half,
            bnb_4bit_use_double_quant=True)
    return options


def peft_config(cfg: RunConfig):
    """The LoRA adapter of cfg (None without LoRA), from its ModelConfig values."""
    if not cfg.use_peft:
        return None
    from peft import LoraConfig  # heavy: loaded on first use
    model = translate(cfg)["model"]
    return LoraConfig(r=model["lora_r"], lora_alpha=model["lora_alpha"],
                      lora_dropout=model["lora_dropout"],
                      target_modules=model["lora_target_modules"], task_type="CAUSAL_LM")
