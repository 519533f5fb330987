"""Shared fixtures: a tiny random model with the real tokenizer, a run manager
writing into tmp_path, and a live app on a free loopback port."""
from __future__ import annotations

import os
import socket
import time

import pytest

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """2 layers, width 32, SmolLM2's tokenizer and chat template; trains in a second."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from sft_ui.models import prepare_default_model
    tok = AutoTokenizer.from_pretrained(prepare_default_model())
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=512, tie_word_embeddings=True,
                         bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                         pad_token_id=tok.pad_token_id)
    model = LlamaForCausalLM(config)
    # Zero the special tokens' (tied) embeddings so greedy decoding of the random
    # model yields visible text instead of an immediate end-of-turn token.
    with torch.no_grad():
        model.get_input_embeddings().weight[list(tok.added_tokens_decoder)] = 0
    out = tmp_path_factory.mktemp("tiny-model")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


@pytest.fixture
def tiny_cfg(tiny_model_dir):
    """RunConfig fields for a quick run on the tiny model."""
    return {"model_name_or_path": tiny_model_dir, "max_steps": 2,
            "per_device_train_batch_size": 2, "gradient_accumulation_steps": 1,
            "max_length": 64, "sample_steps": 1, "sample_max_new_tokens": 8,
            "learning_rate": 1e-3}


def wait_for(predicate, timeout=120.0, interval=0.25):
    """Poll until predicate() returns something truthy; fail the test on timeout."""
    end = time.time() + timeout
    while time.time() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    """The real app on loopback; yields (url, manager)."""
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    manager = RunManager(tmp_path_factory.mktemp("runs"))
    app = build_app(manager)
    port = free_port()
    app.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                       quiet=True)
    yield f"http://127.0.0.1:{port}/", manager
    app.close()
