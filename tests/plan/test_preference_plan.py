"""The plan of a preference run (dpo, orpo, kto): the memory estimate by part on a
hand-sized model (two answers per example, the reference model and its forward pass
without gradients, the fused LM head of DPO and KTO), what the plan says the memory holds,
and the estimate against the peak of a real DPO training of the default model on this CPU,
with LoRA (the reference is the model with its adapter switched off) and with full
fine-tuning (a second, frozen copy of the model)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sft_ui.config import DEFAULT_MODEL_ID, RunConfig
from sft_ui.models import ModelError, resolve_model
from sft_ui.plan import calibration, memory, oom, planner
from sft_ui.plan.hardware import Hardware, detect

CPU = Hardware("cpu", "test CPU", 1, False, 64 * 2**30, 2)
GIB = 2**30
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """A config.json only: hidden 8, 2 layers, MLP 16, vocab 100, 2 heads of 4, 1 KV head."""
    folder = tmp_path_factory.mktemp("small-model")
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2,
        "intermediate_size": 16, "vocab_size": 100, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 4, "tie_word_embeddings": True}))
    return str(folder)


def config(model, stage="dpo", **values) -> RunConfig:
    return RunConfig.from_dict({"model_name_or_path": model, "stage": stage,
                                "dataset_name": "demo" if stage == "sft" else "demo-preference",
                                "per_device_train_batch_size": 2,
                                "gradient_accumulation_steps": 3, "max_length": 8,
                                "max_steps": 10, **values})


def test_preference_memory_by_part(small_model):
    shape = memory.model_shape(small_model)
    params, block = 1992, 16 * 8 + 4 * 16  # per token and block: 16 x hidden + 4 x MLP
    sft = memory.peak_memory(config(small_model, "sft"), shape, CPU)
    assert "reference" not in sft
    # DPO, full fine-tuning: chosen and rejected in one batch (twice SFT's activations), the
    # fused LM head's tile instead of the whole logits, and a second frozen fp32 copy of the
    # model beside the reference forward's one block at a time (2 x 8 tokens per example).
    dpo = memory.peak_memory(config(small_model), shape, CPU)
    assert {k: dpo[k] for k in ("weights", "gradients", "optimizer", "runtime")} == \
        {k: sft[k] for k in ("weights", "gradients", "optimizer", "runtime")}
    assert dpo["activations"] == 2 * sft["activations"]
    assert dpo["logits"] == int(2 * 2 * 8 * 100 * 4 * calibration.CPU.fused_tile_copies)
    assert dpo["reference"] == 4 * params + 2 * 2 * 8 * 4 * (block + 8)
    # LoRA: the reference is the model with the adapter switched off, no second copy.
    lora = memory.peak_memory(config(small_model, use_peft=True, lora_r=2), shape, CPU)
    assert lora["reference"] == 2 * 2 * 8 * 4 * (block + 8)
    # A Reference model setting loads a second copy with LoRA too.
    named = memory.peak_memory(config(small_model, use_peft=True, lora_r=2,
                                      ref_model="my-run/model"), shape, CPU)
    assert named["reference"] == lora["reference"] + 4 * params
    # ORPO: two answers per example and the whole logits, as SFTTrainer has; no reference.
    orpo = memory.peak_memory(config(small_model, "orpo"), shape, CPU)
    assert orpo["activations"] == dpo["activations"] and orpo["reference"] == 0
    assert orpo["logits"] == 2 * sft["logits"]
    # KTO: one answer per example; its reference (and KL batch) forward over one sequence.
    kto = memory.peak_memory(config(small_model, "kto"), shape, CPU)
    assert kto["activations"] == sft["activations"]
    assert kto["reference"] == 4 * params + 2 * 8 * 4 * (block + 8)
    # The fused LM head's tile holds at most 4096 positions by 32768 vocabulary entries.
    long = memory.peak_memory(config(small_model, max_length=4096), shape, CPU)
    assert long["logits"] == int(4096 * 100 * 4 * calibration.CPU.fused_tile_copies)
    # On a GPU a frozen LoRA base (and so a named reference) is in half precision.
    gpu = Hardware("cuda", "GPU", 1, True, GIB, 2)
    on_gpu = memory.peak_memory(config(small_model, use_peft=True, lora_r=2,
                                       ref_model="my-run/model"), shape, gpu)
    assert on_gpu["reference"] == 2 * params + 2 * 2 * 8 * 2 * (block + 8)


def test_the_plan_says_what_the_memory_holds(small_model, tmp_path):
    lora = planner.plan(config(small_model, use_peft=True, lora_r=2), CPU, available=GIB)
    assert lora["memory"]["total"] == sum(v for k, v in lora["memory"].items() if k != "total")
    assert lora["memory_notes"] == [
        "DPO: the chosen and the rejected answer of each example go through the model "
        "together, 4 sequences of up to 8 tokens (prompt and answer) per batch of 2.",
        "Reference model: the model with the new LoRA adapter switched off, no second copy; "
        "its forward pass runs without gradients."]
    assert not lora["padding_free"]  # the preference trainers pad their batches
    full = planner.plan(config(small_model), CPU, available=GIB)
    assert full["memory_notes"][1].startswith("Reference model: a second frozen copy of the "
                                              "starting weights (about ")
    named = planner.plan(config(small_model, ref_model="my-run/model"), CPU, available=GIB)
    assert named["memory_notes"][1].startswith("Reference model: my-run/model, a second "
                                               "frozen copy")
    assert planner.plan(config(small_model, "orpo"), CPU, available=GIB)["memory_notes"][1] \
        == "Reference model: none, ORPO needs none."
    # Continued from a finished LoRA run (an adapter folder): the plan says what the run's
    # log says, a frozen copy of that adapter.
    from sft_ui.train.preference import reference_description
    adapter = tmp_path / "run" / "model"
    adapter.mkdir(parents=True)
    (adapter / "adapter_config.json").write_text("{}")
    on_adapter = config(str(adapter), use_peft=True)
    notes = memory.memory_notes(on_adapter, memory.model_shape(small_model), CPU)
    assert notes[1].startswith("Reference model: " + reference_description(on_adapter)
                               .split(" (")[0] + ", no second model"), notes
    kto = planner.plan(config(small_model, "kto"), CPU, available=GIB)["memory_notes"]
    assert kto[0].startswith("KTO: each answer is an example of its own, 2 sequences")
    assert kto[1].startswith("A KL batch") and len(kto) == 3
    assert len(planner.plan(config(small_model, "kto", loss_type="apo_zero_unpaired"), CPU,
                            available=GIB)["memory_notes"]) == 2
    assert planner.plan(config(small_model, "sft"), CPU, available=GIB)["memory_notes"] == []


# One DPO training in a fresh process (the app's engine, as a run trains): its peak
# resident memory, sampled there every 10 ms (getrusage's ru_maxrss would start from the
# parent's size at fork).
MEASURE = """
import json, sys, tempfile, threading, time
from pathlib import Path
import psutil
sys.path.insert(0, {root!r})
peak, done = [0], threading.Event()
def sample():
    me = psutil.Process()
    while not done.is_set():
        peak[0] = max(peak[0], me.memory_info().rss)
        time.sleep(0.01)
threading.Thread(target=sample, daemon=True).start()
from sft_ui.config import RunConfig
from sft_ui.train.engine import train
from sft_ui.train.events import NullSink
train(RunConfig.from_dict(json.loads({cfg!r})), Path({out!r}), NullSink())
done.set()
print(json.dumps({{"peak": peak[0]}}))
"""


def measured_peak(cfg: RunConfig, out: Path) -> int:
    code = MEASURE.format(root=str(ROOT), cfg=json.dumps(cfg.to_dict()), out=str(out))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])["peak"]


@pytest.mark.parametrize("use_peft", [True, False], ids=["lora", "full"])
def test_dpo_estimate_within_20_percent_of_the_measured_peak(use_peft, tmp_path):
    """Two steps (the second runs with the optimizer state made in the first) on the demo
    preference pairs: at max_length 56 every chosen answer fills the sequence (its prompt
    and answer are 59 tokens or more), and the rejected ones are padded to it."""
    try:
        resolve_model(DEFAULT_MODEL_ID)
    except ModelError as e:
        pytest.skip(f"the default model is not here: {e}")
    cfg = RunConfig.from_dict({"stage": "dpo", "dataset_name": "demo-preference",
                               "use_peft": use_peft, "per_device_train_batch_size": 2,
                               "gradient_accumulation_steps": 1, "max_length": 56,
                               "max_steps": 2, "sample_steps": 0, "save_strategy": "no"})
    estimate = sum(memory.peak_memory(cfg, memory.model_shape(cfg.model_name_or_path),
                                      detect()).values())
    peak = measured_peak(cfg, tmp_path / "run")
    print(f"DPO {'LoRA' if use_peft else 'full fine-tuning'}, batch 2 x 56 tokens: "
          f"estimate {estimate / 1e6:,.0f} MB, measured {peak / 1e6:,.0f} MB, "
          f"ratio {estimate / peak:.2f}")
    assert 0.8 <= estimate / peak <= 1.2, (estimate, peak)


def test_a_named_reference_is_counted_at_its_own_size(tmp_path, tiny_model_dir):
    """The tiny model trained against the default model as its Reference model: the
    reference is counted once, at its own size (the default model's weights, not the
    tiny model's, not twice), and with it the estimate is near the measured peak, which
    it is not with the reference dropped. (The measured peak moves by a fifth from run to
    run on a busy machine, so doubling is caught by the reference's own size, not by the
    peak.)"""
    try:
        resolve_model(DEFAULT_MODEL_ID)
    except ModelError as e:
        pytest.skip(f"the default model is not here: {e}")
    cfg = RunConfig.from_dict({"model_name_or_path": tiny_model_dir, "stage": "dpo",
                               "ref_model": DEFAULT_MODEL_ID, "dataset_name": "demo-preference",
                               "use_peft": True, "per_device_train_batch_size": 2,
                               "gradient_accumulation_steps": 1, "max_length": 56,
                               "max_steps": 2, "sample_steps": 0, "save_strategy": "no"})
    parts = memory.peak_memory(cfg, memory.model_shape(tiny_model_dir), detect())
    estimate, reference = sum(parts.values()), parts["reference"]
    peak = measured_peak(cfg, tmp_path / "run")
    print(f"tiny model, the default model as reference: estimate {estimate / 1e6:,.0f} MB "
          f"(reference {reference / 1e6:,.0f} MB), measured {peak / 1e6:,.0f} MB")
    own = 4 * memory.model_shape(DEFAULT_MODEL_ID).params()  # its fp32 weights
    assert 0.9 * own <= reference <= 1.5 * own, (reference, own)  # once, at its own size
    assert reference > 10 * 4 * memory.model_shape(tiny_model_dir).params()
    assert 0.7 <= estimate / peak <= 1.3, (estimate, reference, peak)
    assert not 0.7 <= (estimate - reference) / peak <= 1.3, (estimate - reference, peak)


def test_the_plan_reads_the_stages_own_data_and_ignores_hidden_settings(tmp_path):
    """demo-preference and a local preference file are measured as the stage's trainer
    reads them (DPO: pairs, two sequences each; KTO: each answer an example), never
    through SFT's loader; settings the stage hides (packing, NEFTune, SFT's data format)
    change nothing."""
    from sft_ui.data.preference_demo import preference_demo_rows
    pairs = len(preference_demo_rows())
    dpo = planner.plan_with_data(RunConfig(stage="dpo", dataset_name="demo-preference",
                                           max_length=256))
    assert dpo["data_note"] == "" and dpo["data_rows"] == pairs
    assert dpo["padding"] and 0 < dpo["tokens_per_step_typical"] <= dpo["tokens_per_step"]
    kto = planner.plan_with_data(RunConfig(stage="kto", dataset_name="demo-preference",
                                           max_length=256))
    assert kto["data_rows"] == 2 * pairs
    by_epoch = planner.plan_with_data(RunConfig(stage="dpo", dataset_name="demo-preference",
                                                train_by="epochs", num_train_epochs=1.0))
    assert by_epoch["steps"] == -(-pairs // by_epoch["effective_batch"])
    rows = tmp_path / "pairs.jsonl"
    rows.write_text("".join(json.dumps({"prompt": f"Question {i}?", "chosen": "Yes. " * i,
                                        "rejected": "No."}) + "\n" for i in range(1, 9)))
    local = planner.plan_with_data(RunConfig(stage="orpo", dataset_name=str(rows)))
    assert local["data_note"] == "" and local["data_rows"] == 8 and local["padding"]
    hidden = planner.plan_with_data(RunConfig(stage="dpo", dataset_name="demo-preference",
                                              max_length=256, packing=True,
                                              neftune_noise_alpha=5.0,
                                              dataset_format="alpaca"))
    assert {k: hidden[k] for k in ("steps", "tokens_per_step_typical", "memory", "budget")} \
        == {k: dpo[k] for k in ("steps", "tokens_per_step_typical", "memory", "budget")}
    assert planner.plan_with_data(RunConfig())["data_note"] == ""


def test_fit_and_the_memory_advice_keep_the_stages_minimum_batch():
    """KTO compares answers within a batch: no fit and no out-of-memory fix proposes a
    batch of 1 for it; SFT may go down to 1."""
    from sft_ui.plan import modes
    kto = RunConfig(stage="kto", dataset_name="demo-preference", max_length=1024,
                    per_device_train_batch_size=8, gradient_accumulation_steps=1)
    shape, hw = memory.model_shape(kto.model_name_or_path), detect()
    tiny = 10 * 2**20  # nothing fits: the fit falls to the smallest batch it may take
    fitted, _ = planner.fit_to_machine(kto, hw, available=tiny)
    assert fitted.per_device_train_batch_size == 2
    sft, _ = planner.fit_to_machine(RunConfig(per_device_train_batch_size=8), hw,
                                    available=tiny)
    assert sft.per_device_train_batch_size == 1
    assert modes._batches(kto)[-1] == 2 and modes._batches(RunConfig(
        per_device_train_batch_size=8))[-1] == 1
    assert "even batch 2" in modes.fit_mode(kto, "full", shape, hw, tiny).reason
    at_two = RunConfig(stage="kto", dataset_name="demo-preference",
                       per_device_train_batch_size=2)
    assert not any("halve the batch" in text for text, _ in oom._fixes(at_two, hw))
    assert any("halve the batch" in text for text, _ in oom._fixes(
        RunConfig(per_device_train_batch_size=2), hw))
