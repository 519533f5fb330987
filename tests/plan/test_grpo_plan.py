"""GRPO's plan: a sequence is the prompt (measured in the data) and the longest answer,
never max_length (a setting GRPO hides); the answers it writes hold a KV cache, counted
where it outgrows the training pass; its time is its own runs' (Measure speed's random
tokens would leave the writing out); Fit shortens the answers, not max_length."""
from __future__ import annotations

import pytest

from sft_ui.config import ConfigError, RunConfig
from sft_ui.plan import oom, speed
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.memory import memory_problem, peak_memory
from sft_ui.plan.modes import fit_mode
from sft_ui.plan.planner import plan, plan_with_data
from sft_ui.plan.rollouts import PROMPT_TOKENS, generation_batch, kv_cache_bytes
from sft_ui.plan.sample import DataSample
from sft_ui.plan.shape import model_shape
from sft_ui.train.engine import train
from sft_ui.ui.plan_text import plan_markdown
from tests.stages.test_grpo import Recorder, _cfg

CPU = Hardware("cpu", "CPU", 1, False, 24 << 30, 2)


def _grpo(**extra) -> RunConfig:
    return RunConfig(stage="grpo", dataset_name="demo-grpo", use_peft=True, **extra)


def _prompts(completion: int) -> DataSample:
    """Three prompts of 40, 55 and 30 tokens, as plan/sample.py measures them for GRPO
    (each with the longest answer)."""
    return DataSample(tuple(n + completion for n in (40, 55, 30)), 3, "prompt-only")


def test_a_grpo_sequence_is_the_prompt_and_the_longest_answer():
    data = _prompts(64)
    p = plan(_grpo(), CPU, data)
    assert p["tokens_per_step"] == 4 * 2 * (55 + 64)  # batch x accumulation x sequence
    # max_length (hidden for GRPO) never changes its plan; its answers' length does
    assert plan(_grpo(max_length=4096), CPU, data)["memory"] == p["memory"]
    longer = plan(_grpo(max_completion_length=512), CPU, _prompts(512))
    assert longer["tokens_per_step"] == 4 * 2 * (55 + 512)
    assert longer["memory"]["activations"] > 4 * p["memory"]["activations"]
    assert longer["memory"]["logits"] == 8 * p["memory"]["logits"]  # the answers' tokens
    notes = " ".join(p["memory_notes"])
    assert "writes 8 answers at once" in notes and "55 prompt tokens and 64 new" in notes
    assert "longest in the data" in notes
    # The built-in set, measured: its prompts, not the unmeasured guess.
    demo = plan_with_data(_grpo())
    assert demo["tokens_per_step"] != 8 * (PROMPT_TOKENS + 64)


def test_the_kv_cache_of_the_answers_is_counted_where_it_outgrows_the_step():
    """The cache of batch x accumulation answers against the training pass of one batch:
    with a long accumulation the cache is the larger, and the plan counts what it adds."""
    shape = model_shape(RunConfig().model_name_or_path)
    few = _grpo(per_device_train_batch_size=4, gradient_accumulation_steps=2)
    assert "generation" not in peak_memory(few, shape, CPU, 55)
    many = _grpo(per_device_train_batch_size=1, gradient_accumulation_steps=256,
                 num_generations=4, max_completion_length=1024)
    parts = peak_memory(many, shape, CPU, 55)
    # (fp32 on this CPU: 4 bytes a value)
    cache = kv_cache_bytes(many, shape.layers, shape.kv_heads * shape.head_dim, 4, 55)
    assert generation_batch(many) == 256
    assert cache == 256 * (55 + 1024) * shape.layers * 2 * shape.kv_heads * shape.head_dim * 4
    assert parts["generation"] == cache - parts["activations"] - parts["logits"] > 0
    assert kv_cache_bytes(RunConfig(), shape.layers, 1, 4) == 0  # SFT writes no answers


def test_grpo_time_comes_from_its_own_runs(tmp_path, tiny_cfg):
    cfg = _grpo()
    p = plan(cfg, CPU, None)
    text = plan_markdown({**p, "budget": [], "budget_minutes": 0, "budget_needs_speed": False})
    assert "a step of this stage is mostly the answers the model writes" in text
    assert "Measure speed" not in text and "Packing would" not in text
    with pytest.raises(ConfigError, match="mostly the answers the model writes"):
        speed.calibrate(cfg)
    # A GRPO run of 3 steps remembers its own speed, under its stage's key.
    run = _cfg(tiny_cfg, max_steps=3, logging_steps=1)
    train(run, tmp_path / "run", Recorder())
    assert speed.measured_speed(run) and not speed.measured_speed(
        RunConfig.from_dict({**run.to_dict(), "stage": "sft"}))


def test_fit_shortens_the_answers_not_max_length():
    shape = model_shape(RunConfig().model_name_or_path)
    cfg = _grpo(max_completion_length=4096, per_device_train_batch_size=8,
                gradient_accumulation_steps=1, num_generations=4)
    fit = fit_mode(cfg, "lora", shape, CPU, 3 << 30)
    assert fit.fits and fit.changes["max_completion_length"] < 4096, fit
    assert "max_length" not in fit.changes and "max_completion_length" in fit.reason


def test_out_of_memory_advice_shortens_the_answers_not_max_length():
    """After running out of memory (and before, from the RAM guard), a GRPO run is told to
    shorten Max completion length, which it reads, not max_length, which it does not; the
    suggestion changes that setting. SFT keeps max_length."""
    cfg = _grpo(per_device_train_batch_size=1, activation_checkpointing=True,
                max_completion_length=256)
    text, changes = oom.out_of_memory_advice(cfg, CPU)
    assert changes == {"max_completion_length": 128}, changes
    assert "shorten max_completion_length (256 -> 128 tokens)" in text
    assert "max_length" not in text.replace("max_completion_length", "")
    guard = memory_problem(cfg, CPU, available=1)
    assert "shorten max_completion_length" in guard and " max_length" not in guard
    sft = RunConfig(per_device_train_batch_size=1, activation_checkpointing=True)
    assert oom.out_of_memory_advice(sft, CPU)[1] == {"max_length": sft.max_length // 2}


def test_vllm_generation_is_checked_and_planned():
    """TRL's vLLM generation (colocate): refused without a CUDA GPU or the vllm package,
    with what to do; where it runs, the plan keeps vLLM's share of the GPU for it (its own
    weights and the KV cache) instead of the answers' KV cache; TRL reads the setting."""
    from sft_ui.plan.hardware import unsupported
    from sft_ui.train.arguments import to_trl
    cfg = _grpo(use_vllm=True)
    assert any("Generate with vLLM (GRPO): a CUDA GPU is needed" in p
               for p in unsupported(cfg, CPU))
    gpu = Hardware("cuda", "H100", 1, True, 80 << 30, 16, packages=frozenset())
    assert any("the vllm package is needed. pip install vllm" in p
               for p in unsupported(cfg, gpu))
    ready = Hardware("cuda", "H100", 1, True, 80 << 30, 16, packages=frozenset({"vllm"}))
    assert not unsupported(cfg, ready)
    p = plan(cfg, ready, _prompts(64), available=80 << 30)
    assert p["memory"]["vllm"] == int(0.3 * (80 << 30)) and "generation" not in p["memory"]
    assert "vLLM keeps 30% of the GPU's memory" in " ".join(p["memory_notes"])
    assert "vllm" not in plan(_grpo(), ready, _prompts(64), available=80 << 30)["memory"]
    assert to_trl(cfg)["train"]["use_vllm"] is True


@pytest.mark.parametrize("batch, answers, evaluated", [(4, 8, 8), (4, 4, 4), (6, 4, 8)])
def test_held_out_prompts_are_answered_in_whole_groups(tmp_path, batch, answers, evaluated):
    """TRL answers held-out prompts in groups of Answers per prompt: the eval batch is the
    train batch rounded up to whole groups (8 answers at batch 4 refused the run)."""
    from sft_ui.train.grpo import training_arguments
    cfg = _grpo(per_device_train_batch_size=batch, num_generations=answers,
                gradient_accumulation_steps=4, eval_fraction=0.1)
    args = training_arguments(cfg, tmp_path, has_eval=True)
    assert args.per_device_eval_batch_size == evaluated
