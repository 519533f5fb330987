"""Model and dataset resolution: offline default, clear messages offline and on bad data."""
import json

import pytest

from sft_ui.config import DEFAULT_MODEL_ID, RunConfig
from sft_ui.data import DataError, load_train_dataset
from sft_ui.demo_data import demo_rows
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
    ds, fmt = load_train_dataset(RunConfig())
    assert fmt == "messages" and len(ds) == len(rows)


def test_dataset_without_the_text_field_lists_its_columns(tmp_path):
    path = tmp_path / "reviews.jsonl"
    path.write_text('{"review": "good", "stars": 5}\n{"review": "bad", "stars": 1}\n')
    with pytest.raises(DataError, match="no 'text' column.*review, stars"):
        load_train_dataset(RunConfig(dataset_name=str(path)))
    ds, fmt = load_train_dataset(RunConfig(dataset_name=str(path), dataset_text_field="review"))
    assert fmt == "text" and len(ds) == 2


def test_bad_files_give_readable_errors(tmp_path):
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"text": "ok"}\n{"text": \n')
    with pytest.raises(DataError, match="broken.jsonl"):
        load_train_dataset(RunConfig(dataset_name=str(bad)))
    odd = tmp_path / "data.xlsx"
    odd.write_text("x")
    with pytest.raises(DataError, match="unsupported file type"):
        load_train_dataset(RunConfig(dataset_name=str(odd)))


@pytest.mark.skipif(hub_reachable(), reason="the Hub is reachable here")
def test_unreachable_hub_dataset_says_offline():
    with pytest.raises(DataError, match="offline"):
        load_train_dataset(RunConfig(dataset_name="imdb"))
