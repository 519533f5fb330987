"""Model resolution (offline default, clear messages offline) and the demo set."""
import json
from pathlib import Path

import pytest

from sft_ui.config import DEFAULT_MODEL_ID, RunConfig
from sft_ui.data import load_data
from sft_ui.data.demo import demo_rows
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
