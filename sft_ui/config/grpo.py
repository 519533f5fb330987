"""GRPO's settings, read as the config layer reads every stage's (its family's hooks,
stages/grpo.py): the combinations a GRPO run cannot train (`checks`), the rewards in
TRL's keys (`trl`), and the accumulation made whole groups of answers after Continue
(`continued`)."""
from __future__ import annotations

import dataclasses
import math

from sft_ui.config.grpo_settings import WRITTEN_REWARD
from sft_ui.config.values import shorten
from sft_ui.i18n.message import Message
from sft_ui.rewards.builtin import import_path


def reward_problems(cfg) -> list[str]:
    """The combinations a GRPO run cannot train: no reward, weights that do not match the
    rewards, a written reward without code, answers per prompt that do not divide the
    batch of answers generated at once (TRL's generation batch)."""
    errors: list[str] = []
    rewards = list(cfg.rewards)
    if not rewards:
        errors.append(Message("Reward functions is empty: choose at least one (for example "
                              "json_answer) or write one and choose 'written'."))
    if len(set(rewards)) < len(rewards):
        errors.append(Message("Reward functions names a function twice: choose each once "
                              "(its weight says how much it counts)."))
    weights = [w.strip() for w in cfg.rewards_weights.split(",") if w.strip()]
    try:
        [float(w) for w in weights]
    except ValueError:
        errors.append(Message("Reward weights ({shorten}) must be numbers separated by "
                              "commas, e.g. '1, 2'.", shorten=shorten(cfg.rewards_weights)))
    if weights and len(weights) != len(rewards):
        errors.append(Message("Reward weights has {weights} numbers for {rewards} reward "
                              "functions: give one weight per function, in their order (or "
                              "leave it blank: 1 each).", weights=len(weights),
                              rewards=len(rewards)))
    if WRITTEN_REWARD in rewards and not cfg.reward_code.strip():
        errors.append(Message("Reward functions includes 'written' but Written reward "
                              "function is empty: write the function, or take 'written' out."))
    batch = cfg.per_device_train_batch_size * cfg.gradient_accumulation_steps
    if batch % cfg.num_generations:
        errors.append(Message("Answers per prompt ({num_generations}) must divide the answers "
                              "generated at once, Batch size per device x Gradient "
                              "accumulation ({batch}): for example set Answers per prompt to "
                              "{divisor_near}.", num_generations=cfg.num_generations,
                              batch=batch,
                              divisor_near=_divisor_near(batch, cfg.num_generations)))
    return errors


def whole_groups(cfg) -> tuple:
    """(cfg, a note): for a GRPO run (its family's `continued` hook), Gradient accumulation
    raised to the least that makes the answers written at once (Batch size per device x
    Gradient accumulation) whole groups of Answers per prompt, the batch size kept (it
    decides the memory); the note says so ('' when nothing had to change). Continue uses
    it: a GRPO run after a run of another batch."""
    batch, answers = cfg.per_device_train_batch_size, cfg.num_generations
    before = cfg.gradient_accumulation_steps
    if batch < 1 or answers < 1 or batch * before % answers == 0:
        return cfg, ""
    step = answers // math.gcd(batch, answers)  # accumulations that make whole groups
    accumulation = -(-before // step) * step
    total = batch * accumulation
    return dataclasses.replace(cfg, gradient_accumulation_steps=accumulation), Message(
        "Gradient accumulation: {accumulation} (was {before}): the answers written at once, "
        "Batch size per device x Gradient accumulation ({total}), must be a multiple of "
        "Answers per prompt ({answers}).", accumulation=accumulation, before=before,
        total=total, answers=answers)


def _divisor_near(n: int, wanted: int) -> int:
    """The divisor of n nearest to `wanted` (at least 2 where n allows)."""
    divisors = [d for d in range(2, n + 1) if n % d == 0] or [1]
    return min(divisors, key=lambda d: (abs(d - wanted), -d))


def trl_rewards(cfg, script: dict, training: dict) -> None:
    """The rewards in TRL's keys: `trl grpo` reads the built-in ones by import path; a
    written one is the studio's own (train/grpo.py adds it and its weight)."""
    weights: list[float | None] = [float(w) for w in cfg.rewards_weights.split(",")
                                   if w.strip()]
    kept = [(n, w) for n, w in zip(cfg.rewards, weights or [None] * len(cfg.rewards))
            if n != WRITTEN_REWARD]
    script["reward_funcs"] = [import_path(n) for n, _ in kept]
    training["reward_weights"] = [w for _, w in kept] if weights else None
    # held-out prompts are answered in whole groups: TRL wants the eval batch a multiple
    # of the answers per prompt (8 answers at batch 4 refused every budgeted run)
    groups, batch = cfg.num_generations, training["per_device_eval_batch_size"]
    training["per_device_eval_batch_size"] = -(-batch // groups) * groups
