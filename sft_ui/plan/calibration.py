"""The figures the memory estimate (plan/memory.py) is fitted to, per device (Calibration: CPU,
CUDA), with the measured peaks they come from in the comments. Only numbers: knows no
RunConfig and no model.
"""
from __future__ import annotations

import dataclasses

# Peak RSS of 2-step trainings (the engine, SFTTrainer) of SmolLM2-135M on a 2-core CPU,
# fp32, rows filling max_length; in brackets this estimate's error:
#   full fine-tune  b1 x 128: 3.13 GB (-3%)   b4 x 128: 3.69 GB (+11%)
#                   b1 x 512: 3.75 GB (+9%)   b4 x 512: 7.93 GB (+4%)
#                   b2 x 256: 3.71 GB (+10%)  b2 x 1024: 8.02 GB (+3%)
#                   b4 x 512, activation checkpointing: 5.28 GB (-10%)
#   LoRA r16        b1 x 128: 1.74 GB (-5%)   b4 x 128: 3.26 GB (-4%)
#                   b1 x 512: 3.31 GB (-6%)   b4 x 512: 8.56 GB (+6%)
#                   b8 x 256: 9.51 GB (-5%)
#                   activation checkpointing, b4 x 512: 5.67 GB (-2%), b8 x 256: 5.76 GB (-4%)
# Python with torch, transformers, trl, datasets and peft imported holds 430 MB;
# the tokenizer, data and thread pools of a run bring it to about 512 MiB.
RUNTIME_BYTES = 512 * 2**20
# Preference stages (TRL 1.16): DPOTrainer and KTOTrainer score tokens with a fused LM head
# (trl/kernels/chunked_logprob.py) that holds the logits of at most 4096 positions by 32768
# vocabulary entries at once, recomputed in the backward pass; ORPOTrainer computes the
# whole logits, as SFTTrainer does. DPO and KTO keep the model near a reference model.
FUSED_TILE = (4096, 32768)
# Peak RSS of 2- and 3-step preference trainings (the engine) of SmolLM2-135M on a 2-core
# CPU, bf16 unless marked, rows filling max_length, batch x max_length (DPO and ORPO put
# twice the sequences through the model: chosen and rejected); in brackets this estimate's
# error:
#   DPO   LoRA r16  b2 x 48: 1.88 GB (+5%)  b4 x 56: 2.49 GB (+9%)  b2 x 256: 3.81 GB (+14%)
#                   fp32 b2 x 256: 4.37 GB (+16%)
#         full      b2 x 48: 3.59 GB (+7%)  b4 x 56: 4.10 GB (+4%)  b2 x 256: 5.28 GB (0%)
#                   b4 x 512: 12.14 GB (-12%)  fp32 b2 x 256: 5.76 GB (+4%)
#   ORPO  LoRA r16  b2 x 56: 1.98 GB (+5%)   full b2 x 56: 3.17 GB (+6%)
#   KTO   full      b2 x 56: 3.50 GB (+5%)
# On the CPU the fused LM head's tile, its fp32 transform, exponentials, masks and
# gradient make about 6 copies (more at 4096 positions: the b4 x 512 row).
FUSED_CPU_COPIES = 6.0


@dataclasses.dataclass(frozen=True)
class Calibration:
    """What a device adds to the sizes of the parts, as measured there."""
    runtime: int              # bytes the process holds besides the parts
    activation_scale: float   # measured activations over the per-block count below
    logit_copies: float       # vocabulary-sized fp32 values kept per token
    lora_input_copies: float  # copies (with dropout masks) of each adapted layer's input
    fused_tile_copies: float  # fp32 copies of the fused LM head's tile (DPO, KTO)
    answer_logit_copies: float  # the same as logit_copies, for the answers GRPO wrote


# CPU (the measurements above): the logits, their log-softmax, both gradients and TRL's
# token accuracy and entropy metrics make 4.5 copies; LoRA keeps about 1.5 copies of each
# adapted layer's input, and activation checkpointing does not remove them.
# GRPO's answers keep about 11: its per-token log-probabilities and entropies over the
# whole vocabulary, in fp32 beside the logits (fitted to GRPO trainings' peak RSS on a
# CPU, where 4.5 copies fell short: docs/grpo.md#the-plan).
CPU = Calibration(RUNTIME_BYTES, 1.0, 4.5, 1.5, FUSED_CPU_COPIES, 11.0)
# CUDA, fitted to the allocator's peak plus the CUDA context of 12 trainings of
# SmolLM2-135M on an H100 (batch 1-16, max_length 128-512; fp32, fp16, bf16, checkpointing,
# LoRA, QLoRA; scripts/bench_gpu.py), worst error 6%: the context and kernels' workspace
# take about 1.25 GiB, TRL's fused LM head (Triton) keeps about half a copy of the logits,
# and LoRA's input copies vanish in the activations that are kept anyway.
# GRPO's answers: as measured on an H100 (docs/grpo.md#the-plan).
CUDA = Calibration(int(1.25 * 2**30), 1.1, 0.5, 0.0, 1.0, 0.5)
# Liger's fused RMSNorm, RoPE and SwiGLU kept 0.78 of the activations there (16 x 512 tokens).
LIGER_ACTIVATIONS = 0.8
# NF4 with nested quantization: 4 bits a weight plus about 0.127 bits of scales.
NF4_BYTES = (4 + 0.127) / 8
