"""A setting's value that cannot be read names the setting as validate does, in English
and Japanese; a learning rate of zero or below gives one message."""
import re

import pytest

from sft_ui import i18n
from sft_ui.config import ConfigError, RunConfig


# ---- coercion names the setting; one message for the learning rate ------------------
@pytest.mark.parametrize("values, message", [
    ({"learning_rate": "abc"}, "Learning rate (learning_rate) must be a number (got 'abc')."),
    ({"learning_rate": "nan"},
     "Learning rate (learning_rate) must be a finite number (got 'nan')."),
    ({"max_steps": "ten"}, "Max steps (max_steps) must be a whole number (got 'ten')."),
    ({"use_peft": "maybe"}, "Use LoRA (use_peft) must be true or false (got 'maybe')."),
    ({"sample_prompts": [None]}, "Sample prompts (sample_prompts) must be text (got None)."),
])
def test_coercion_messages_name_the_setting_as_validate_does(values, message):
    with pytest.raises(ConfigError) as e:
        RunConfig.from_dict(values)
    assert e.value.messages == [message]
    japanese = i18n.translate(e.value.messages[0], "ja")
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese)
    assert not re.search(r"Learning rate|Max steps|Use LoRA|Sample prompts|must", japanese)


@pytest.mark.parametrize("value, got", [(-1, "-1.0"), (0, "0.0"), ("-0.5", "-0.5")])
def test_a_learning_rate_of_zero_or_below_gives_one_message(value, got):
    problems = RunConfig.from_dict({"learning_rate": value}).validate()
    assert problems == [f"Learning rate (learning_rate) must be greater than 0 (got {got})."]
    assert i18n.translate(problems[0], "ja") == \
        f"学習率 (learning_rate) は 0 より大きくしてください（入力: {got}）。"
    assert not RunConfig.from_dict({"learning_rate": 1e-9}).validate()
