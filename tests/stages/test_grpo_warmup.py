"""GRPO's warm-up where the model never writes the form a regex reward asks for: the form
written out from the Pattern (rewards/form.py), examples of it made from the model's own
answers and scored by the run's rewards (train/grpo_warmup.py), a time-budgeted run that
warms up instead of ending with nothing to learn, and a run that trains on Warm-up
examples before GRPO."""
from __future__ import annotations

import json
import re

import pytest

from sft_ui.config import ConfigError, RunConfig
from sft_ui.models import load_tokenizer
from sft_ui.rewards.form import fill, values_in
from sft_ui.runs import RunManager
from sft_ui.train import grpo_warmup
from sft_ui.train.engine import train
from sft_ui.train.events import NullSink
from sft_ui.train.grpo import reward_functions
from sft_ui.train.grpo_sample import Sampled
from tests.conftest import wait_for

FORMS = [  # (pattern, an answer the model wrote, the form with the value it offers last)
    (r"^\s*ANSWER: (-?\d+)\s*$", "3 + 4 = 7", "ANSWER: 7"),
    (r"^\s*<answer>\s*([A-Za-z]+)\s*</answer>\s*$", "The opposite of hot is cold",
     "<answer>cold</answer>"),
    (r'^\s*\{\s*"total"\s*:\s*(-?\d+)\s*\}\s*$', "Anna has 7 coins.", '{"total":7}'),
    (r"(?i)final answer: (\w+)", "so it is 12", "final answer: 12"),
]


@pytest.mark.parametrize("pattern,answer,form", FORMS)
def test_the_form_of_a_pattern_holds_the_value_an_answer_offers(pattern, answer, form):
    value = values_in(pattern, answer)[0]
    assert fill(pattern, value) == form
    assert re.search(pattern, form).group(1) == value


def test_a_form_that_cannot_be_written_is_none():
    assert fill(r"^(?=x)ANSWER$") is None  # a lookahead
    assert fill(r"^(\d+) and \1$", "3") is None  # a backreference
    assert fill(r"^\s*ANSWER: (\d+)$", "seven") is None  # the value does not fit the group
    assert fill(r"^Done\.$") == "Done." and values_in(r"^Done\.$", "Done.") == []


RIGHT = '''
def right(completions, answer, **kwargs):
    import re
    out = []
    for c, a in zip(completions, answer):
        m = re.match(r"^\\s*ANSWER: (-?\\d+)\\s*$", c)
        out.append(1.0 if m and m.group(1) == a else 0.0)
    return out
'''


def _functions(cfg):
    from sft_ui.rewards.written import WrittenRewards
    written = WrittenRewards(cfg.reward_code)
    return reward_functions(cfg, written), written


def test_examples_are_the_models_answers_in_the_form_the_rewards_score_best(tiny_model_dir):
    """Prompts whose answers hold their sum somewhere, and one whose answers never do:
    each example is its right sum in the form, the last one's from its row's own answer
    column; a wrong number in the form scores below and is never an example."""
    tokenizer = load_tokenizer(tiny_model_dir)
    cfg = RunConfig(stage="grpo", rewards=["regex", "written"],
                    reward_pattern=r"^\s*ANSWER: (-?\d+)\s*$", reward_code=RIGHT)
    asked = [("1 + 2", "3", ["1 + 2 = 3", "It is 3."]),
             ("2 + 2", "4", ["2 + 2 = 4 of course", "four"]),
             ("5 + 1", "6", ["I think 6", "5 + 1 is 7"]),
             ("3 + 3", "6", ["no idea", "maybe 5"]),
             ("4 + 4", "8", ["4 + 4 = 8", "eight"])]
    texts = [t for _, _, answers in asked for t in answers]
    prompts = [q for q, _, answers in asked for _ in answers]
    found = Sampled(0.8, 2, [{"total": 0.0}] * len(texts),
                    [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts],
                    prompts, {"answer": [a for _, a, answers in asked for _ in answers]})
    functions, written = _functions(cfg)
    try:
        rows = grpo_warmup.examples([found], tokenizer, cfg, False, functions, None)
    finally:
        written.close()
    assert {r["prompt"]: r["completion"] for r in rows} == {
        "1 + 2": "ANSWER: 3", "2 + 2": "ANSWER: 4", "5 + 1": "ANSWER: 6",
        "3 + 3": "ANSWER: 6", "4 + 4": "ANSWER: 8"}
    # without a regex reward there is no form to write
    assert grpo_warmup.examples([found], tokenizer, RunConfig(stage="grpo"), False,
                                functions, None) == []


QUESTIONS = [f"What is {a} plus {b}? Reply as ANSWER: <word>." for a, b in
             [(1, 2), (3, 4), (2, 5), (6, 1), (4, 4), (7, 2), (3, 3), (5, 5), (1, 1),
              (2, 2), (6, 6), (8, 1)]]


def _prompts_file(tmp_path):
    path = tmp_path / "own.jsonl"
    path.write_text("".join(json.dumps({"prompt": q, "answer": str(i)}) + "\n"
                            for i, q in enumerate(QUESTIONS)))
    return str(path)


def test_a_budget_run_whose_answers_never_take_the_form_warms_up_first(tmp_path, tiny_cfg):
    """The tiny model never writes `ANSWER: <word>` by itself: before the change its
    time-budgeted run ended with nothing to learn; now the run's settings name a warm-up
    file in its folder, of the model's own words put in the form, and say why."""
    trained = []
    manager = RunManager(tmp_path / "runs", trainer=lambda *args, **kw: trained.append(1))
    run = manager.get(manager.start({
        **tiny_cfg, "stage": "grpo", "dataset_name": _prompts_file(tmp_path),
        "rewards": ["regex"], "reward_pattern": r"^\s*ANSWER: ([a-z]+)\s*$",
        "time_budget_minutes": 5, "use_peft": True, "per_device_train_batch_size": 4}))
    wait_for(lambda: run.state not in ("queued", "running", "stopping"))
    assert run.state == "done" and trained, run.error
    assert run.config.warmup_file == str(run.dir / grpo_warmup.FILE)
    rows = [json.loads(line) for line in (run.dir / grpo_warmup.FILE).read_text().splitlines()]
    assert len(rows) >= grpo_warmup.MIN_EXAMPLES
    assert all(re.fullmatch(r"ANSWER: [a-z]+", r["completion"]) for r in rows)
    assert all(r["prompt"][0]["role"] == "user" for r in rows)  # as the run asks them
    assert any(r.startswith("a warm-up of") for r in run.budget)
    assert run.config.num_generations == 8 and run.config.max_completion_length == 16
    assert "warmup_file" in (run.dir / "config.yaml").read_text()


def test_a_run_trains_on_its_warm_up_examples_before_grpo(tmp_path, tiny_cfg):
    examples = tmp_path / "form.jsonl"
    examples.write_text("".join(json.dumps({"prompt": q, "completion": f"ANSWER: {i}"}) + "\n"
                                for i, q in enumerate(QUESTIONS)))
    cfg = RunConfig.from_dict({
        **tiny_cfg, "stage": "grpo", "dataset_name": _prompts_file(tmp_path),
        "rewards": ["regex"], "reward_pattern": r"ANSWER: \d+", "num_generations": 2,
        "max_completion_length": 6, "use_peft": True, "warmup_file": str(examples)})
    sink = NullSink()
    records = []
    sink.add_metrics = records.append
    train(cfg, tmp_path / "run", sink)
    log = (tmp_path / "run" / "train.log").read_text()
    said = re.search(r"Warm-up: (\d+) SFT steps on (\d+) examples of the form at rate "
                     r"\S+ \(loss (\S+) -> (\S+)\)", log)
    assert said, log
    assert int(said.group(2)) == len(QUESTIONS)
    assert float(said.group(4)) < float(said.group(3))  # the form was learnt
    assert log.index("Warm-up:") < log.index("Training (GRPO)")
    assert [r for r in records if "loss" in r]
    assert (tmp_path / "run" / "model" / "adapter_config.json").exists()


def test_a_warm_up_file_that_is_not_examples_is_refused(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "What is 1 + 1?"}\n')
    with pytest.raises(ConfigError, match=r"line 1 of .* is not a JSON object with "
                       r"\"prompt\" and \"completion\""):
        grpo_warmup.read(str(bad), as_chat=True)
    with pytest.raises(ConfigError, match="cannot be read"):
        grpo_warmup.read(str(tmp_path / "missing.jsonl"), as_chat=True)
