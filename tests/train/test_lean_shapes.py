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

CONFIGS = Path(__file__).resolve().parents[2] / "sft_ui" / "plan" / "model_configs"

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
    # Qwen2.5 with its sliding window turned on (Qwen2's option; Mistral v0.1 and
    # Gemma-3's local layers attend the same way): window 8 on the second layer
    "qwen2-sliding": ("Qwen2.5-0.5B-Instruct.json", {
        "hidden_size": 56, "intermediate_size": 112, "num_attention_heads": 14,
        "num_key_value_heads": 2, "use_sliding_window": True, "sliding_window": 8,
        "max_window_layers": 1}),
    # Gemma-2: 8 heads / 4 KV heads -> 4 / 2, head_dim and query_pre_attn_scalar 256 -> 16,
    # sliding window 4096 -> 8 (shorter than the rows: the local layers differ from the
    # global ones), the attention softcap as shipped (so eager attention, its own
    # default: sdpa cannot softcap), the final logits' softcap 30 -> 0.25: a random
    # model's logits stay under 0.6, where a cap of 30 changes the loss by 1e-7 and one
    # of 0.25 by 4e-4
    "gemma2": ("gemma-2-2b-it.json", {
        "hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 16, "query_pre_attn_scalar": 16,
        "sliding_window": 8, "final_logit_softcapping": 0.25}),
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


def _data_file(tmp_path, kind: str) -> str:
    """16 rows of 22 to 46 tokens (the batches' rows differ in length): chat rows, or
    prompt/completion text rows (the loss on the completions only)."""
    rows = []
    for i in range(16):
        answer = " ".join(["word"] * ((i * 7) % 25))
        if kind == "chat":
            rows.append({"messages": [{"role": "system", "content": "Be brief."},
                                      {"role": "user", "content": f"Question {i}?"},
                                      {"role": "assistant", "content": f"Answer {i}: {answer}"}]})
        else:
            rows.append({"prompt": f"Question {i}: " + " ".join(["how many?"] * (1 + i % 4)),
                         "completion": " " + " ".join([answer, f"({i})"]).strip()})
    path = tmp_path / f"{kind}.jsonl"
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
    # name: (shape, RunConfig values, padding-free lean batches). LoRA without dropout:
    # its masks are drawn over the batch's shape, which padding-free batches change.
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
    "qwen2 sliding window padding-free": ("qwen2-sliding", {}, True),
    "gemma2 padding-free": ("gemma2", {}, True),
    "gemma2 padded": ("gemma2", {}, False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_lean_step_matches_trls_step(case, models, tmp_path, monkeypatch):
    """Every log record of 3 steps (2 rows a micro-batch, 2 micro-batches a step) as
    TRL's own step logs it. fp32: loss and entropy within rel 1e-5, grad_norm rel 1e-4
    (the two steps differ by 2e-7 at most on these shapes: float rounding),
    mean_token_accuracy abs 1e-6 (the same argmax everywhere), learning_rate,
    num_tokens, epoch and step exactly; the trained weights after 3 steps within
    rel 1e-3 / abs 1e-5 (Adam's normalised steps magnify rounding: up to 3.5e-4 of a
    tensor's largest weight seen). Then which attention the lean step took."""
    shape, values, padding_free = CASES[case]
    values = dict(values)
    data = _data_file(tmp_path, values.pop("data", "chat"))
    cfg = RunConfig.from_dict({
        "model_name_or_path": models[shape], "dataset_name": data, "max_steps": 3,
        "per_device_train_batch_size": 2, "gradient_accumulation_steps": 2,
        "max_length": 48, "learning_rate": 1e-3, "seed": 0, "sample_steps": 0,
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

    plain_logs = [r for r in plain.state.log_history if "loss" in r]
    lean_logs = [r for r in lean.state.log_history if "loss" in r]
    assert len(plain_logs) == len(lean_logs) == 3
    for a, b in zip(plain_logs, lean_logs):
        assert set(a) == set(b) >= {"loss", "grad_norm", "learning_rate", "entropy",
                                    "mean_token_accuracy", "num_tokens", "epoch", "step"}
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-5)
        assert b["grad_norm"] == pytest.approx(a["grad_norm"], rel=1e-4)
        assert b["entropy"] == pytest.approx(a["entropy"], rel=1e-5)
        assert b["mean_token_accuracy"] == pytest.approx(a["mean_token_accuracy"], abs=1e-6)
        for key in ("learning_rate", "num_tokens", "epoch", "step"):
            assert b[key] == a[key], key
    assert lean_logs[0]["loss"] != lean_logs[-1]["loss"]  # it trained
    trained = {n: p for n, p in plain.model.named_parameters() if p.requires_grad}
    for name, param in lean.model.named_parameters():
        if param.requires_grad:
            torch.testing.assert_close(param, trained[name], rtol=1e-3, atol=1e-5)

    # Which attention the lean step took: on sdpa, padding-free rows attend row by row,
    # but a layer with a sliding window shorter than the rows keeps transformers' sdpa
    # (its mask of the packed rows keeps the window); padded batches and eager models
    # (Gemma-2: sdpa cannot softcap) attend as transformers does.
    config = lean.model.config
    sdpa = config._attn_implementation == "sdpa"
    assert sdpa == (shape != "gemma2")
    window = bool(getattr(config, "sliding_window", None))
    assert {k: n > 0 for k, n in attention.calls.items()} == {
        "rows": sdpa and padding_free, "sdpa": sdpa and (not padding_free or window)}
