"""What one training step puts through the model, by stage: the sequences with gradients, the
passes without them (a reference model, KTO's KL batch) and the time they add, and whether
the reference is a second copy or an adapter. Knows nothing of memory sizes, Gradio or runs.
"""
from __future__ import annotations

from pathlib import Path

from sft_ui.config import RunConfig
from sft_ui.plan.rollouts import sequence_tokens
from sft_ui.stages import stage_of


def sequences_per_example(cfg: RunConfig) -> int:
    """Sequences (the prompt and one answer, cut at max_length) each example of a batch
    puts through the trained model with gradients: DPO and ORPO concatenate the chosen
    and the rejected answer into one batch (2); KTO reads each answer as an example of
    its own, and SFT its one text (1)."""
    return stage_of(cfg).sequences_per_example


def trained_tokens(cfg: RunConfig, prompt_tokens: int | None = None) -> int:
    """Tokens in one forward and backward pass of the trained model (every sequence at
    its longest): batch x sequences_per_example x max_length (GRPO: the prompt and the
    longest answer, plan/rollouts.py)."""
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
