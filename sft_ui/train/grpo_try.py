"""Test rewards (the Rewards panel's button, and /plan's callers): the model as it is now
writes answers to a few prompts, sampled as training samples them, and every reward
function scores each one; with the share of groups whose rewards differ and what cuts
them short. The sampling is grpo_sample.py's, the one the run's own probe uses.
"""
from __future__ import annotations

import dataclasses
import statistics
from contextlib import nullcontext

from sft_ui.config import RunConfig
from sft_ui.config.grpo_settings import WRITTEN_REWARD
from sft_ui.data.chat_habits import stops_at_turn_end
from sft_ui.data.formats import chat_note
from sft_ui.data.prompt_preview import prompt_seen
from sft_ui.data.prompts import answers_need, load_prompts
from sft_ui.data.sized import sized
from sft_ui.i18n.message import Message
from sft_ui.models import load_for_inference, resolve_model
from sft_ui.rewards.check import cut_warning, no_spread
from sft_ui.rewards.written import WrittenRewards
from sft_ui.train.grpo import check_rewards, reward_functions
from sft_ui.train.grpo_sample import sample

HELD_OUT_PROMPTS = 8  # the prompts a sweep's trial answers to be judged (held_out_reward)


def held_out_reward(eval_file: str, run) -> float | None:
    """A sweep's score of an ended GRPO run: its model answers the first HELD_OUT_PROMPTS
    prompts of `eval_file` (held out of its training), Answers per prompt each, sampled as
    training samples; the mean of the rewards' weighted total (None: no model, no score)."""
    if not run.model_dir:
        return None
    cfg = dataclasses.replace(run.config, model_name_or_path=run.model_dir,
                              dataset_name=str(eval_file).strip())
    rows = try_rewards(cfg, prompts=HELD_OUT_PROMPTS)["rows"]
    totals = [r["total"] for r in rows if r.get("total") is not None]
    return statistics.fmean(totals) if totals else None


def try_rewards(cfg: RunConfig, prompts: int = 3) -> dict:
    """Test rewards: the model (as it is now) writes Answers per prompt answers to the
    first `prompts` prompts, sampled as training would, and every reward function scores
    each one. {"names": the functions, "rows": score_table's rows, "seen": the first
    prompt as the model reads it, "notes": how the data reaches the model and the share
    of groups whose rewards differ, "warnings": most answers cut at the length limit,
    the prompts whose answers all scored alike (no learning signal)}. The answers are
    as long as the run's would be: Max completion length as the run's start sizes it
    from the data (data/sized.py). Reward errors raise RewardError with the row and
    line, before any training."""
    check_rewards(cfg)
    path = resolve_model(cfg.model_name_or_path)
    model, tokenizer = load_for_inference(path, cfg.trust_remote_code)
    stops_at_turn_end(model, tokenizer)
    fitted = sized(cfg, tokenizer)
    cfg = fitted.config
    data = load_prompts(cfg.dataset_name, cfg, cfg.dataset_train_split, tokenizer)
    n = cfg.num_generations
    with WrittenRewards(cfg.reward_code) if WRITTEN_REWARD in cfg.rewards \
            else nullcontext() as written:
        functions = reward_functions(cfg, written, data.as_chat)
        found = sample(model, tokenizer, cfg, data, functions, n, cfg.temperature,
                       cfg.max_completion_length, list(data.rows[:prompts]))
    notes = [chat_note(cfg.model_name_or_path)] if data.as_chat else []
    notes += fitted.reasons
    notes.append(Message("At these settings (temperature {temperature}), about {spread} of "
                         "groups of {n} answers would hold different rewards: GRPO learns "
                         "from those only.", temperature=f"{cfg.temperature:g}",
                         spread=f"{found.spread(n):.0%}", n=n))
    need = (answers_need(cfg, data.rows, tokenizer) or (None,))[0]
    cut = cut_warning(found.cut, cfg.max_completion_length, need)
    return {"names": [f.__name__ for f in functions], "rows": found.table,
            "seen": prompt_seen(data.rows[0]["prompt"], tokenizer), "notes": notes,
            "warnings": ([cut] if cut else []) + no_spread(found.table, n, found.cut)}
