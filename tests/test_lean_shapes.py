"""The lean CPU step (train/lean.py) against TRL's own step, log record by log record, on
the shapes the studio trains: grouped KV heads (SmolLM2's shape), Qwen2 and Gemma-2
(the shipped configs shrunk, their own options kept: GQA, q/k/v biases, softcapping,
sliding window, eager attention), LoRA on every linear layer, padded and padding-free
batches, packed rows, and the loss on answers only. Tiny random models (2 layers) with
the real tokenizer, fp32; tolerances at test_lean_step_matches_trls_step."""
import json
from pathlib import Path

import pytest
import torch

from sft_ui.config import RunConfig
from sft_ui.data.tokens import load_training_data
from sft_ui.lazy import trl as _trl
from sft_ui.models import load_model_and_tokenizer
from sft_ui.plan.loading import peft_config
from sft_ui.train import lean as lean_module
from sft_ui.train.engine import sft_config
from sft_ui.train.lean import studio_trainer
from tests.test_lean import _chat_file

CONFIGS = Path(__file__).resolve().parent.parent / "sft_ui" / "plan" / "model_configs"

# Shipped config, then the sizes shrunk; everything else (the architecture's own
# options) as shipped unless said.
SHAPES = {
    # SmolLM2's 9 heads / 3 KV heads, scaled down: 6 / 2, head_dim 8
    "llama-gqa": ("SmolLM2-135M-Instruct.json", {
        "hidden_size": 48, "intermediate_size": 96, "num_attention_heads": 6,
        "num_key_value_heads": 2}),
    # Qwen2.5: 14 heads / 2 KV heads kept (head_dim 4), q/k/v biases
    "qwen2": ("Qwen2.5-0.5B-Instruct.json", {
        "hidden_size": 56, "intermediate_size": 112, "num_attention_heads": 14,
        "num_key_value_heads": 2, "max_window_layers": 2}),
    # Gemma-2: 8 heads / 4 KV heads -> 4 / 2, head_dim and query_pre_attn_scalar 256 -> 16,
    # softcapping as shipped, sliding window 4096 -> 8 (shorter than the rows, so the
    # local layers differ from global ones), eager attention (its own default: sdpa
    # cannot softcap)
    "gemma2": ("gemma-2-2b-it.json", {
        "hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 16, "query_pre_attn_scalar": 16,
        "sliding_window": 8}),
}


def tiny_model(folder: Path, shape: str, tokenizer_dir: str) -> str:
    """A 2-layer random model of `shape`'s architecture, saved with the real tokenizer."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    name, sizes = SHAPES[shape]
    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    values = json.loads((CONFIGS / name).read_text())
    for key in ("architectures", "torch_dtype", "transformers_version"):
        values.pop(key, None)
    values.update(sizes, num_hidden_layers=2, vocab_size=len(tok),
                  max_position_embeddings=512, bos_token_id=tok.bos_token_id,
                  eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    config = AutoConfig.for_model(values.pop("model_type"), **values)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    out = folder / shape
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


@pytest.fixture(scope="module")
def models(tmp_path_factory, tiny_model_dir):
    folder = tmp_path_factory.mktemp("shapes")
    return {shape: tiny_model(folder, shape, tiny_model_dir) for shape in SHAPES}


def _answers_file(tmp_path) -> str:
    """Prompt/completion text rows: the loss is on the completions only."""
    rows = [{"prompt": f"Question {i}: " + "how many words? " * (1 + i % 5),
             "completion": " " + " ".join(["word"] * (2 + (i * 7) % 30))} for i in range(16)]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


class _Attention:
    """Counts, while the lean trainer trains, the attention calls taken by
    rows_attention's own per-row kernel ("rows") and those it left to transformers' sdpa
    ("sdpa": through the mapping rows_attention swaps)."""

    def __init__(self, monkeypatch):
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
        self.calls = {"rows": 0, "sdpa": 0}
        mapping = ALL_ATTENTION_FUNCTIONS._global_mapping
        sdpa, functional = mapping["sdpa"], lean_module.F

        def counted_sdpa(*args, **kwargs):
            self.calls["sdpa"] += 1
            return sdpa(*args, **kwargs)

        class Functional:  # torch.nn.functional as lean.py sees it
            def __getattr__(self, name):
                return getattr(functional, name)

            def scaled_dot_product_attention(_, *args, **kwargs):
                self.calls["rows"] += 1
                return functional.scaled_dot_product_attention(*args, **kwargs)

        monkeypatch.setitem(mapping, "sdpa", counted_sdpa)
        monkeypatch.setattr(lean_module, "F", Functional())


def _trainer(trainer_class, cfg: RunConfig, out):
    model, tokenizer = load_model_and_tokenizer(cfg.model_name_or_path)
    train_set, _ = load_training_data(cfg, tokenizer).datasets()
    return trainer_class(model=model, args=sft_config(cfg, out),
                         train_dataset=train_set, processing_class=tokenizer,
                         peft_config=peft_config(cfg))


CASES = {
    # name: (shape, RunConfig values, padding-free lean batches)
    "llama-gqa padding-free": ("llama-gqa", {}, True),
    "llama-gqa padded": ("llama-gqa", {}, False),
    "llama-gqa lora": ("llama-gqa", {"use_peft": True, "lora_r": 8, "lora_alpha": 16,
                                     "lora_dropout": 0.0, "learning_rate": 1e-2}, True),
    "llama-gqa packed": ("llama-gqa", {"packing": True}, True),
    "llama-gqa answers only": ("llama-gqa", {"data": "answers"}, True),
    "llama-gqa chat answers only": ("llama-gqa", {"completion_only_loss": True}, True),
    "qwen2 padding-free": ("qwen2", {}, True),
    "qwen2 padded lora": ("qwen2", {"use_peft": True, "lora_r": 8, "lora_alpha": 16,
                                    "lora_dropout": 0.0, "learning_rate": 1e-2}, False),
    "gemma2 padding-free": ("gemma2", {}, True),
    "gemma2 padded": ("gemma2", {}, False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_lean_step_matches_trls_step(case, models, tmp_path, monkeypatch):
    """Every log record of 3 steps (4 rows a micro-batch, 2 micro-batches a step) as
    TRL's own step logs it. fp32: loss, entropy rel 1e-4; grad_norm rel 1e-3;
    mean_token_accuracy abs 1e-6 (the same argmax); learning_rate, num_tokens, epoch
    exactly. The trained weights after 3 steps agree within rel 1e-3 / abs 1e-5."""
    shape, values, padding_free = CASES[case]
    values = dict(values)
    data = _answers_file(tmp_path) if values.pop("data", "") == "answers" \
        else _chat_file(tmp_path)
    cfg = RunConfig.from_dict({
        "model_name_or_path": models[shape], "dataset_name": data, "max_steps": 3,
        "per_device_train_batch_size": 4, "gradient_accumulation_steps": 2,
        "max_length": 64, "learning_rate": 1e-3, "seed": 0, "sample_steps": 0,
        "bf16": False, "logging_steps": 1, **values})
    _, SFTTrainer = _trl()
    plain = _trainer(SFTTrainer, cfg, tmp_path / "plain")
    plain.train()
    if not padding_free:  # a model whose own code may not keep packed rows apart
        monkeypatch.setattr(lean_module, "packs_rows", lambda model: False)
    attention = _Attention(monkeypatch)
    lean = _trainer(studio_trainer(SFTTrainer), cfg, tmp_path / "lean")
    assert lean.lean and lean.padding_free_batches == padding_free
    lean.train()

    # Which attention the lean step took
    implementation = lean.model.config._attn_implementation
    if padding_free and implementation == "sdpa":
        assert attention.calls["rows"] > 0  # rows attend row by row
    else:  # padded batches, or a model not on sdpa (Gemma-2: eager): transformers' own
        assert attention.calls["rows"] == 0
    assert implementation == ("eager" if shape == "gemma2" else "sdpa")

    plain_logs = [r for r in plain.state.log_history if "loss" in r]
    lean_logs = [r for r in lean.state.log_history if "loss" in r]
    assert len(plain_logs) == len(lean_logs) == 3
    for a, b in zip(plain_logs, lean_logs):
        assert set(a) == set(b) >= {"loss", "grad_norm", "learning_rate", "entropy",
                                    "mean_token_accuracy", "num_tokens", "epoch", "step"}
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-4)
        assert b["grad_norm"] == pytest.approx(a["grad_norm"], rel=1e-3)
        assert b["entropy"] == pytest.approx(a["entropy"], rel=1e-4)
        assert b["mean_token_accuracy"] == pytest.approx(a["mean_token_accuracy"], abs=1e-6)
        for key in ("learning_rate", "num_tokens", "epoch", "step"):
            assert b[key] == a[key], key
    assert lean_logs[0]["loss"] != lean_logs[-1]["loss"]  # it trained
    trained = {n: p for n, p in plain.model.named_parameters() if p.requires_grad}
    for name, param in lean.model.named_parameters():
        if param.requires_grad:
            torch.testing.assert_close(param, trained[name], rtol=1e-3, atol=1e-5)
