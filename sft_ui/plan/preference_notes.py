"""The preference stages' own sentences in the plan (their family's "plan_notes" hook):
what a batch puts through the model besides an SFT run's, and what the reference model
is. Knows nothing of Gradio, runs or the data."""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.memory import reference_bytes, size_text
from sft_ui.plan.passes import (
    has_kl_batch,
    has_reference_copy,
    sequences_per_example,
    trains_on_adapter,
)
from sft_ui.plan.shape import ModelShape
from sft_ui.stages import stage_of


def preference_notes(cfg: RunConfig, shape: ModelShape, hw: Hardware,
                     prompt_tokens: int | None = None) -> list[Message]:
    """The sequences a batch puts through the model, and what the reference model is."""
    stage = stage_of(cfg)
    batch, length = cfg.per_device_train_batch_size, cfg.max_length
    sequences = batch * sequences_per_example(cfg)
    if stage.sequences_per_example == 1:
        lines = [Message("{stage}: each answer is an example of its own, {sequences} sequences "
                         "of up to {length} tokens (prompt and answer) per batch.",
                         stage=stage.title, sequences=sequences, length=length)]
        if has_kl_batch(cfg):
            lines.append(Message("A KL batch of mismatched prompts and answers runs through "
                                 "the model without gradients."))
    else:
        lines = [Message("{trainer}: the chosen and the rejected answer of each example go "
                         "through the model together, {sequences} sequences of up to {length} "
                         "tokens (prompt and answer) per batch of {batch}.", trainer=stage.title,
                         sequences=sequences, length=length, batch=batch)]
    size = size_text(reference_bytes(cfg, shape, hw))
    ref = cfg.ref_model.strip()
    if not stage.reference:
        lines.append(Message("Reference model: none, {stage} needs none.", stage=stage.title))
    elif ref:
        lines.append(Message("Reference model: {ref}, a second frozen copy (about {size}); its "
                             "forward pass runs without gradients.", ref=ref, size=size))
    elif has_reference_copy(cfg):
        lines.append(Message("Reference model: a second frozen copy of the starting weights "
                             "(about {size}); its forward pass runs without gradients.",
                             size=size))
    elif trains_on_adapter(cfg):
        lines.append(Message("Reference model: a frozen copy of the finished run's LoRA "
                             "adapter, no second model; its forward pass runs without "
                             "gradients."))
    else:
        lines.append(Message("Reference model: the model with the new LoRA adapter switched "
                             "off, no second copy; its forward pass runs without gradients."))
    return lines
