"""What a stage that writes its own answers (GRPO) puts in a step's memory, for the plan: its
sequences, the KV cache of a generation batch or vLLM's share of the GPU, and its data
sample (`prompt_sample`). Arithmetic on the model's shape.
"""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.data.language import source_notes
from sft_ui.data.load import training_rows
from sft_ui.data.prompt_preview import prompt_seen
from sft_ui.data.prompts import load_prompts
from sft_ui.i18n.message import Message
from sft_ui.stages import stage_of
from sft_ui.stages.grpo import REWARD

PROMPT_TOKENS = 128  # a prompt's tokens (with the chat template) when the data is not measured
VLLM_SHARE = 0.3  # TRL 1.16's vllm_gpu_memory_utilization: vLLM's share of the GPU, colocated


def writes_answers(cfg: RunConfig) -> bool:
    """Whether cfg's stage generates the answers it trains on (GRPO)."""
    return stage_of(cfg).family == REWARD


def sequence_tokens(cfg: RunConfig, prompt_tokens: int | None = None) -> int:
    """One sequence's tokens at its longest: max_length; GRPO: the prompt, then an answer
    of max_completion_length (TRL does not cut prompts: their length comes from the data
    where it is measured, else PROMPT_TOKENS)."""
    if not writes_answers(cfg):
        return cfg.max_length
    return (prompt_tokens or PROMPT_TOKENS) + cfg.max_completion_length


def prompt_sample(cfg: RunConfig, tokenizer, limit: int) -> tuple:
    """GRPO's data for the plan (its family's plan_sample hook): (the lengths of its first
    `limit` sequences, each the prompt and an answer of at most its limit; the training
    rows; the format; the data's notes), the rows the run trains on (held-out rows and the
    row cap out)."""
    data = load_prompts(cfg.dataset_name, cfg, cfg.dataset_train_split, tokenizer)
    rows = training_rows(cfg, data.rows)
    lengths = [len(tokenizer(prompt_seen(r["prompt"], tokenizer), add_special_tokens=False)
                   ["input_ids"]) + cfg.max_completion_length for r in rows[:limit]]
    return (tuple(lengths), len(rows), "prompt-only",
            source_notes(cfg.model_name_or_path, data.source, data.as_chat))


def prompt_tokens(cfg: RunConfig, lengths) -> int | None:
    """GRPO's longest prompt in the measured data (`lengths`: prompt_sample's, the prompt
    and the longest answer); None for another stage or unmeasured data."""
    if not writes_answers(cfg) or not lengths:
        return None
    return max(lengths) - cfg.max_completion_length


def answer_tokens(cfg: RunConfig) -> int | None:
    """The tokens of a batch whose logits GRPO keeps (its answers' only); None for a stage
    that writes no answers."""
    return cfg.per_device_train_batch_size * cfg.max_completion_length \
        if writes_answers(cfg) else None


def length_setting(cfg: RunConfig) -> str:
    """The setting that bounds a sequence's length, which Fit may shorten."""
    return "max_completion_length" if writes_answers(cfg) else "max_length"


def generation_batch(cfg: RunConfig) -> int:
    """The sequences written together in one process: the batch of every accumulation
    step (TRL's steps_per_generation, by default the accumulation). A GRPO step writes
    them first, with the KV cache of every layer, then trains on them a micro-batch at a
    time."""
    return cfg.per_device_train_batch_size * cfg.gradient_accumulation_steps


def kv_cache_bytes(cfg: RunConfig, layers: int, kv_width: int, value: int,
                   prompt_tokens: int | None = None) -> int:
    """The KV cache of a generation batch at its longest: keys and values of `kv_width`
    (key-value heads x head size) in every one of `layers` layers, `value` bytes each
    (2 in bf16 or fp16), for every token of every sequence; 0 for a stage that writes
    no answers."""
    if not writes_answers(cfg):
        return 0
    return generation_batch(cfg) * sequence_tokens(cfg, prompt_tokens) * layers * 2 * \
        kv_width * value


def with_vllm(cfg: RunConfig) -> bool:
    return writes_answers(cfg) and cfg.use_vllm


def generation_notes(cfg: RunConfig, cache: int, size_text,
                     prompt_tokens=None) -> list[Message]:
    """The plan's sentences about the answers a GRPO step writes (none for other stages);
    `cache`: their KV cache, or vLLM's share of the GPU."""
    if not writes_answers(cfg):
        return []
    if with_vllm(cfg):
        return [Message("GRPO writes its answers with vLLM, in the training process: vLLM "
                        "keeps {share} of the GPU's memory ({size}) for its own copy of the "
                        "weights and the answers' KV cache.", share=f"{VLLM_SHARE:.0%}",
                        size=size_text(cache))]
    batch, prompt = generation_batch(cfg), prompt_tokens or PROMPT_TOKENS
    return [Message("GRPO writes {batch} answers at once ({per} a batch x {accumulation} "
                    "accumulation steps, {generations} per prompt), each of up to {prompt} "
                    "prompt tokens and {completion} new ones.", batch=batch,
                    per=cfg.per_device_train_batch_size,
                    accumulation=cfg.gradient_accumulation_steps,
                    generations=cfg.num_generations, prompt=prompt,
                    completion=cfg.max_completion_length),
            Message("The prompts' length is the longest in the data." if prompt_tokens else
                    "The prompts' length is assumed: the data is not measured."),
            Message("Their KV cache takes up to {size}, held while they are written, before "
                    "the backward pass.", size=size_text(cache)),
            Message("It then trains on them a batch at a time, with the logits of the "
                    "answers' tokens only; no reference model (beta 0, TRL's default).")]
