"""The studio's trainer: TRL's SFTTrainer with a leaner step on a CPU and the same loss
(padding-free batches, attention row by row, the loss on labelled positions only). On a GPU,
and with settings this step does not cover, TRL's own step runs unchanged. Knows nothing of
the studio's runs or pages.
"""
from __future__ import annotations

import contextlib
import inspect

import torch
import torch.nn.functional as F


def lean_reasons(trainer) -> list[str]:
    """Why the lean step does not apply to this trainer (empty: it does)."""
    args = trainer.args
    checks = [(args.device.type != "cpu", "not on a CPU"),
              (trainer.compute_loss_func is not None, "a custom loss function"),
              (trainer.label_smoother is not None, "label smoothing"),
              (getattr(args, "loss_type", "nll") != "nll", f"loss_type {args.loss_type}"),
              (getattr(trainer, "aux_loss_enabled", False), "a MoE aux loss"),
              (getattr(trainer, "_is_vision_dataset", False), "vision data")]
    return [why for failed, why in checks if failed]


def _base(model):
    model = getattr(model, "module", model)  # DDP's wrapper
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def packs_rows(model) -> bool:
    """Whether the model keeps rows laid end to end apart by their position_ids: the
    transformers models (their masks find packed rows, or flash attention's varlen),
    not a model's own remote code."""
    base = _base(model)
    return type(base).__module__.startswith("transformers.models.")


def _keeps_logits(model) -> bool:
    return "logits_to_keep" in inspect.signature(_base(model).forward).parameters


def logging_now(trainer) -> bool:
    """Whether the step being computed ends with a log (eval always counts)."""
    args, step = trainer.args, trainer.state.global_step + 1  # the step under way
    if not trainer.model.training or args.logging_strategy != "steps":
        return True
    steps = args.logging_steps
    if 0 < steps < 1:  # a fraction of the run
        steps = max(round(steps * trainer.state.max_steps), 1)
    return step % int(steps) == 0 or (args.logging_first_step and step == 1) \
        or step >= trainer.state.max_steps


@contextlib.contextmanager
def rows_attention(bounds: list[int] | None):
    """While a padding-free batch goes forward, the "sdpa" attention of transformers
    attends within each row (between consecutive `bounds`) with a causal kernel. Any other
    call (no bounds, a cache, one query, a sliding window shorter than the longest row)
    goes to transformers' own function unchanged, so generation in another thread
    meanwhile is unaffected; the backward needs no swap. PyTorch's CPU attention has no
    kernel for rows laid end to end: one masked attention over the whole batch would cost
    (sum of the rows' lengths)^2 instead of the sum of their squares."""
    if not bounds:
        yield
        return
    # heavy: transformers loaded on first use
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    from transformers.models.llama.modeling_llama import repeat_kv
    mapping = ALL_ATTENTION_FUNCTIONS._global_mapping
    sdpa = mapping["sdpa"]
    longest = max((b - a for a, b in zip(bounds[:-1], bounds[1:])), default=0)

    def attend(module, query, key, value, attention_mask, dropout=0.0, scaling=None,
               is_causal=None, **kwargs):
        rows = kwargs.get("cu_seq_lens_q")
        # a local layer (Qwen2's or Mistral's sliding window, Gemma-3's local layers)
        # sees only the last `window` positions; transformers' mask of the packed rows
        # keeps that window, the causal kernel here would not
        window = kwargs.get("sliding_window") or getattr(module, "sliding_window", None)
        if rows is None or query.shape[0] != 1 or query.shape[2] != key.shape[2] \
                or kwargs.get("position_bias") is not None or kwargs.get("softcap") \
                or (window and window < longest):
            return sdpa(module, query, key, value, attention_mask, dropout=dropout,
                        scaling=scaling, is_causal=is_causal, **kwargs)
        groups = getattr(module, "num_key_value_groups", 1)
        key, value = repeat_kv(key, groups), repeat_kv(value, groups)
        out = torch.cat([F.scaled_dot_product_attention(
            query[:, :, a:b], key[:, :, a:b], value[:, :, a:b], dropout_p=dropout,
            scale=scaling, is_causal=True) for a, b in zip(bounds[:-1], bounds[1:]) if b > a],
            dim=2)
        return out.transpose(1, 2).contiguous(), None

    mapping["sdpa"] = attend
    try:
        yield
    finally:
        mapping["sdpa"] = sdpa


def lean_loss(trainer, model, inputs: dict, num_items_in_batch=None) -> torch.Tensor:
    """TRL's SFT loss (summed token NLL over the step's label count) from the model's own
    LM head on the labelled positions, with TRL's metrics (entropy, mean_token_accuracy)
    at logging steps only, from the same log-probabilities. Instead of TRL's chunked fused
    LM head, made for GPUs: on a CPU it scores every position, pads included, folds 32k-wide
    fp32 tiles in Python and projects again in the backward."""
    mode = "train" if trainer.model.training else "eval"
    labels = inputs["labels"]
    forward = {k: v for k, v in inputs.items() if k != "labels"}
    # A cache would also turn off the packed rows' own masks in transformers
    forward["use_cache"] = False
    shifted = labels[:, 1:]
    valid = shifted != -100
    rows = inputs.get("cu_seq_lens_q")
    with rows_attention(rows.tolist() if rows is not None and labels.shape[0] == 1 else None):
        if _keeps_logits(model):
            keep = torch.zeros_like(labels, dtype=torch.bool)
            keep[:, :-1] = valid
            logits = model(**forward, logits_to_keep=keep).logits
        else:
            logits = model(**forward).logits[:, :-1][valid]
    logits = logits.reshape(-1, logits.shape[-1])
    targets = shifted[valid]
    log_probs = F.log_softmax(logits.float(), dim=-1)
    count = valid.sum() if num_items_in_batch is None else num_items_in_batch
    loss = F.nll_loss(log_probs, targets, reduction="sum") / torch.as_tensor(count).clamp(min=1)
    if trainer.args.average_tokens_across_devices and num_items_in_batch is not None:
        loss = loss * (trainer.accelerator.num_processes // trainer.get_tp_size())
    if logging_now(trainer):
        _log_metrics(trainer, mode, log_probs.detach(), logits.detach(), targets)
    if mode == "train":
        _count_tokens(trainer, inputs)
    trainer._metrics[mode]["num_tokens"] = [trainer._total_train_tokens]
    return loss


def _log_metrics(trainer, mode: str, log_probs, logits, targets) -> None:
    """TRL's entropy and mean_token_accuracy of these positions."""
    gather = trainer.accelerator.gather_for_metrics
    with torch.no_grad():
        entropy = -(log_probs.exp() * log_probs).sum(-1).sum()
        correct = (logits.argmax(-1) == targets).sum()
        count = gather(torch.tensor(targets.numel())).sum()
        entropy, correct = gather(entropy).sum(), gather(correct).sum()
    trainer._metrics[mode]["entropy"].append((entropy / count).item() if count > 0 else 0.0)
    trainer._metrics[mode]["mean_token_accuracy"].append(
        (correct / count).item() if count > 0 else 0.0)


def _count_tokens(trainer, inputs: dict) -> None:
    """TRL's num_tokens: the real (non-pad) tokens trained on so far."""
    gather = trainer.accelerator.gather_for_metrics
    if "attention_mask" in inputs:
        local = inputs["attention_mask"].sum()
    else:
        local = torch.tensor(inputs["position_ids"].size(1))
    trainer._total_train_tokens += gather(local).sum().item() // trainer._tp_size


def own_weights(model) -> None:
    """Give the trained weights memory of their own. Weights loaded from safetensors on a
    CPU map the file, so the optimizer's first write copies them page by page, a first
    step many times slower than the copy made here at once. Done once per model."""
    if getattr(model, "owns_weights", False):
        return
    with torch.no_grad():
        for param in model.parameters():
            if param.requires_grad and param.device.type == "cpu":
                param.data = param.data.clone()
    model.owns_weights = True


def studio_trainer(SFTTrainer):
    """A subclass of TRL's SFTTrainer (passed in, so only engine.py imports trl) that takes
    the lean step where it applies; `lean` says whether it does, `padding_free` whether
    batches are: the rows of a batch end to end in one sequence (TRL's own collator),
    position_ids keeping each row's attention to itself, so no compute goes to pad tokens
    and the loss is the padded batch's."""

    class StudioSFTTrainer(SFTTrainer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if self.args.device.type == "cpu":
                own_weights(self.model)
            self.lean = not lean_reasons(self)
            collator = self.data_collator
            if self.lean and hasattr(collator, "padding_free") and packs_rows(self.model):
                collator.padding_free = True

        @property
        def padding_free_batches(self) -> bool:
            return bool(getattr(self.data_collator, "padding_free", False))

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            if not self.lean or return_outputs:
                return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
            return lean_loss(self, model, inputs, num_items_in_batch)

    return StudioSFTTrainer
