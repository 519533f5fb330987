"""The checks of the settings and the errors of the data as Messages (sft_ui/i18n/message.py):
each reaches the page as its template and values, rendered in Japanese with its nested
values (a setting's label, a row's place in a file, a stage's columns, a description)
Japanese too, nothing parsed back from finished English.

Run before the checks and the data errors were Messages, every case of the three tests
"each ... is a message in Japanese whole" failed, and the one that keeps a data error
through the page: each was finished English (a plain str, "not a Message"), its values
found again only by guessing where they end. Parsed back, these sentences still came out
Japanese; test_label_and_name_as_values passed before as well.
"""
from __future__ import annotations

import dataclasses
import re

import pytest

from sft_ui import i18n
from sft_ui.config import RunConfig
from sft_ui.config.registry import field
from sft_ui.config.values import coerce
from sft_ui.i18n.message import Message
from tests.i18n.test_i18n import english_left

# Bad settings, one or more checks of config/checks.py and config/grpo.py each.
BAD_SETTINGS = {
    "greater than": {"learning_rate": 0},
    "at least": {"per_device_train_batch_size": 0},
    "at most": {"eval_fraction": 0.99},
    "one of": {"lr_scheduler_type": "zigzag"},
    "a list's choice": {"stage": "grpo", "rewards": ["nope"]},
    "model empty": {"model_name_or_path": " "},
    "dataset empty": {"dataset_name": " "},
    "no sample prompts": {"sample_steps": 5, "sample_prompts": []},
    "two eval sources": {"eval_fraction": 0.1, "dataset_test_split": "test"},
    "warmup not whole": {"warmup_steps": 2.5},
    "warmup past max_steps": {"warmup_steps": 50, "max_steps": 10},
    "no checkpoints": {"save_total_limit": 2, "save_steps": 0},
    "two precisions": {"bf16": True, "fp16": True},
    "4 bits without LoRA": {"load_in_4bit": True, "use_peft": False},
    "no target modules": {"use_peft": True, "lora_target_modules": " "},
    "no text field": {"dataset_text_field": " "},
    "empty template": {"dataset_format": "template", "dataset_template": " "},
    "another stage's demo": {"stage": "dpo", "dataset_name": "demo"},
    "loss type": {"stage": "dpo", "dataset_name": "demo-preference", "loss_type": "zigzag"},
    "KTO's batch": {"stage": "kto", "dataset_name": "demo-preference",
                    "per_device_train_batch_size": 1},
    "no rewards": {"stage": "grpo", "dataset_name": "demo-grpo", "rewards": []},
    "a reward twice": {"stage": "grpo", "dataset_name": "demo-grpo",
                       "rewards": ["json_answer", "json_answer"]},
    "weights not numbers": {"stage": "grpo", "dataset_name": "demo-grpo",
                            "rewards_weights": "one, two"},
    "weights miscounted": {"stage": "grpo", "dataset_name": "demo-grpo",
                           "rewards": ["json_answer"], "rewards_weights": "1, 2"},
    "written without code": {"stage": "grpo", "dataset_name": "demo-grpo",
                             "rewards": ["written"], "reward_code": " "},
    "answers per prompt": {"stage": "grpo", "dataset_name": "demo-grpo",
                           "per_device_train_batch_size": 3, "gradient_accumulation_steps": 1,
                           "num_generations": 2},
}

# Loose values each setting's coercion refuses (config/values.py's coerce).
BAD_VALUES = [("max_steps", None), ("use_peft", "maybe"), ("max_steps", "1e400"),
              ("max_steps", "ten"), ("learning_rate", "nan"), ("learning_rate", "fast"),
              ("sample_prompts", 3), ("model_name_or_path", ["a"]),
              ("model_name_or_path", "a\x00b"), ("model_name_or_path", "x" * 5000)]


# The JSON parser's own words (a reason json gives), kept as it says them.
PARSER = re.compile(r"Expecting value")


def _names(said: Message) -> list[str]:
    """The values of a Message (and of its nested ones) that are names, not words: a
    name, a number, a path, a list of names (a setting's choices, the columns, the roles);
    kept as they are. A value of several words is not one: it would be English left."""
    out = []
    for value in said.args.values():
        if isinstance(value, Message):
            out += _names(value)
        elif all(" " not in part.strip() for part in str(value).split(", ")):
            out.append(str(value))
    return out


def _left(said) -> list[str]:
    """Why `said` is not a Message rendered in Japanese whole (nothing: it is)."""
    if not isinstance(said, Message):
        return [f"not a Message: {said!r}"]
    japanese = i18n.translate(said, "ja")
    words = PARSER.sub(" ", japanese)
    for name in sorted(_names(said), key=len, reverse=True):
        words = words.replace(name, " ")
    return [f"English left in {japanese!r}: {english_left(words)}"] \
        if english_left(words) else []


@pytest.mark.parametrize("case", sorted(BAD_SETTINGS))
def test_each_check_of_the_settings_is_a_message_in_japanese_whole(case):
    found = RunConfig.from_dict(BAD_SETTINGS[case]).validate()
    assert found, f"{case}: no problem found"
    left = [why for said in found for why in _left(said)]
    assert not left, "\n".join(left)


@pytest.mark.parametrize("name, value", BAD_VALUES)
def test_each_refused_value_is_a_message_in_japanese_whole(name, value):
    with pytest.raises(ValueError) as refused:
        coerce(field(name), value)
    said = refused.value.args[0]
    assert not _left(said), _left(said)


def test_label_and_name_as_values():
    said = RunConfig.from_dict({"learning_rate": 0}).validate()[0]
    japanese = i18n.translate(said, "ja")
    assert "(learning_rate)" in japanese and "学習率" in japanese, japanese


def _data_errors(tmp_path) -> dict:
    """Bad data files (and settings that read them wrong): the DataError each makes."""
    from sft_ui.data import DataError, load_data
    files = {"broken.jsonl": '{"text": "fine"}\n{"text": oops}\n',
             "list.jsonl": '[1, 2]\n',
             "qa.jsonl": '{"field1": "a", "field2": "b"}\n',
             "mixed.jsonl": '{"text": "a"}\n{"messages": [{"role": "user", "content": "b"}]}\n',
             "empty.jsonl": "  \n",
             "array.json": '{"a": 1}',
             "bad.json": '[{"a": 1},',
             "none.json": "[]",
             "wide.csv": "text\nhello,world\n",
             "header.csv": "text\n",
             "latin.jsonl": b'{"text": "caf\xc3\xa9 \xff"}\n',
             "role.jsonl": '{"messages": [{"role": "pirate", "content": "b"}]}\n',
             "blank.jsonl": '{"text": ""}\n',
             "data.xlsx": "x"}
    for name, text in files.items():
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    cases = {name: {"dataset_name": str(tmp_path / name)} for name in files}
    cases["missing"] = {"dataset_name": str(tmp_path / "missing.jsonl")}
    cases["template column"] = {"dataset_name": str(tmp_path / "qa.jsonl"),
                                "dataset_format": "template", "dataset_template": "Q: {query}"}
    cases["all held out"] = {"dataset_name": str(tmp_path / "qa.jsonl"),
                             "dataset_format": "template",
                             "dataset_template": "{field1} {field2}", "eval_fraction": 0.5}
    errors = {}
    for case, values in cases.items():
        with pytest.raises(DataError) as e:
            load_data(RunConfig.from_dict(values))
        errors[case] = e.value
    return errors


def test_each_data_error_is_a_message_in_japanese_whole(tmp_path):
    left = []
    for case, error in _data_errors(tmp_path).items():
        assert error.messages, case
        for said in error.messages:  # (literal braces too: {{"text": "..."}} in a template)
            left += [f"{case}: {why}" for why in _left(said)]
    assert not left, "\n".join(left)


def test_a_data_error_keeps_its_message_through_the_page(tmp_path):
    from sft_ui.ui import lang
    error = _data_errors(tmp_path)["qa.jsonl"]
    assert [i18n.translate(m, "ja") for m in lang._english(error)] == \
        [i18n.translate(error.messages[0], "ja")]
    assert "qa.jsonl の 1 行目" in i18n.translate(error.messages[0], "ja")


def test_the_settings_cases_are_all_made():
    """Each case above still makes a problem (a default changed would hide it)."""
    assert all(RunConfig.from_dict(v).validate() for v in BAD_SETTINGS.values())
    assert dataclasses.fields(RunConfig)


def _preference_and_prompt_errors(tmp_path) -> dict:
    """Bad preference and prompt files: the DataError each makes for DPO, KTO or GRPO."""
    from sft_ui.data import DataError
    from sft_ui.data.preference import load_preference
    from sft_ui.data.prompts import load_prompts
    files = {
        "sft.jsonl": ("dpo", '{"text": "a"}\n'),
        "kto_sft.jsonl": ("kto", '{"text": "a"}\n'),
        "kto.jsonl": ("dpo", '{"prompt": "p", "completion": "c", "label": true}\n'),
        "same.jsonl": ("dpo", '{"prompt": "p", "chosen": "a", "rejected": "a"}\n'),
        "gap.jsonl": ("dpo", '{"prompt": "p", "chosen": "a"}\n'
                             '{"prompt": "p", "chosen": "a", "rejected": null}\n'),
        "label.jsonl": ("kto", '{"prompt": "p", "completion": "c", "label": "maybe"}\n'),
        "one_label.jsonl": ("kto", '{"prompt": "p", "completion": "c", "label": true}\n'
                                   '{"prompt": "q", "completion": "d", "label": true}\n'),
        "forms.jsonl": ("dpo", '{"prompt": "p", "chosen": "a", "rejected": "b"}\n'
                               '{"prompt": [{"role": "user", "content": "p"}], '
                               '"chosen": [{"role": "assistant", "content": "a"}], '
                               '"rejected": [{"role": "assistant", "content": "b"}]}\n'),
        "no_prompt.jsonl": ("grpo", '{"question": "q", "answer": "a"}\n'),
        "answered.jsonl": ("grpo", '{"prompt": [{"role": "user", "content": "q"}, '
                                   '{"role": "assistant", "content": "a"}]}\n'),
        "empty_prompt.jsonl": ("grpo", '{"prompt": "  "}\n'),
        "chosen.jsonl": ("grpo", '{"chosen": "a", "rejected": "b"}\n'),
    }
    errors = {}
    for name, (stage, text) in files.items():
        path = tmp_path / name
        path.write_text(text)
        cfg = RunConfig.from_dict({"stage": stage, "dataset_name": str(path)})
        with pytest.raises(DataError) as e:
            if stage == "grpo":
                load_prompts(str(path), cfg)
            else:
                load_preference(str(path), cfg, stage)
        errors[name] = e.value
    return errors


# A preference stage given SFT data names what it needs as "{stage.columns} columns": the
# catalogue has "prompt/chosen/rejected columns" (DPO, ORPO) but no "{columns} columns", so
# KTO's "prompt/completion/label or prompt/chosen/rejected columns" stays English.
NEEDS_AN_ENTRY = {"kto_sft.jsonl"}


def test_each_preference_and_prompt_error_is_a_message_in_japanese_whole(tmp_path):
    left = []
    for case, error in _preference_and_prompt_errors(tmp_path).items():
        assert error.messages, case
        if case not in NEEDS_AN_ENTRY:
            left += [f"{case}: {why}" for said in error.messages for why in _left(said)]
    assert not left, "\n".join(left)


def test_what_a_preference_stage_needs_is_japanese_whole(tmp_path):
    errors = _preference_and_prompt_errors(tmp_path)
    left = [why for case in NEEDS_AN_ENTRY for said in errors[case].messages
            for why in _left(said)]
    assert not left, "\n".join(left)
