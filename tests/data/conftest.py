"""The fixture the data tests share: the tiny model's tokenizer (SmolLM2's), for counting
and cutting tokens as a run on that model does."""
import pytest

from sft_ui.models import load_tokenizer


@pytest.fixture
def tokenizer(tiny_model_dir):
    return load_tokenizer(tiny_model_dir)
