"""Model resolution (offline default, clear messages offline), the demo set, and the note on
data in a language the model was not trained for."""
import json
from pathlib import Path

import pytest

from sft_ui.config import DEFAULT_MODEL_ID, RunConfig
from sft_ui.data import load_data
from sft_ui.data.demo import demo_rows
from sft_ui.data.language import language_note, language_shares
from sft_ui.models import ModelError, hub_reachable, resolve_model


def test_default_model_resolves_to_a_local_safetensors_copy():
    from pathlib import Path
    path = Path(resolve_model(DEFAULT_MODEL_ID))
    assert (path / "model.safetensors").exists() and (path / "tokenizer.json").exists()


@pytest.mark.skipif(hub_reachable(), reason="the Hub is reachable here")
def test_unreachable_hub_model_says_offline():
    with pytest.raises(ModelError, match="offline"):
        resolve_model("facebook/opt-350m")


def test_missing_folder_and_non_model_folder(tmp_path):
    with pytest.raises(ModelError, match="neither an existing local folder"):
        resolve_model("./no/such/model")
    with pytest.raises(ModelError, match="no config.json"):
        resolve_model(str(tmp_path))


def test_demo_set_is_deterministic_and_holds_out_the_sample_prompts():
    rows = demo_rows()
    assert 200 <= len(rows) <= 500 and rows == demo_rows()
    text = json.dumps(rows)
    for prompt in RunConfig().sample_prompts:
        assert prompt not in text
    for word in ("Italy", "spider", "cook"):
        assert word not in text
    data = load_data(RunConfig())
    assert data.format == "messages" and len(data.train) == len(rows)


def test_a_finished_adapter_loads_trainable_only_when_asked(tmp_path, tiny_model_dir):
    """A run that trains a finished LoRA run's adapter on asks peft for it trainable
    (is_trainable); chat and compare load it frozen."""
    from peft import LoraConfig, get_peft_model  # heavy: loaded by this test only
    from transformers import AutoModelForCausalLM  # heavy: loaded by this test only

    from sft_ui.models import load_model_and_tokenizer
    base = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    adapter = tmp_path / "adapter"
    get_peft_model(base, LoraConfig(r=4, target_modules="all-linear")).save_pretrained(adapter)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (adapter / name).write_bytes((Path(tiny_model_dir) / name).read_bytes())
    for trainable in (True, False):
        model, _ = load_model_and_tokenizer(str(adapter), trainable_adapter=trainable)
        lora = [p.requires_grad for n, p in model.named_parameters() if "lora_" in n]
        assert lora and all(g == trainable for g in lora), trainable


JAPANESE = [{"messages": [{"role": "user", "content": "日本の首都はどこですか？"},
                          {"role": "assistant", "content": "東京です。"}]},
            {"prompt": "富士山の高さは？", "completion": "3776メートルです。"}]
ENGLISH = [{"prompt": "What is the capital of France?", "completion": "Paris."}]


def test_data_in_a_language_the_model_does_not_know_names_a_small_model_that_does():
    note = language_note(DEFAULT_MODEL_ID, JAPANESE)
    assert note == ("Most of this data is in Japanese, which SmolLM2-135M-Instruct was not "
                    "trained for: its answers in Japanese will be poor. A small model trained "
                    "for Japanese: Qwen/Qwen2.5-0.5B-Instruct (0.5B parameters).")
    assert language_note(DEFAULT_MODEL_ID, ENGLISH) is None
    assert language_note("Qwen/Qwen2.5-0.5B-Instruct", JAPANESE) is None
    assert language_note("Qwen/Qwen3-0.6B", JAPANESE) is None
    assert language_note("some-org/unknown-model", JAPANESE) is None  # no table: no note
    assert language_note("/models/SmolLM2-360M-Instruct/", JAPANESE).startswith(
        "Most of this data is in Japanese, which SmolLM2-360M-Instruct was")
    # Kanji without kana is Chinese; Hangul Korean; a minority of Japanese says nothing.
    assert "in Chinese" in language_note(DEFAULT_MODEL_ID, [{"text": "北京是中国的首都。"}])
    assert "in Korean" in language_note(DEFAULT_MODEL_ID, [{"text": "서울은 한국의 수도입니다."}])
    assert language_note(DEFAULT_MODEL_ID, ENGLISH * 3 + [{"text": "東京です。"}]) is None
    # Roles are not text; rows of a datasets.Dataset are read as a list's.
    from datasets import Dataset
    assert language_shares(JAPANESE) == {"japanese": 1.0}
    assert language_shares(Dataset.from_list(ENGLISH * 3)) == language_shares(ENGLISH) == \
        {"latin": 1.0}
