"""Real models on GPUs, on a machine without one: the listed models and their shipped
configs (sizes checked against a model built on the meta device), the plan of every
listed model on every target GPU (sane and monotone), the /plan target argument, and the
refusal of a run that clearly cannot fit a GPU."""
import dataclasses
import json
from pathlib import Path

import pytest
import torch

from sft_ui.config import ConfigError, RunConfig
from sft_ui.plan import catalog, memory, modes, oom, planner, speed, targets
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.shape import ModelShape, model_shape
from sft_ui.runs import RunError, RunManager

GIB = 2**30
EVERYTHING = frozenset({"bitsandbytes", "liger_kernel", "flash_attn"})
T4 = Hardware("cuda", "Tesla T4", 1, False, 15 * GIB, 8, EVERYTHING)
L4 = Hardware("cuda", "NVIDIA L4", 1, True, 22 * GIB, 8, EVERYTHING)
H100 = Hardware("cuda", "NVIDIA H100 80GB HBM3", 1, True, 80 * GIB, 16, frozenset())
CPU = Hardware("cpu", "test CPU", 1, False, 64 * GIB, 2, frozenset())
BF16_CPU = Hardware("cpu", "test CPU with AMX", 1, True, 64 * GIB, 2, frozenset())
LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
ROOT = Path(__file__).resolve().parents[2]


# ---- the picker ------------------------------------------------------------------
@pytest.mark.parametrize("model", catalog.MODELS, ids=lambda m: m.id)
def test_each_listed_model_ships_a_config_of_its_advertised_size(model):
    """Built from the shipped config.json on the meta device (no weights), each model has
    the parameters its card advertises (within 3%), and the planner counts the same."""
    from transformers import AutoConfig, AutoModelForCausalLM
    config = catalog.shipped_config(model.id)
    for key in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                "num_key_value_heads", "vocab_size", "tie_word_embeddings",
                "max_position_embeddings", "model_type", "torch_dtype", "rope_theta"):
        assert key in config, key
    with torch.device("meta"):
        built = AutoModelForCausalLM.from_config(AutoConfig.for_model(**config))
    counted = sum(p.numel() for p in built.parameters())
    assert abs(counted / model.params - 1) < 0.03, (counted, model.params)
    assert abs(ModelShape.from_config(config).params() / counted - 1) < 0.01
    assert model_shape(model.id).params() == ModelShape.from_config(config).params()


def test_the_picker_lists_size_licence_and_gating_and_takes_any_name():
    labels = dict((value, label) for label, value in catalog.choices())
    assert set(labels) >= {"Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-7B-Instruct",
                           "meta-llama/Llama-3.2-1B-Instruct", LLAMA_8B,
                           "google/gemma-2-2b-it", "HuggingFaceTB/SmolLM2-360M-Instruct"}
    assert labels[LLAMA_8B] == ("meta-llama/Llama-3.1-8B-Instruct · 8.0B · Llama 3.1 "
                                "Community License · gated: accept its licence on the Hub "
                                "and sign in")
    assert labels["Qwen/Qwen2.5-0.5B-Instruct"].endswith("· 490M · Apache-2.0")
    assert catalog.find("qwen/qwen2.5-1.5b-instruct").params == 1.54e9
    assert catalog.find("someone/own-model") is None and catalog.describe("x/y") == ""
    # The page's model field offers the list and keeps a typed Hub id or folder.
    from sft_ui.ui.widgets import make_widget
    widget = make_widget("model_name_or_path")
    assert widget.allow_custom_value and (labels[LLAMA_8B], LLAMA_8B) in widget.choices


def test_a_local_folder_is_read_even_with_a_listed_name(tmp_path, monkeypatch):
    """A folder named like a listed model is that folder, not the shipped config."""
    folder = tmp_path / "Qwen" / "Qwen2.5-0.5B-Instruct"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "intermediate_size": 16,
        "vocab_size": 10, "num_attention_heads": 2}))
    monkeypatch.chdir(tmp_path)
    assert model_shape("Qwen/Qwen2.5-0.5B-Instruct").hidden == 8


# ---- plans on target GPUs ------------------------------------------------------------
def _fits(model: str, target: str, **values) -> dict[str, modes.ModeFit]:
    cfg = RunConfig(model_name_or_path=model, max_length=1024, per_device_train_batch_size=4,
                    gradient_accumulation_steps=4, **values)
    hw, available, _ = targets.resolve(target)
    return {f.mode: f for f in modes.fit_modes(cfg, model_shape(model), hw, available)}


def test_every_listed_model_on_every_gpu_is_sane_and_monotone():
    """A bigger card never fits less: what fits a card fits every larger one, at no shorter
    max_length; each setup that fits is under 80% of the card and keeps the effective
    batch of 16."""
    by_size = sorted(targets.TARGETS, key=lambda t: t.memory_mib)
    for model in catalog.MODELS:
        plans = [_fits(model.id, t.key) for t in by_size]
        for mode in ("full", "lora", "qlora"):
            fits = [p[mode] for p in plans]
            for small, big, target in zip(fits, fits[1:], by_size):
                assert big.fits >= small.fits, (model.id, mode, target.key)
                if small.fits:
                    assert big.changes["max_length"] >= small.changes["max_length"]
            for f, target in zip(fits, by_size):
                if f.fits:
                    c = f.changes
                    assert c["per_device_train_batch_size"] * \
                        c["gradient_accumulation_steps"] == 16
                    assert f.memory <= memory.TIGHT * target.memory_mib * 2**20
                else:
                    assert f.memory > memory.TIGHT * target.memory_mib * 2**20, f
        # QLoRA's 4-bit base takes less memory than LoRA's 16-bit one, which takes less
        # than full fine-tuning: it fits wherever they fit.
        for p in plans:
            assert p["qlora"].fits >= p["lora"].fits >= p["full"].fits, model.id


def test_the_8b_model_on_16_gb():
    t4 = _fits(LLAMA_8B, "t4-small")
    assert not t4["full"].fits and not t4["lora"].fits
    assert t4["qlora"].fits and t4["qlora"].changes["load_in_4bit"]
    assert t4["qlora"].reason.startswith("batch ")
    assert not any(_fits(LLAMA_8B, t.key)["full"].fits for t in targets.TARGETS)
    for small in ("SmolLM2-135M", "SmolLM2-360M", "Qwen2.5-0.5B"):
        name = next(m.id for m in catalog.MODELS if small in m.id)
        assert _fits(name, "t4-small")["full"].fits, name


def test_targets_by_key_label_or_size():
    assert targets.find("") is None and targets.find("this machine") is None
    assert targets.find("T4-SMALL").memory_mib == 15360
    assert targets.find("Nvidia A100 large (80 GB)").key == "a100-large"
    custom = targets.find("48 GB")
    assert custom.memory_mib == 48 * 1024 and custom.bf16
    with pytest.raises(targets.TargetError, match="Unknown GPU to plan for: 'a toaster'"):
        targets.find("a toaster")


def test_plan_and_fit_for_a_target():
    cfg = RunConfig(model_name_or_path=LLAMA_8B, max_length=1024)
    p = planner.plan_with_data(cfg, target="t4-small")
    assert p["for_target"] and p["device"] == "cuda" and p["precision"] == "fp16"
    assert p["fit"] == "will not fit" and p["available_bytes"] == 15360 * 2**20
    assert p["best"] == "qlora" and [m["fits"] for m in p["modes"]] == [False, False, True]
    assert p["best_tokens_per_second"] is None  # nothing measured on a T4 here
    assert p["kernels"]["optim"]["value"] == "paged_adamw_8bit"
    new, text = planner.fit_to_target(cfg, "t4-small")
    assert new.use_peft and new.load_in_4bit and new.effective_batch() == 8
    assert text.startswith("QLoRA (4-bit base) on Nvidia T4 small (16 GB): batch ")
    # The fitted settings fit there, and the plan says so.
    assert planner.plan_with_data(new, target="t4-small")["fit"] in ("fits", "tight")
    # Fit keeps a way to train the settings ask for: LoRA is not traded for full.
    small = RunConfig(model_name_or_path="Qwen/Qwen2.5-0.5B-Instruct", use_peft=True)
    assert planner.fit_to_target(small, "h100")[0].use_peft
    assert not planner.fit_to_target(dataclasses.replace(small, use_peft=False), "h100")[
        0].use_peft
    with pytest.raises(ConfigError, match="Nothing fits A CUDA GPU with 1 GB"):
        planner.fit_to_target(RunConfig(model_name_or_path=LLAMA_8B), "1 GB")


def test_a_remembered_speed_on_that_gpu_is_the_expected_speed(monkeypatch):
    cfg = RunConfig(model_name_or_path="Qwen/Qwen2.5-0.5B-Instruct", max_length=1024)
    hw = targets.find("h100").hardware()
    best = planner.fit_to_target(cfg, "h100")[0]
    speed.remember(speed.speed_key(best, hw), {"tokens_per_second": 31000.0})
    p = planner.plan_with_data(cfg, target="h100")
    assert p["best"] == "full" and p["best_tokens_per_second"] == 31000.0


def test_plan_for_this_machine_lists_the_ways_to_train_too():
    p = planner.plan_with_data(RunConfig())
    assert not p["for_target"] and p["target"].startswith("this machine")
    named = planner.plan_with_data(RunConfig(), target=targets.THIS_MACHINE)  # the page's
    assert not named["for_target"] and named["memory"] == p["memory"]
    assert [m["mode"] for m in p["modes"]] == ["full", "lora", "qlora"]
    assert p["best"] == "full"  # SmolLM2-135M fits any machine that runs these tests
    if torch.cuda.is_available():
        return
    assert not p["modes"][2]["fits"] and "CUDA GPU" in p["modes"][2]["reason"]


def test_the_plan_endpoint_takes_a_target(live_app, connect):
    client = connect(live_app[0])
    p = client.predict({"model_name_or_path": LLAMA_8B}, "t4-small", api_name="/plan")
    assert p["target"] == "Nvidia T4 small (16 GB)" and p["best"] == "qlora"
    assert {m["mode"]: m["fits"] for m in p["modes"]} == {"full": False, "lora": False,
                                                           "qlora": True}
    here = client.predict({}, api_name="/plan")  # the target is optional
    assert not here["for_target"] and here["fit"] == "fits"
    with pytest.raises(Exception, match="Unknown GPU to plan for"):
        client.predict({}, "a toaster", api_name="/plan")


# ---- out of memory on a GPU ------------------------------------------------------
def test_a_run_that_clearly_cannot_fit_a_gpu_is_refused_with_the_fixes(tmp_path, monkeypatch):
    """On a GPU the estimate refuses a run well over the free memory before it starts,
    with the fixes a run that ran out of memory gets (QLoRA among them)."""
    cfg = RunConfig(model_name_or_path=LLAMA_8B, max_length=1024)
    problem = memory.memory_problem(cfg, T4, available=15 * GIB)
    assert problem.startswith("This run needs about ") and "Tesla T4 has 15.0 GiB free" in problem
    advice, _ = oom.out_of_memory_advice(cfg, T4)
    assert oom.fixes_text(cfg, T4) in problem and oom.fixes_text(cfg, T4) in advice
    assert "load the base model in 4 bits under the LoRA adapter (QLoRA" in problem
    fitted, _ = planner.fit_to_target(cfg, "t4-small")
    assert memory.memory_problem(fitted, T4, available=15 * GIB) is None
    # The manager refuses it before a run folder exists.
    from sft_ui.runs import manager as manager_module
    monkeypatch.setattr(manager_module, "memory_problem",
                        lambda c: memory.memory_problem(c, T4, available=15 * GIB))
    runs = RunManager(tmp_path / "runs", preflight=lambda c: None)
    with pytest.raises(RunError, match="it would run out of memory"):
        runs.start(cfg)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs a CUDA GPU (none on this machine)")


@needs_cuda
def test_on_this_gpu_a_run_that_cannot_fit_is_refused_before_its_folder(tmp_path):
    """Llama-3.1-8B's shape (its shipped config.json in a folder, no weights), fully
    fine-tuned at 4096 tokens: refused at Start with the fixes, no run folder written."""
    folder = tmp_path / "llama-8b"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(catalog.shipped_config(LLAMA_8B)))
    manager = RunManager(tmp_path / "runs")
    with pytest.raises(RunError, match="it would run out of memory. Try, in this order: 1."):
        manager.start({"model_name_or_path": str(folder), "max_length": 4096,
                       "per_device_train_batch_size": 8})
    assert not any((tmp_path / "runs").iterdir())


@needs_cuda
def test_plan_and_fit_on_this_gpu(tmp_path):
    """On this GPU (no target): the plan lists the ways to train against its free memory,
    and Fit picks one that fits it."""
    cfg = RunConfig(model_name_or_path="Qwen/Qwen2.5-0.5B-Instruct", max_length=1024)
    p = planner.plan_with_data(cfg)
    assert p["device"] == "cuda" and not p["for_target"] and p["best"] in ("full", "lora")
    assert p["kernels"]["optim"]["value"] == "adamw_torch_fused"
    new, text = planner.fit_to_target(cfg, "")
    assert planner.plan(new)["fit"] in ("fits", "tight"), text


def test_the_lora_row_names_the_base_as_it_loads_there():
    """LoRA's base loads in 16 bits only on a GPU in half precision: on a CPU (fp32) the
    row says so instead of "16-bit base"."""
    cfg = RunConfig()
    shape = memory.model_shape(cfg.model_name_or_path)
    assert modes.fit_mode(cfg, "lora", shape, CPU, 64 * GIB).label == "LoRA (fp32 base)"
    assert modes.fit_mode(cfg, "lora", shape, H100, 80 * GIB).label == "LoRA (16-bit base)"
    assert modes.fit_mode(cfg, "full", shape, CPU, 64 * GIB).label == "full fine-tuning"
