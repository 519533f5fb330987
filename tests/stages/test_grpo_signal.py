"""GRPO on a person's own prompts with the studio's own choices: text prompts reach a chat
model as the user's turn (and the rewards still read text), the rewards are tried on a
few prompts before a run (train/grpo_signal.py): the share of groups whose rewards
differ, the quick path's answers per prompt, temperature and answer length from it, and
a run that would learn nothing refused before it trains."""
from __future__ import annotations

import json
import logging

import pytest

from sft_ui.config import RunConfig
from sft_ui.data.prompts import load_prompts
from sft_ui.models import load_tokenizer
from sft_ui.rewards.check import cut_warning
from sft_ui.runs import RunManager
from sft_ui.train.engine import train
from sft_ui.train.events import NullSink
from sft_ui.train.grpo import prompt_rows, reward_functions
from sft_ui.train.grpo_sample import Sampled
from sft_ui.train.grpo_signal import NothingToLearn, _nothing_message, needed_tokens, probe
from tests.conftest import wait_for

QUESTIONS = [f"What is {a} plus {b}? Reply as ANSWER: <number>." for a, b in
             [(1, 2), (3, 4), (2, 5), (6, 1), (4, 4), (7, 2), (3, 3), (5, 5)]]
# True only for answers that are text, with a prompt that is text: the person's own form.
TEXT_ONLY = '''
def text_only(prompts, completions, **kwargs):
    return [float(isinstance(p, str) and isinstance(c, str))
            for p, c in zip(prompts, completions)]
'''


def _prompts_file(tmp_path, messages=False):
    path = tmp_path / "own.jsonl"
    path.write_text("".join(json.dumps({
        "prompt": [{"role": "user", "content": q}] if messages else q,
        "answer": str(i)}) + "\n" for i, q in enumerate(QUESTIONS)))
    return str(path)


def _cfg(tiny_cfg, path, **extra) -> RunConfig:
    return RunConfig.from_dict({**tiny_cfg, "stage": "grpo", "dataset_name": path,
                                "num_generations": 2, "max_completion_length": 6,
                                "rewards": ["regex"], "reward_pattern": "ANSWER", **extra})


# ---- one rule: text prompts as the user's turn -----------------------------------------
def test_text_prompts_become_the_user_turn_for_a_chat_model(tmp_path, tiny_cfg,
                                                            tiny_model_dir):
    path = _prompts_file(tmp_path)
    cfg = _cfg(tiny_cfg, path)
    tokenizer = load_tokenizer(tiny_model_dir)
    data = load_prompts(path, cfg, tokenizer=tokenizer)
    assert data.as_chat and data.conversational
    assert data.rows[0]["prompt"] == [{"role": "user", "content": QUESTIONS[0]}]
    assert data.rows[0]["answer"] == "0"  # the other columns pass through
    train_set, _, _, _ = prompt_rows(cfg, tokenizer)
    assert train_set[0]["prompt"] == [{"role": "user", "content": QUESTIONS[0]}]
    # kept as text where the person turns the rule off, or the model has no template
    raw = load_prompts(path, RunConfig(stage="grpo", prompts_as_chat=False),
                       tokenizer=tokenizer)
    assert raw.rows[0]["prompt"] == QUESTIONS[0] and not raw.as_chat
    assert load_prompts(path, cfg).rows[0]["prompt"] == QUESTIONS[0]
    # a reward gets the prompts and answers as text, as the person's file has them
    regex, = reward_functions(cfg, as_text=True)
    assert regex.__name__ == "regex"
    assert regex(prompts=[data.rows[0]["prompt"]],
                 completions=[[{"role": "assistant", "content": "ANSWER: 3"}]]) == [1.0]


def test_a_grpo_run_on_text_prompts_trains_in_the_chat_form(tmp_path, tiny_cfg):
    cfg = _cfg(tiny_cfg, _prompts_file(tmp_path), rewards=["written"],
               reward_code=TEXT_ONLY)
    sink = NullSink()
    records = []
    sink.add_metrics = records.append
    train(cfg, tmp_path / "run", sink)
    steps = [r for r in records if "loss" in r]
    assert steps and all(r["rewards/text_only/mean"] == 1.0 for r in steps)
    log = (tmp_path / "run" / "train.log").read_text()
    assert "as the user's turn of its chat template" in log and "conversational form" in log


# ---- the spread of the rewards ---------------------------------------------------------
def _sampled(totals: list[list[float]], ids=None) -> Sampled:
    group = len(totals[0])
    rows = [{"prompt": "p", "completion": "c", "total": t} for ts in totals for t in ts]
    return Sampled(1.0, group, rows, ids or [[1]] * len(rows), ["p"] * len(rows), {})


def test_the_spread_of_groups_follows_each_prompts_rewards():
    one_in_eight = _sampled([[1, 0, 0, 0, 0, 0, 0, 0]])
    assert one_in_eight.spread(4) == pytest.approx(1 - (1 / 8) ** 4 - (7 / 8) ** 4)
    assert one_in_eight.spread(8) == pytest.approx(1 - (1 / 8) ** 8 - (7 / 8) ** 8)
    assert one_in_eight.spread(4) < 0.5 < one_in_eight.spread(8)
    assert one_in_eight.rewarded() == [0]
    never = _sampled([[0, 0, 0, 0], [0, 0, 0, 0]])
    assert never.spread(16) == 0 and never.rewarded() == [] and never.alike() == "0"
    half = _sampled([[1, 1, 0, 0], [0.5, 0.5, 0.5, 0.5]])
    assert half.spread(2) == pytest.approx((0.5 + 0) / 2) and half.rewarded() == [0, 1]


def test_answer_length_is_what_the_rewarded_answers_need(tiny_model_dir):
    """Answers that reach the form in their first tokens and then go on: the length
    chosen keeps every rewarded answer's reward and no more."""
    tokenizer = load_tokenizer(tiny_model_dir)
    texts = ["ANSWER: 7 " + "and then some more words " * 8, "no form here " * 14] * 2
    ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    assert min(len(i) for i in ids) > 40
    cfg = RunConfig(stage="grpo", rewards=["regex"], reward_pattern=r"ANSWER: \d")
    functions = reward_functions(cfg)
    table = [{"prompt": "p", "completion": t, "total": 1.0 if t.startswith("ANSWER") else 0.0}
             for t in texts]
    found = Sampled(1.0, 2, table, ids, ["p"] * 4, {})

    class Data:
        conversational = False
    assert needed_tokens(found, tokenizer, cfg, Data, functions) == 16


def test_a_time_budget_chooses_settings_where_the_rewards_differ(tmp_path, tiny_cfg):
    """A reward that tells the tiny model's answers apart (their length): the quick path
    keeps the rewards' spread, and says why for each setting it chose."""
    person = RunConfig.from_dict({**tiny_cfg, "stage": "grpo",
                                  "dataset_name": _prompts_file(tmp_path),
                                  "rewards": ["length_near"], "reward_target_chars": 400,
                                  "time_budget_minutes": 5, "use_peft": True,
                                  "learning_rate": RunConfig().learning_rate,
                                  "gradient_accumulation_steps": 1})
    log = logging.getLogger("test-signal")
    chosen, reasons = probe(person, person, log)
    assert reasons and any("answers per prompt" in r for r in reasons)
    assert chosen.num_generations in (4, 8, 16)
    assert chosen.per_device_train_batch_size * chosen.gradient_accumulation_steps % \
        chosen.num_generations == 0
    assert chosen.learning_rate == 2e-4 and any("learning rate" in r for r in reasons)
    # what the person set stays
    mine = RunConfig.from_dict({**person.to_dict(), "num_generations": 2, "temperature": 0.7})
    kept, _ = probe(mine, mine, log)
    assert (kept.num_generations, kept.temperature) == (2, 0.7)


def test_a_reward_that_never_fires_is_said_before_training(tmp_path, tiny_cfg, caplog):
    """The tiny model's answers all run on to the limit the person set (6 tokens): what
    helps is a longer limit (what the data's answers need), not more answers or a higher
    temperature. Answers that ended and still scored alike: a reward with partial
    credit."""
    never = dict(rewards=["regex"], reward_pattern="^NEVER WRITTEN$")
    budget = _cfg(tiny_cfg, _prompts_file(tmp_path), time_budget_minutes=5, **never)
    with pytest.raises(NothingToLearn, match=r"100% of the answers were cut at Max "
                       r"completion length \(6 tokens\)") as refused:
        probe(budget, budget, logging.getLogger("test-signal"))
    assert "raise it to 16 tokens, what the data's answers need" in str(refused.value)
    assert "partial credit" not in str(refused.value)
    plain = _cfg(tiny_cfg, _prompts_file(tmp_path), **never)
    with caplog.at_level(logging.WARNING):
        assert probe(plain, plain, logging.getLogger("test-signal")) == (plain, [])
    assert "Nothing to learn" in caplog.text and "were cut at Max completion" in caplog.text
    ended = Sampled(0.8, 2, [{"total": 0.0}] * 4, [[5]] * 4, ["p"] * 4, {}, [False] * 4)
    assert cut_warning(ended.cut, 6) is None
    assert "partial credit" in _nothing_message(ended, "4 answers", 1, None)


def test_a_budget_run_that_would_learn_nothing_ends_before_training(tmp_path, tiny_cfg):
    trained = []
    manager = RunManager(tmp_path / "runs", trainer=lambda *args, **kw: trained.append(1))
    cfg = _cfg(tiny_cfg, _prompts_file(tmp_path), time_budget_minutes=5,
               rewards=["contains_words"], reward_words="zebra")  # (no form to warm up on)
    run = manager.get(manager.start(cfg))
    wait_for(lambda: run.state not in ("queued", "running", "stopping"))
    assert run.state == "failed" and "Nothing to learn" in run.error
    assert not trained and not (run.dir / "model").exists()
    assert "Nothing to learn" in (run.dir / "train.log").read_text()


# ---- Continue with GRPO after SFT on a person's own questions and answers --------------
def test_continue_with_grpo_offers_the_sft_files_questions_as_prompts(tmp_path):
    from sft_ui.runs.next_stage import preference_after
    from sft_ui.runs.run import create_run
    qa = tmp_path / "support.csv"
    qa.write_text("質問,回答\n返品できますか？,はい、30日以内なら返品できます。\n"
                  "送料はいくらですか？,送料は無料です。\n", encoding="utf-8")
    run = create_run(tmp_path / "runs", RunConfig(dataset_name=str(qa), use_peft=True))
    (run.dir / "model").mkdir()
    run.model_dir = str(run.dir / "model")
    run.set_state("done", "Finished.")
    follow = preference_after(run, "grpo")
    cfg = follow.config
    assert cfg.stage == "grpo" and cfg.dataset_name.startswith(str(run.dir))
    rows = load_prompts(cfg.dataset_name, cfg).rows
    assert rows[0] == {"prompt": "返品できますか？", "answer": "はい、30日以内なら返品できます。"}
    assert len(rows) == 2 and any("as prompts" in n for n in follow.notes)
    assert cfg.validate() == []
