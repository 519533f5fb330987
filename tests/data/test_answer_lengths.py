"""Answers as long as the person's data needs, on the Japanese support rows of
test_sized.py: GRPO's answers are long enough for the answers in its Reward column and an
evaluation's for its test set's; answers cut at a length limit never end in a broken
character, and GRPO's checks say when the limit cut most answers (the fix is a longer
limit, not more answers or a higher temperature)."""
from __future__ import annotations

import json
import logging

import pytest
import torch

from sft_ui import i18n
from sft_ui.chat import GenSettings
from sft_ui.config import RunConfig
from sft_ui.data.sized import sized
from sft_ui.evaluate import testset
from sft_ui.evaluate.job import Evaluation
from sft_ui.evaluate.testset import Case
from sft_ui.models import load_tokenizer
from sft_ui.plan import planner
from sft_ui.rewards.check import cut_warning, no_spread
from sft_ui.train.answering import generate_batch, whole_characters
from sft_ui.train.grpo_signal import probe
from sft_ui.train.grpo_try import try_rewards
from tests.data.test_sized import ROWS, _tokens
from tests.i18n.test_i18n import english_left


# ---- answers cut at a length limit ----------------------------------------------------
class _Writes:
    """A model whose greedy answer to any prompt is `ids` (cut wherever the test says)."""

    def __init__(self, ids: list[int]):
        self.ids, self.training, self.device = ids, False, torch.device("cpu")

    def eval(self):
        return self

    def train(self, mode=True):
        return self

    def generate(self, input_ids, max_new_tokens, **kwargs):
        answer = torch.tensor([self.ids[:max_new_tokens]] * len(input_ids))
        return torch.cat([input_ids, answer], dim=1)


def test_a_sample_cut_mid_character_drops_the_broken_end(tokenizer):
    """Each kanji or kana takes up to 3 byte tokens: a cut between them decoded as U+FFFD
    ("ご不�"); the sample keeps the whole characters before it."""
    text = "ご不便をおかけして申し訳ございません。"
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    broken = [n for n in range(1, len(ids)) if tokenizer.decode(ids[:n]).endswith("\ufffd")]
    assert broken  # the tokenizer does split characters
    for n in broken:
        answer, = generate_batch(_Writes(ids), tokenizer, ["質問"], max_new_tokens=n)
        assert not answer.endswith("\ufffd") and text.startswith(answer), (n, answer)
    assert whole_characters("はい\ufffd\ufffd") == "はい"


def test_an_evaluations_answer_length_follows_its_test_set(tokenizer):
    cases = [Case(q, a) for q, a in ROWS]
    test = testset.TestSet("support", "question/answer", cases, len(cases))
    job = Evaluation(["base"], [], test, GenSettings(), 8)
    job.size_length(tokenizer)
    longest = max(_tokens(tokenizer, a) for _, a in ROWS)
    assert longest < job.settings.max_new_tokens <= 1024
    assert job.snapshot()["notes"][0].startswith(
        f"Answers of up to {job.settings.max_new_tokens} tokens: 95% of the test set's "
        f"reference answers are at most {longest} tokens long")
    assert not english_left(i18n.translate(job.notes[0], "ja"))
    one = testset.TestSet("t", "prompt/completion", [Case("Q", "Yes")], 1)
    short = Evaluation(["base"], [], one, GenSettings(), 8)
    short.size_length(tokenizer)
    assert short.settings.max_new_tokens == 32  # never below a sentence's room
    mine = Evaluation(["base"], [], test, GenSettings(max_new_tokens=64), 8)
    mine.size_length(tokenizer)
    assert mine.settings.max_new_tokens == 64 and not mine.notes


# ---- GRPO: its answers' length, and answers cut at it ------------------------------------
@pytest.fixture
def support_prompts(tmp_path):
    """The support questions as GRPO's prompts, their answers in the 'answer' column
    (what Continue with GRPO writes after SFT on them)."""
    path = tmp_path / "grpo-prompts.jsonl"
    path.write_text("".join(json.dumps({"prompt": q, "answer": a}, ensure_ascii=False) +
                            "\n" for q, a in ROWS), encoding="utf-8")
    return str(path)


def _grpo(tiny_cfg, data, **values) -> RunConfig:
    return RunConfig.from_dict({**tiny_cfg, "stage": "grpo", "dataset_name": data,
                                "num_generations": 2, "rewards": ["contains_words"],
                                "reward_words": "カスタマーサポート一同", **values})


def test_grpo_answers_are_as_long_as_the_datas_answers(support_prompts, tiny_cfg,
                                                        tokenizer):
    cfg = _grpo(tiny_cfg, support_prompts)
    assert cfg.max_completion_length == 64  # the default
    found = sized(cfg, tokenizer)
    longest = max(_tokens(tokenizer, a) for _, a in ROWS)
    assert longest < found.config.max_completion_length <= 512
    assert found.config.sample_prompts == cfg.sample_prompts  # GRPO's samples are its own
    reason, = found.reasons
    assert reason.startswith(f"Max completion length {found.config.max_completion_length} "
                             f"tokens: 95% of the answers in the column 'answer' are at most "
                             f"{longest} tokens long")
    assert not english_left(i18n.translate(reason, "ja"))
    mine = _grpo(tiny_cfg, support_prompts, max_completion_length=48)
    assert sized(mine, tokenizer).config == mine
    # The plan's answers are that long too.
    planned = planner.plan_with_data(cfg)
    assert planned["sized"] == [reason]


def test_the_probe_before_a_run_writes_answers_as_long_as_the_data_needs(
        support_prompts, tiny_cfg, caplog):
    """The non-budget run: no setting chosen, but the probe writes answers of the sized
    length, and it says when the person's shorter limit cuts most answers."""
    cfg = _grpo(tiny_cfg, support_prompts, max_completion_length=8)
    with caplog.at_level(logging.WARNING):
        assert probe(cfg, cfg, logging.getLogger("test-sized")) == (cfg, [])
    assert "were cut at Max completion length (8 tokens) before they ended" in caplog.text
    assert "Raise Answers per prompt or Temperature" not in caplog.text


def test_test_rewards_advises_a_longer_limit_when_most_answers_were_cut(
        support_prompts, tiny_cfg):
    """The tiny model's random answers never end: at a short limit every one is cut, and
    Test rewards says to raise the limit (to what the data's answers need), not to add
    answers or temperature; at the default, the answers are as long as the run's."""
    short = try_rewards(_grpo(tiny_cfg, support_prompts, max_completion_length=8), prompts=2)
    first, *groups = short["warnings"]
    need = sized(_grpo(tiny_cfg, support_prompts), load_tokenizer(
        tiny_cfg["model_name_or_path"])).config.max_completion_length
    assert first.startswith("100% of the answers were cut at Max completion length (8 "
                            "tokens) before they ended")
    assert f"raise it to {need} tokens, what the data's answers need" in first
    assert groups and all("were cut at Max completion length" in w and
                          "Raise the number of generations" not in w for w in groups)
    sized_run = try_rewards(_grpo(tiny_cfg, support_prompts), prompts=1)
    assert any(n.startswith(f"Max completion length {need} tokens") for n in
               sized_run["notes"])


def test_no_spread_and_the_cut_warning():
    rows = [{"prompt": "質問", "completion": "…", "total": 0.0}] * 4
    assert "Raise the number of generations" in no_spread(rows, 2)[0]
    told = no_spread(rows, 2, cut=[True, True, False, True])
    assert all("cut at Max completion length" in w for w in told)
    assert "Raise Max completion length." in told[0]
    assert cut_warning([False, False, True], 64) is None
    assert cut_warning([True, True, False], 64, need=208).startswith(
        "67% of the answers were cut at Max completion length (64 tokens)")
    assert cut_warning([True], 64, need=32).endswith(": raise it. More answers or a higher "
                                                     "temperature would not help.")
