"""How much memory a training run needs: the peak of a step by part (each stage's own parts
included), this machine's available memory and the fit against it, and the RAM guard.
Knows nothing of Gradio, runs or the data.
"""
from __future__ import annotations

import psutil

from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message
from sft_ui.models import ModelError
from sft_ui.plan.calibration import (
    CPU,
    CUDA,
    FUSED_TILE,
    LIGER_ACTIVATIONS,
    NF4_BYTES,
    RUNTIME_BYTES,
    Calibration,
)
from sft_ui.plan.hardware import Hardware, detect, precision
from sft_ui.plan.kernels import EIGHT_BIT, liger_on, optimizer
from sft_ui.plan.oom import fixes_text
from sft_ui.plan.passes import (
    has_reference_copy,
    no_grad_tokens,
    trained_tokens,
)
from sft_ui.plan.rollouts import (
    VLLM_SHARE,
    answer_tokens,
    kv_cache_bytes,
    length_setting,
    with_vllm,
    writes_answers,
)
from sft_ui.plan.shape import ModelShape, model_shape
from sft_ui.stages import PREFERENCE, hook, stage_of

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
        # the LoRA rows `make bench` measures came out above a half-precision count
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
    """The KV cache of the answers GRPO writes (plan/rollouts.py), in the precision the
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
                 prompt_tokens: int | None = None) -> list[Message]:
    """What a run's memory holds besides an SFT run's, in sentences for the plan: its
    family's own ("plan_notes": a preference stage's sequences and reference model,
    GRPO's answers); nothing for sft."""
    own = hook(cfg, "plan_notes")
    return list(own(cfg, shape, hw, prompt_tokens)) if own else []


def available_memory(hw: Hardware) -> int:
    """Free GPU memory on CUDA; on a CPU the available RAM plus the runtime this process
    already holds (a run trains in this process, so that part is paid)."""
    if hw.device == "cuda":
        import torch  # heavy: torch loaded on first use
        return torch.cuda.mem_get_info()[0]
    own = psutil.Process().memory_info().rss
    return psutil.virtual_memory().available + min(own, RUNTIME_BYTES)


def fit_mark(total: int, available: int) -> Message:
    share = total / max(available, 1)
    return Message("fits" if share <= TIGHT else "tight" if share <= 1 else "will not fit")


def memory_problem(cfg: RunConfig, hw: Hardware | None = None,
                   available: int | None = None) -> Message | None:
    """Why a run would exhaust this machine's memory, or None. On a CPU above GUARD of the
    available RAM (running out there kills the whole app); on a GPU only when the estimate
    is clearly above the free memory (CUDA_GUARD: above the estimate's error), with
    the same fixes a run that ran out of memory gets."""
    hw = hw or detect()
    total = sum(peak_memory(cfg, model_shape(cfg.model_name_or_path), hw).values())
    available = available_memory(hw) if available is None else available
    if hw.device == "cuda":
        if total <= CUDA_GUARD * available:
            return None
        return Message("This run needs about {total} of GPU memory at its peak, but {device} "
                       "has {available} free: it would run out of memory. Try, in this order: "
                       "{steps}. Fit to this machine picks what fits.", total=size_text(total),
                       device=hw.name, available=size_text(available),
                       steps=fixes_text(cfg, hw))
    if total <= GUARD * available:
        return None
    return Message("This run needs about {total} of memory at its peak, but this machine has "
                   "{available} available (a run may use {share} of it). Lower the batch size "
                   "per device and raise accumulation (Fit to this machine does that), shorten "
                   "{setting}, or turn on activation checkpointing or LoRA.",
                   total=size_text(total), available=size_text(available),
                   share=f"{GUARD:.0%}", setting=length_setting(cfg))


def size_text(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 2**20:.0f} MiB"
