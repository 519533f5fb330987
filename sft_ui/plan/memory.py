"""How much memory a training run needs.

Owns the peak memory of a training step by part, from the model's shape (plan/shape.py):
for a preference stage, dpo, orpo or kto, also what its trainer adds (two answers per
example, the reference model and its forward pass without gradients), for GRPO the
answers it writes (plan/generation.py); this machine's available memory and the fit
against it, and the RAM guard (with plan/oom.py's fixes).
Knows nothing of Gradio, runs or the data.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import psutil

from sft_ui.config import RunConfig
from sft_ui.models import ModelError
from sft_ui.plan.generation import (
    VLLM_SHARE,
    answer_tokens,
    generation_notes,
    kv_cache_bytes,
    length_setting,
    sequence_tokens,
    with_vllm,
    writes_answers,
)
from sft_ui.plan.hardware import Hardware, detect, precision
from sft_ui.plan.kernels import EIGHT_BIT, liger_on, optimizer
from sft_ui.plan.oom import fixes_text
from sft_ui.plan.shape import ModelShape, model_shape
from sft_ui.stages import PREFERENCE, stage_of

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
# whole vocabulary, in fp32 beside the logits; peak RSS of 3-step GRPO trainings of
# SmolLM2-135M's shape on a 2-core CPU (scripts/grpo_gpu_plan.py, 2026-11-27), with the
# estimate over it at 4.5 copies and at 11: full b8 x 2, 8 answers of 128 tokens 6.1 GiB
# (0.79, 1.00); full b4 x 2, 4 of 64 3.9 GiB (0.86, 0.94); LoRA b4 x 2, 4 of 64 2.7 GiB
# (0.91, 1.01).
CPU = Calibration(RUNTIME_BYTES, 1.0, 4.5, 1.5, FUSED_CPU_COPIES, 11.0)
# CUDA, fitted to the allocator's peak plus the CUDA context of 12 trainings of
# SmolLM2-135M on an H100 (batch 1-16, max_length 128-512; fp32, fp16, bf16, checkpointing,
# LoRA, QLoRA; scripts/bench_gpu.py), worst error 6%: the context and kernels' workspace
# take about 1.25 GiB, TRL's fused LM head (Triton) keeps about half a copy of the logits,
# and LoRA's input copies vanish in the activations that are kept anyway.
# GRPO's answers: as measured on an H100 (docs/grpo.md: plan / measured 0.93-1.00).
CUDA = Calibration(int(1.25 * 2**30), 1.1, 0.5, 0.0, 1.0, 0.5)
# Liger's fused RMSNorm, RoPE and SwiGLU kept 0.78 of the activations there (16 x 512 tokens).
LIGER_ACTIVATIONS = 0.8
# NF4 with nested quantization: 4 bits a weight plus about 0.127 bits of scales.
NF4_BYTES = (4 + 0.127) / 8
TIGHT = 0.8  # above this share of the available memory a run is "tight"
GUARD = 0.9  # above it a run on a CPU is refused: running out of RAM kills the app
CUDA_GUARD = 1.1  # above it (of the free GPU memory) a run on a GPU is refused


# ---- memory ------------------------------------------------------------------
def half_precision(cfg: RunConfig, hw: Hardware) -> bool:
    """True when cfg trains in bf16 or fp16 mixed precision on this hardware."""
    return precision(cfg.bf16, cfg.fp16, hw) != "fp32"


def loads_in_fp32(cfg: RunConfig, hw: Hardware) -> bool:
    """Whether loading.load_options loads the model in fp32: everywhere but a frozen LoRA
    base on a GPU in half precision (or 4 bits, QLoRA)."""
    return not (cfg.use_peft and half_precision(cfg, hw) and hw.device == "cuda")


def loaded_bytes(cfg: RunConfig, shape: ModelShape, hw: Hardware) -> int:
    """The model's weights as loading.load_options loads them, without an adapter: fp32;
    a frozen LoRA base on a GPU in half precision, or its linear layers in 4 bits for
    QLoRA. A preference run's second, frozen copy of the model is this size too."""
    params = shape.params()
    if loads_in_fp32(cfg, hw):
        return 4 * params
    if not cfg.load_in_4bit:
        return 2 * params
    linear = shape.layers * sum(a * b for a, b in shape.linears().values())
    return round(NF4_BYTES * linear) + 2 * (params - linear)


def weight_bytes(cfg: RunConfig, shape: ModelShape, hw: Hardware) -> int:
    """The trained model's weights: as loaded (loaded_bytes), plus the half-precision
    copies autocast makes of fp32 weights, plus the adapter in fp32."""
    adapter = trainable_params(cfg, shape) if cfg.use_peft else 0
    casts = 2 * shape.params() if half_precision(cfg, hw) and loads_in_fp32(cfg, hw) else 0
    return loaded_bytes(cfg, shape, hw) + casts + 4 * adapter


def block_values(shape: ModelShape) -> int:
    """Values per token a block computes and a backward pass keeps: the norms, attention
    inputs and outputs and the linear layers' inputs (~16 x hidden), the MLP's
    intermediate values (4 or 2 x intermediate)."""
    return 16 * shape.hidden + (4 if shape.gated else 2) * shape.intermediate


def activation_value(cfg: RunConfig, hw: Hardware) -> int:
    """Bytes of one activation value: mixed precision (bf16 or fp16) halves fp32's."""
    return 2 if half_precision(cfg, hw) else 4


def activation_bytes(cfg: RunConfig, shape: ModelShape, value: int,
                     lora_input_copies: float = CPU.lora_input_copies) -> int:
    """Bytes the backward pass keeps per token: block_values per block. Checkpointing
    keeps each block's input plus one block. LoRA adds copies of the adapted layers'
    inputs."""
    block = value * block_values(shape)
    kept = shape.layers * shape.hidden * value + block if cfg.activation_checkpointing \
        else shape.layers * block
    if cfg.use_peft:
        inputs = sum(a for a, _ in shape.adapted(cfg.lora_target_modules).values())
        # 4 + 1 bytes (fp32 and a dropout mask) whatever the precision: with bf16 on a CPU
        # the measured LoRA rows of `make bench` came 10-17% above a half-precision count
        kept += round(lora_input_copies * (4 + 1) * inputs * shape.layers)
    return kept


def trainable_params(cfg: RunConfig, shape: ModelShape) -> int:
    if cfg.use_peft:
        return shape.adapter_params(cfg.lora_r, cfg.lora_target_modules)
    return shape.params()


def peak_memory(cfg: RunConfig, shape: ModelShape, hw: Hardware,
                prompt_tokens: int | None = None) -> dict[str, int]:
    """Peak memory of a training step by part, in bytes (with every sequence at its longest:
    max_length). Mixed precision (bf16 or fp16) halves the activations. A preference stage
    (dpo, orpo, kto) counts the sequences its trainer puts through the model
    (trained_tokens) and adds a "reference" part: the reference model and its forward pass
    without gradients. GRPO's sequence is the prompt (`prompt_tokens`, measured in the
    data) and its longest answer, and its "generation" part what the KV cache of the
    answers it writes needs beyond the training pass's activations and logits (the two
    are not held at once); with vLLM a "vllm" part, vLLM's share of the GPU, instead."""
    trainable = trainable_params(cfg, shape)
    parts = {"weights": weight_bytes(cfg, shape, hw),
             "gradients": 4 * trainable,
             # AdamW: two fp32 moments; an 8-bit AdamW keeps them in a byte each
             "optimizer": (2 if optimizer(cfg, hw) in EIGHT_BIT else 8) * trainable,
             "activations": round(trained_tokens(cfg, prompt_tokens) *
                                  _token_activations(cfg, shape, hw)),
             "logits": logit_bytes(cfg, shape, hw, prompt_tokens),
             "runtime": _calibration(hw).runtime}
    if stage_of(cfg).family == PREFERENCE:
        parts["reference"] = reference_bytes(cfg, shape, hw) + \
            no_grad_bytes(cfg, shape, activation_value(cfg, hw))
    if with_vllm(cfg):
        parts["vllm"] = answers_cache(cfg, shape, hw, prompt_tokens)
    elif writes_answers(cfg):
        cache = answers_cache(cfg, shape, hw, prompt_tokens)
        beyond = cache - parts["activations"] - parts["logits"]
        if beyond > 0:  # (else the step's own transient memory holds it)
            parts["generation"] = beyond
    return parts


def answers_cache(cfg: RunConfig, shape: ModelShape, hw: Hardware,
                  prompt_tokens: int | None = None) -> int:
    """The KV cache of the answers GRPO writes (plan/generation.py), in the precision the
    model computes in; with vLLM, its share of the GPU."""
    if with_vllm(cfg):
        return int(VLLM_SHARE * hw.memory_bytes)
    return kv_cache_bytes(cfg, shape.layers, shape.kv_heads * shape.head_dim,
                          activation_value(cfg, hw), prompt_tokens)


def _calibration(hw: Hardware) -> Calibration:
    return CUDA if hw.device == "cuda" else CPU


def _token_activations(cfg: RunConfig, shape: ModelShape, hw: Hardware) -> float:
    """Bytes the backward pass keeps per trained token on this device, with its precision
    and kernels (activation_bytes as measured there)."""
    device = _calibration(hw)
    return activation_bytes(cfg, shape, activation_value(cfg, hw), device.lora_input_copies) * \
        device.activation_scale * (LIGER_ACTIVATIONS if liger_on(cfg, hw) else 1)


def logit_bytes(cfg: RunConfig, shape: ModelShape, hw: Hardware,
                prompt_tokens: int | None = None) -> int:
    """The logits and the loss: vocabulary-sized fp32 values for every trained token
    (SFTTrainer, ORPO; GRPO's answer tokens only), or for DPO and KTO the fused LM head's
    tile (FUSED_TILE), which never holds the whole logits."""
    device = _calibration(hw)
    if stage_of(cfg).fused_head:
        positions, entries = FUSED_TILE
        return int(min(trained_tokens(cfg), positions) * min(shape.vocab, entries) * 4 *
                   device.fused_tile_copies)
    answers = answer_tokens(cfg)
    if answers:
        return int(answers * shape.vocab * 4 * device.answer_logit_copies)
    return int(trained_tokens(cfg, prompt_tokens) * shape.vocab * 4 * device.logit_copies)


# ---- preference stages (dpo, orpo, kto) ------------------------------------------------
def sequences_per_example(cfg: RunConfig) -> int:
    """Sequences (the prompt and one answer, cut at max_length) each example of a batch
    puts through the trained model with gradients: DPO and ORPO concatenate the chosen
    and the rejected answer into one batch (2); KTO reads each answer as an example of
    its own, and SFT its one text (1)."""
    return stage_of(cfg).sequences_per_example


def trained_tokens(cfg: RunConfig, prompt_tokens: int | None = None) -> int:
    """Tokens in one forward and backward pass of the trained model (every sequence at
    its longest): batch x sequences_per_example x max_length (GRPO: the prompt and the
    longest answer, plan/generation.py)."""
    return cfg.per_device_train_batch_size * sequences_per_example(cfg) * \
        sequence_tokens(cfg, prompt_tokens)


def no_grad_tokens(cfg: RunConfig) -> int:
    """Tokens of the largest forward pass without gradients: DPO's reference model over
    both answers of each example; KTO's reference model, and its KL batch (mismatched
    prompts and answers), over one sequence per example; none for ORPO and SFT."""
    return cfg.per_device_train_batch_size * stage_of(cfg).reference_sequences * \
        cfg.max_length


# A forward pass without gradients beside a training step's forward and backward on the
# same tokens: about a third (an estimate from the FLOPs, not measured).
REFERENCE_FORWARD = 1 / 3


def step_cost(cfg: RunConfig) -> float:
    """A step's time per trained token against an SFT step's (the remembered speed is
    measured on SFT steps): 1, plus a third for each sequence per example that only runs
    forward (DPO's reference over both answers, KTO's reference and its KL batch through
    the policy and the reference)."""
    no_grad = stage_of(cfg).reference_sequences + (2 if has_kl_batch(cfg) else 0)
    return 1 + no_grad * REFERENCE_FORWARD / sequences_per_example(cfg)


def has_kl_batch(cfg: RunConfig) -> bool:
    """Whether KTO scores a KL batch (each prompt with another example's answer, without
    gradients): with its own loss, not with apo_zero_unpaired."""
    return stage_of(cfg).kl_batch and cfg.loss_type != "apo_zero_unpaired"


def has_reference_copy(cfg: RunConfig) -> bool:
    """Whether a second, frozen copy of the model is in memory as the reference model
    (train/preference.py): a Reference model setting (DPO, KTO), or full fine-tuning with
    DPO or KTO (a copy of the starting weights). Not with LoRA (the reference is the model
    with the adapter switched off) nor with ORPO (no reference model)."""
    if not stage_of(cfg).reference:
        return False
    return bool(cfg.ref_model.strip()) or not cfg.use_peft


def trains_on_adapter(cfg: RunConfig) -> bool:
    """A LoRA run started from a finished LoRA run's folder (an adapter): that adapter
    trains on (train/policy.py), and TRL's reference is a frozen copy of the adapter (a
    second adapter, not a second model)."""
    return cfg.use_peft and (Path(cfg.model_name_or_path).expanduser() /
                             "adapter_config.json").exists()


def reference_bytes(cfg: RunConfig, shape: ModelShape, hw: Hardware) -> int:
    """The reference model's weights: a second copy loaded as the trained model is
    (loaded_bytes), at the named Reference model's own size (the trained model's when
    its shape cannot be read here), or nothing."""
    if not has_reference_copy(cfg):
        return 0
    named = cfg.ref_model.strip()
    if named:
        try:
            shape = model_shape(named)
        except (ModelError, OSError, ValueError, KeyError):
            pass  # Start refuses a reference that does not load (train/preference.py)
    return loaded_bytes(cfg, shape, hw)


def no_grad_bytes(cfg: RunConfig, shape: ModelShape, value: int) -> int:
    """The largest forward pass without gradients (the reference model's, KTO's KL
    batch): nothing is kept for a backward pass, so the hidden states and one block's
    values for its tokens exist at a time, beside the trained model's kept activations."""
    return no_grad_tokens(cfg) * value * (block_values(shape) + shape.hidden)


def memory_notes(cfg: RunConfig, shape: ModelShape, hw: Hardware,
                 prompt_tokens: int | None = None) -> list[str]:
    """What a preference stage's memory holds besides an SFT run's, in sentences for the
    plan: the sequences a batch puts through the model, and what the reference model is;
    GRPO's: the answers it writes (nothing for sft)."""
    stage = stage_of(cfg)
    if writes_answers(cfg):
        return generation_notes(cfg, answers_cache(cfg, shape, hw, prompt_tokens), size_text,
                                prompt_tokens)
    if stage.family != PREFERENCE:
        return []
    batch, length = cfg.per_device_train_batch_size, cfg.max_length
    sequences = batch * sequences_per_example(cfg)
    if stage.sequences_per_example == 1:
        lines = [f"{stage.title}: each answer is an example of its own, {sequences} sequences "
                 f"of up to {length} tokens (prompt and answer) per batch."]
        if has_kl_batch(cfg):
            lines.append("A KL batch of mismatched prompts and answers runs through the "
                         "model without gradients.")
    else:
        lines = [f"{stage.title}: the chosen and the rejected answer of each example go through "
                 f"the model together, {sequences} sequences of up to {length} tokens "
                 f"(prompt and answer) per batch of {batch}."]
    size = size_text(reference_bytes(cfg, shape, hw))
    ref = cfg.ref_model.strip()
    if not stage.reference:
        lines.append(f"Reference model: none, {stage.title} needs none.")
    elif ref:
        lines.append(f"Reference model: {ref}, a second frozen copy (about {size}); its "
                     "forward pass runs without gradients.")
    elif has_reference_copy(cfg):
        lines.append(f"Reference model: a second frozen copy of the starting weights (about "
                     f"{size}); its forward pass runs without gradients.")
    elif trains_on_adapter(cfg):
        lines.append("Reference model: a frozen copy of the finished run's LoRA adapter, no "
                     "second model; its forward pass runs without gradients.")
    else:
        lines.append("Reference model: the model with the new LoRA adapter switched off, no "
                     "second copy; its forward pass runs without gradients.")
    return lines


def available_memory(hw: Hardware) -> int:
    """Free GPU memory on CUDA; on a CPU the available RAM plus the runtime this process
    already holds (a run trains in this process, so that part is paid)."""
    if hw.device == "cuda":
        import torch  # heavy: torch loaded on first use
        return torch.cuda.mem_get_info()[0]
    own = psutil.Process().memory_info().rss
    return psutil.virtual_memory().available + min(own, RUNTIME_BYTES)


def fit_mark(total: int, available: int) -> str:
    share = total / max(available, 1)
    return "fits" if share <= TIGHT else "tight" if share <= 1 else "will not fit"


def memory_problem(cfg: RunConfig, hw: Hardware | None = None,
                   available: int | None = None) -> str | None:
    """Why a run would exhaust this machine's memory, or None. On a CPU above GUARD of the
    available RAM (running out there kills the whole app); on a GPU only when the estimate
    is clearly above the free memory (CUDA_GUARD: its worst error measured was 6%), with
    the same fixes a run that ran out of memory gets."""
    hw = hw or detect()
    total = sum(peak_memory(cfg, model_shape(cfg.model_name_or_path), hw).values())
    available = available_memory(hw) if available is None else available
    if hw.device == "cuda":
        if total <= CUDA_GUARD * available:
            return None
        return (f"This run needs about {size_text(total)} of GPU memory at its peak, but "
                f"{hw.name} has {size_text(available)} free: it would run out of memory. "
                f"Try, in this order: {fixes_text(cfg, hw)}. Fit to this machine picks "
                "what fits.")
    if total <= GUARD * available:
        return None
    return (f"This run needs about {size_text(total)} of memory at its peak, but this "
            f"machine has {size_text(available)} available (a run may use {GUARD:.0%} of "
            "it). Lower the batch size per device and raise accumulation (Fit to this "
            f"machine does that), shorten {length_setting(cfg)}, or turn on activation "
            "checkpointing or LoRA.")


def size_text(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 2**20:.0f} MiB"
