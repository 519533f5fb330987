"""Prompt-only data (GRPO): the demo set makes fresh, correct arithmetic problems from the
seed and holds its eval problems out; standard and conversational prompt files load with
their other columns kept; bad data gets a message naming the row and what to do."""
import json
import re

import pytest

from sft_ui import models
from sft_ui.config import RunConfig
from sft_ui.data import DataError
from sft_ui.data.grpo_demo import grpo_demo_rows, held_out_problems
from sft_ui.data.prompts import (
    PromptData,
    check_prompt_dataset,
    check_prompt_rows,
    load_prompts,
    prompt_text,
    read_prompt_source,
)
from sft_ui.stages.grpo import GRPO_DEMO

PROBLEM = re.compile(r"(\d+) ([+\-×]) (\d+)")


def _user(text):
    return [{"role": "user", "content": text}]


def _cfg(name=GRPO_DEMO, **kw):
    return RunConfig(stage="grpo", dataset_name=name, **kw)


def _problem(row):
    """(a, op, b) asked by a demo row, read back from its prompt."""
    (message,) = row["prompt"]
    assert message["role"] == "user"
    (found,) = PROBLEM.findall(message["content"])
    return int(found[0]), found[1], int(found[2])


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


# ---- the demo set ------------------------------------------------------------------------
def test_demo_rows_are_fresh_from_the_seed_and_correct():
    rows = grpo_demo_rows(7)
    assert len(rows) == 256 and rows == grpo_demo_rows(7)
    assert grpo_demo_rows(8) != rows
    assert {_problem(r) for r in grpo_demo_rows(8)} != {_problem(r) for r in rows}
    assert len(grpo_demo_rows(7, count=10)) == 10
    ops = {}
    for row in rows:
        assert set(row) == {"prompt", "answer"}
        content = row["prompt"][0]["content"]
        assert "JSON" in content and '"answer"' in content
        a, op, b = _problem(row)
        result = eval(f"{a} {'*' if op == '×' else op} {b}")  # the arithmetic itself
        assert row["answer"] == str(result) and result >= 0
        if op == "×":
            assert 2 <= a <= 12 and 2 <= b <= 12
        else:
            assert 2 <= a <= 99 and 2 <= b <= 99
        ops[op] = ops.get(op, 0) + 1
    assert set(ops) == {"+", "-", "×"} and ops["+"] + ops["-"] > ops["×"]
    assert len({r["prompt"][0]["content"].split(str(_problem(r)[0]))[0] for r in rows}) > 2
    assert len({_problem(r) for r in rows}) == len(rows)  # no problem twice


def test_held_out_problems_are_never_trained_on():
    for seed in (0, 42):
        held = held_out_problems(seed)
        assert len(held) == 50 and held == held_out_problems(seed)
        assert held[0].keys() == {"prompt", "answer"}
        training = {_problem(r) for r in grpo_demo_rows(seed, count=2000)}
        assert not training & {_problem(r) for r in held}


def test_the_demo_set_loads_as_conversational_prompts():
    cfg = _cfg(seed=3)
    data = load_prompts(GRPO_DEMO, cfg)
    assert isinstance(data, PromptData) and data.conversational
    assert data.rows == grpo_demo_rows(3) and data.source.label == "GRPO demo set"
    held = read_prompt_source(GRPO_DEMO, cfg, "test")
    assert held.rows == held_out_problems(3)
    assert check_prompt_dataset(cfg) == "prompt-only"


# ---- files ------------------------------------------------------------------------------
def test_standard_and_conversational_files_load_with_their_columns(tmp_path):
    standard = _write(tmp_path / "plain.jsonl", [{"prompt": "2 + 3 =", "answer": "5"},
                                                 {"prompt": "4 + 4 =", "answer": "8"}])
    data = load_prompts(standard, _cfg(standard))
    assert not data.conversational
    assert data.rows == [{"prompt": "2 + 3 =", "answer": "5"},
                         {"prompt": "4 + 4 =", "answer": "8"}]
    chat = _write(tmp_path / "chat.jsonl", [
        {"prompt": [{"role": "System", "content": "Be brief."},
                    {"role": "User", "content": "What is 2 + 3?"}], "answer": "5"},
        {"prompt": _user("What is 6 × 7?"), "answer": "42", "level": 2}])
    data = load_prompts(chat, _cfg(chat))
    assert data.conversational and data.source.label == "chat.jsonl"
    assert data.rows[0] == {"prompt": [{"role": "system", "content": "Be brief."},
                                       {"role": "user", "content": "What is 2 + 3?"}],
                            "answer": "5", "level": None}
    assert data.rows[1]["level"] == 2 and prompt_text(data.rows[0]["prompt"]) == \
        "What is 2 + 3?"
    assert prompt_text("2 + 3 =") == "2 + 3 ="
    assert check_prompt_dataset(_cfg(chat)) == "prompt-only"
    csv = tmp_path / "prompts.csv"
    csv.write_text("prompt,answer\nWhat is 2 + 2?,4\n")
    assert load_prompts(str(csv), _cfg(str(csv))).rows == [{"prompt": "What is 2 + 2?",
                                                            "answer": "4"}]


def test_preference_rows_with_a_prompt_keep_their_answers_as_columns():
    rows = [{"prompt": _user("Sky?"), "chosen": [{"role": "assistant", "content": "Blue."}],
             "rejected": [{"role": "assistant", "content": "Green."}]},
            {"prompt": _user("Grass?"), "completion": "Green.", "chosen": None,
             "rejected": None}]
    checked = check_prompt_rows(rows)
    assert checked[0] == {**rows[0], "completion": None}  # every row has every column
    assert checked[1]["completion"] == "Green."


def _fails(tmp_path, rows, *parts):
    path = _write(tmp_path / "bad.jsonl", rows)
    with pytest.raises(DataError) as e:
        load_prompts(path, _cfg(path))
    for part in parts:
        assert part in str(e.value), str(e.value)
    return str(e.value)


def test_bad_files_name_the_line_and_the_fix(tmp_path):
    good = {"prompt": "1 + 1 =", "answer": "2"}
    _fails(tmp_path, [good, {"answer": "3"}],
           "bad.jsonl line 2: 'prompt' is missing.", "fill it in or remove the row")
    _fails(tmp_path, [good, good, {"prompt": "  ", "answer": "3"}],
           "bad.jsonl line 3: 'prompt' is empty.")
    _fails(tmp_path, [{"prompt": _user("2 + 2?") + [{"role": "assistant", "content": "4"}]}],
           "bad.jsonl line 1: the last message of 'prompt' is from assistant",
           "must end with the user's message", "'answer'")
    _fails(tmp_path, [good, {"prompt": _user("2 + 2?")}],
           "Mixed forms: bad.jsonl line 1 is text but bad.jsonl line 2 is messages",
           "Keep one form per file")
    _fails(tmp_path, [{"prompt": [{"role": "robot", "content": "hi"}]}],
           "line 1: message 1 of 'prompt' has role 'robot'; use one of system, user")
    _fails(tmp_path, [{"prompt": []}], "line 1: 'prompt' is an empty list of messages")
    _fails(tmp_path, [{"prompt": 7}], "line 1: 'prompt' is a int; it must be text or a list")


def test_data_without_prompts_gets_the_grpo_message(tmp_path):
    for rows, kind in (
            ([{"chosen": "The sky is blue.", "rejected": "The sky is green."}],
             "chosen, rejected (chosen and rejected answers: preference data"),
            ([{"text": "Once upon a time"}], "text (plain text: data for SFT)"),
            ([{"messages": _user("Hi")}], "messages (chat conversations"),
            ([{"question": "2 + 2?", "answer": "4"}], "question, answer.")):
        message = _fails(tmp_path, rows, "GRPO reads prompts only, and the model writes the "
                         "answers", kind, "'prompt' column", "e.g. 'answer', for a reward")
        assert GRPO_DEMO in message
    with pytest.raises(DataError, match="GRPO reads prompts only"):
        load_prompts("demo", _cfg("demo"))  # the SFT demo: conversations, not prompts
    with pytest.raises(DataError, match="The dataset has no rows."):
        check_prompt_rows([])


def test_a_hub_id_needs_the_hub(monkeypatch):
    monkeypatch.setattr(models, "hub_reachable", lambda *a, **k: False)
    with pytest.raises(DataError) as e:
        check_prompt_dataset(_cfg("someone/no-such-prompts"))
    assert "'someone/no-such-prompts' is not a local file or folder" in str(e.value)
    assert "offline" in str(e.value) and f"Use '{GRPO_DEMO}'" in str(e.value)
    assert ".jsonl" in str(e.value)
    monkeypatch.setattr(models, "hub_reachable", lambda *a, **k: True)
    assert check_prompt_dataset(_cfg("someone/no-such-prompts")) == "hub"
