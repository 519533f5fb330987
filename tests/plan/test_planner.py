"""The memory estimate and the plan on a hand-sized model, fitting a run to the machine,
the advice after running out of memory, the RAM guard, and /plan through the live app."""
import dataclasses
import json
import math
import time

import pytest
import torch

from sft_ui.config import ConfigError, RunConfig
from sft_ui.plan import calibration, memory, oom, planner, sample, speed
from sft_ui.plan.hardware import Hardware, detect
from sft_ui.runs import RunError, RunManager
from tests.conftest import HANG, wait_for

CPU = Hardware("cpu", "test CPU", 1, False, 64 * 2**30, 2)
GIB = 2**30


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """A config.json only: hidden 8, 2 layers, MLP 16, vocab 100, 2 heads of 4, 1 KV head."""
    folder = tmp_path_factory.mktemp("small-model")
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2,
        "intermediate_size": 16, "vocab_size": 100, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 4, "tie_word_embeddings": True}))
    return str(folder)


def config(model, **values) -> RunConfig:
    return RunConfig.from_dict({"model_name_or_path": model, "per_device_train_batch_size": 2,
                                "gradient_accumulation_steps": 3, "max_length": 8,
                                "max_steps": 10, **values})


def test_model_size_from_config_json(small_model):
    shape = memory.model_shape(small_model)
    # Per block: q 8x8, k 8x4, v 8x4, o 8x8, gate/up 8x16, down 16x8, two norms of 8.
    assert shape.params() == 2 * (64 + 32 + 32 + 64 + 3 * 128 + 16) + 100 * 8 + 8 == 1992
    # LoRA r=2 adds r x (in + out) per adapted layer.
    assert shape.adapter_params(2, "all-linear") == 2 * 2 * (16 + 12 + 12 + 16 + 3 * 24) == 512
    assert shape.adapter_params(2, "q_proj, v_proj") == 2 * 2 * (16 + 12) == 112


def test_memory_by_part(small_model):
    shape = memory.model_shape(small_model)
    tokens = 2 * 8  # batch x max_length
    full = memory.peak_memory(config(small_model), shape, CPU)
    assert full == {"weights": 1992 * 4, "gradients": 1992 * 4, "optimizer": 1992 * 8,
                    # 2 layers x (16 x hidden + 4 x intermediate) fp32 values per token
                    "activations": tokens * 2 * 4 * (16 * 8 + 4 * 16),
                    "logits": int(tokens * 100 * 4 * calibration.CPU.logit_copies),
                    "runtime": calibration.RUNTIME_BYTES}
    # Checkpointing keeps each layer's input and one layer's activations.
    ckpt = memory.peak_memory(config(small_model, activation_checkpointing=True), shape, CPU)
    assert ckpt["activations"] == tokens * (2 * 8 * 4 + 4 * (16 * 8 + 4 * 16))
    # LoRA: the base is frozen; 1.5 fp32 copies and masks of each adapted layer's input.
    lora = memory.peak_memory(config(small_model, use_peft=True, lora_r=2), shape, CPU)
    assert (lora["weights"], lora["gradients"], lora["optimizer"]) == \
        ((1992 + 512) * 4, 512 * 4, 512 * 8)
    assert lora["activations"] == tokens * round(2 * 4 * 192 + 2 * 1.5 * 5 * (6 * 8 + 16))
    # bf16 (native here, so "auto" takes it): bf16 weight copies, activations halved.
    gpu = Hardware("cuda", "GPU", 1, True, GIB, 2)
    bf16 = memory.peak_memory(config(small_model), shape, gpu)
    assert bf16["weights"] == 1992 * 6 and bf16["runtime"] == calibration.CUDA.runtime
    assert bf16["activations"] == round(full["activations"] // 2 *
                                        calibration.CUDA.activation_scale)
    # LoRA on a GPU keeps the frozen base in bf16; QLoRA its linear layers in 4 bits.
    lora = memory.peak_memory(config(small_model, use_peft=True, lora_r=2), shape, gpu)
    assert lora["weights"] == 1992 * 2 + 512 * 4
    qlora = memory.peak_memory(config(small_model, use_peft=True, lora_r=2, load_in_4bit=True),
                               shape, gpu)
    linear = 2 * (64 + 32 + 32 + 64 + 3 * 128)
    assert qlora["weights"] == round(calibration.NF4_BYTES * linear) + 2 * (1992 - linear) + 512 * 4
    # fp16 on a GPU without bf16 (auto): fp16 weight copies.
    t4 = Hardware("cuda", "T4", 1, False, GIB, 2)
    assert memory.peak_memory(config(small_model), shape, t4)["weights"] == 1992 * 6


def test_plan_tokens_fit_and_time(small_model, tmp_path, monkeypatch):
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    two = Hardware("cpu", "test CPU", 2, False, 64 * GIB, 2)
    cfg = config(small_model)
    p = planner.plan(cfg, two, available=GIB)
    assert p["effective_batch"] == 2 * 3 * 2 and p["tokens_per_step"] == 12 * 8
    assert p["steps"] == 10 and p["total_tokens"] == 10 * 96
    assert p["memory"]["total"] == sum(v for k, v in p["memory"].items() if k != "total")
    assert p["seconds_per_step"] is None and p["padding"] is None
    total = p["memory"]["total"]
    marks = [planner.plan(cfg, two, available=round(total / share))["fit"]
             for share in (0.5, 0.9, 1.5)]
    assert marks == ["fits", "tight", "will not fit"]
    # With the data: padding to each batch's longest row, and steps for epochs.
    data = sample.DataSample(lengths=(10, 2, 6, 6, 3), rows=10)
    p = planner.plan(config(small_model, train_by="epochs", num_train_epochs=2,
                            gradient_accumulation_steps=1), CPU, data, available=GIB)
    assert p["padding"]["padded_tokens"] == 16 + 12 + 3 and p["padding"]["tokens"] == 25
    assert p["steps"] == math.ceil(10 / 2) * 2
    # On a CPU the rows of a batch go end to end (train/lean.py): no padding is computed
    assert p["padding_free"] and p["tokens_per_step_typical"] == round(2 * 25 / 5)
    gpu = Hardware("cuda", "test GPU", 1, True, 16 * 2**30, 8)
    padded = planner.plan(config(small_model, train_by="epochs", num_train_epochs=2,
                                 gradient_accumulation_steps=1), gpu, data, available=GIB)
    assert not padded["padding_free"]
    assert padded["tokens_per_step_typical"] == round(2 * 31 / 5)  # effective batch x mean padded
    assert planner.plan(config(small_model, train_by="epochs"), CPU, available=GIB)["steps"] \
        is None
    # A remembered throughput gives the time per step.
    speed.speed_file().write_text(json.dumps(
        {speed.speed_key(cfg, CPU): {"tokens_per_second": 48.0}}))
    timed = planner.plan(cfg, CPU, available=GIB)
    assert timed["seconds_per_step"] == 2 * 3 * 8 / 48.0 and timed["seconds_total"] == 10.0


def test_the_plan_counts_the_rounds_of_sample_answers(small_model, tmp_path, monkeypatch):
    """A round every sample_steps and at the end (none a step or two before it), each as
    long as a run of these settings measured one (per new token): in the plan's time."""
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    cfg = config(small_model, max_steps=30, sample_steps=10, sample_max_new_tokens=48)
    assert planner.sample_rounds(cfg, 30) == 3  # 10, 20 and the end
    assert planner.sample_rounds(cfg, 11) == 1  # 10 is one step before the end
    assert planner.sample_rounds(cfg, 13) == 2
    assert planner.sample_rounds(config(small_model, sample_steps=0), 30) == 0
    speed.remember(speed.speed_key(cfg, CPU), {"tokens_per_second": 48.0})
    untimed = planner.plan(cfg, CPU, available=GIB)
    assert untimed["round_seconds"] is None and untimed["seconds_total"] == 30 * 1.0
    monkeypatch.setattr(speed, "detect", lambda: CPU)
    speed.remember_round(cfg, 6.0)  # a run's round of 48 tokens took 6 s
    p = planner.plan(dataclasses.replace(cfg, sample_max_new_tokens=96), CPU, available=GIB)
    assert p["round_seconds"] == 12.0 and p["seconds_total"] == 30 * 1.0 + 3 * 12.0
    from sft_ui.ui.plan_text import plan_markdown
    assert "30 steps with 3 rounds of sample answers (about 12 s each" in plan_markdown(p)


def test_a_run_remembers_its_round_of_answers(tiny_cfg, tmp_path):
    from sft_ui.train.engine import train
    from sft_ui.train.events import NullSink
    cfg = RunConfig.from_dict({**tiny_cfg, "max_steps": 2, "sample_steps": 1,
                               "sample_max_new_tokens": 4})
    train(cfg, tmp_path / "run", NullSink())
    assert speed.round_seconds(cfg) > 0
    assert speed.round_seconds(dataclasses.replace(cfg, sample_max_new_tokens=8)) == \
        pytest.approx(2 * speed.round_seconds(cfg))


def test_padding_and_packing():
    pad = sample.padding([10, 2, 6, 6, 3], batch=2, max_length=8)
    assert (pad["tokens"], pad["padded_tokens"], pad["packed_sequences"]) == (25, 31, 4)
    assert pad["waste"] == pytest.approx(6 / 31)
    assert sample.padding([5, 5], 2, 8)["waste"] == 0


def test_fit_to_machine_keeps_the_effective_batch(small_model):
    shape = memory.model_shape(small_model)

    def need(batch):
        return sum(memory.peak_memory(config(small_model, per_device_train_batch_size=batch,
                                         max_length=512), shape, CPU).values())
    room_for_2 = math.ceil(need(2) / memory.TIGHT)
    new, text = planner.fit_to_machine(config(small_model, per_device_train_batch_size=8,
                                              gradient_accumulation_steps=1, max_length=512),
                                       CPU, available=room_for_2)
    assert (new.per_device_train_batch_size, new.gradient_accumulation_steps) == (2, 4)
    assert "stays 8" in text and new.max_length == 512
    # 6 does not fit, 4 does: the nearest effective batch above 6 that 4 divides is 8.
    new, text = planner.fit_to_machine(config(small_model, per_device_train_batch_size=6,
                                              gradient_accumulation_steps=1, max_length=512),
                                       CPU, available=math.ceil(need(4) / memory.TIGHT))
    assert (new.per_device_train_batch_size, new.gradient_accumulation_steps) == (4, 2)
    assert "becomes 8 instead of 6" in text
    # Plenty of room: a larger batch, less accumulation.
    new, _ = planner.fit_to_machine(config(small_model, per_device_train_batch_size=1,
                                           gradient_accumulation_steps=8), CPU, available=GIB)
    assert (new.per_device_train_batch_size, new.gradient_accumulation_steps) == (8, 1)
    new, text = planner.fit_to_machine(config(small_model), CPU, available=1000)
    assert new.per_device_train_batch_size == 1 and text.startswith("Even batch 1")
    with pytest.raises(ConfigError, match="must be at least 1"):
        planner.fit_to_machine(config(small_model, per_device_train_batch_size=0), CPU)


def test_out_of_memory_marks_the_run_failed_with_a_suggestion(tmp_path):
    def out_of_memory(cfg, run_dir, sink, resume_from=None):
        sink.progress(1, cfg.max_steps)
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    manager = RunManager(tmp_path / "runs", trainer=out_of_memory, preflight=lambda cfg: None)
    run_id = manager.start({"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2,
                            "max_steps": 5})
    snap = wait_for(lambda: (lambda s: s if s["state"] == "failed" else None)(
        manager.get(run_id).snapshot()), timeout=HANG)
    assert snap["error"].startswith("Out of memory at step 1. Try, in this order: 1. halve")
    assert snap["error"].index("max_length") < snap["error"].index("activation checkpointing") \
        < snap["error"].index("LoRA")
    fix = {"per_device_train_batch_size": 2, "gradient_accumulation_steps": 4}
    assert snap["suggestion"] == fix
    state = json.loads((tmp_path / "runs" / run_id / "state.json").read_text())
    assert state["suggestion"] == fix
    assert RunManager(tmp_path / "runs").get(run_id).suggestion == fix  # after a restart
    # Fixes already in place are skipped; 4 bits only on a GPU.
    gpu = Hardware("cuda", "GPU", 1, True, GIB, 2)
    text, changes = oom.out_of_memory_advice(
        RunConfig(per_device_train_batch_size=1, activation_checkpointing=True, use_peft=True),
        gpu)
    assert changes == {"max_length": 128} and "4 bits" in text and "halve" not in text


def test_ram_guard_refuses_an_impossible_run_before_its_folder(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path / "runs")
    with pytest.raises(RunError, match=r"needs about [\d.]+ TiB .* has [\d.]+ GiB available"):
        manager.start({**tiny_cfg, "max_length": 131072, "per_device_train_batch_size": 1024})
    assert list((tmp_path / "runs").iterdir()) == []
    assert manager.active() is None
    huge = RunConfig.from_dict({**tiny_cfg, "max_length": 131072})
    gpu = Hardware("cuda", "GPU", 1, True, 8 * GIB, 2)
    # On a GPU a run clearly above the free memory is refused too (tests/plan/test_gpu_plan.py).
    assert "it would run out of memory" in memory.memory_problem(huge, gpu, available=8 * GIB)
    assert memory.memory_problem(RunConfig.from_dict(tiny_cfg), gpu, available=8 * GIB) is None


def test_measure_speed_on_the_tiny_model(tiny_cfg, tmp_path, monkeypatch):
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    cfg = RunConfig.from_dict(tiny_cfg)
    assert speed.measured_speed(cfg) is None
    start = time.time()
    tokens_per_second = speed.calibrate(cfg, steps=2)
    assert tokens_per_second > 0 and time.time() - start < 30
    assert speed.measured_speed(cfg) == tokens_per_second
    assert planner.plan(cfg)["seconds_per_step"] == pytest.approx(2 * 64 / tokens_per_second)


def test_plan_through_the_live_app(live_app, tiny_cfg, connect):
    client = connect(live_app[0])
    p = client.predict({**tiny_cfg, "gradient_accumulation_steps": 3}, api_name="/plan")
    assert p["effective_batch"] == 6 and p["tokens_per_step"] == 6 * 64
    assert p["fit"] == "fits" and p["seconds_per_step"] is None
    parts = {k: v for k, v in p["memory"].items() if k != "total"}
    assert set(parts) == {"weights", "gradients", "optimizer", "activations", "logits",
                          "runtime"} and p["memory"]["total"] == sum(parts.values())
    assert p["data_rows"] == 248 and 0 <= p["padding"]["waste"] < 1
    with pytest.raises(Exception, match=r"per_device_train_batch_size\) must be at least 1"):
        client.predict({**tiny_cfg, "per_device_train_batch_size": 0}, api_name="/plan")


def test_defaults_fit_the_free_cpu_space():
    """Hugging Face's free CPU Space: 2 vCPU, 16 GB, of which the app itself (Gradio,
    torch, a chat model) keeps about 2 GiB."""
    space = Hardware("cpu", "free CPU Space (2 vCPU)", 1, False, 16 * 10**9, 2)
    p = planner.plan(RunConfig(), space, available=16 * 10**9 - 2 * GIB)
    assert p["fit"] == "fits", p["memory"]
    assert p["memory"]["total"] < 0.5 * (16 * 10**9 - 2 * GIB)
    assert (p["device"], p["precision"], p["effective_batch"]) == ("cpu", "fp32", 8)
    # Fitting to that machine keeps the effective batch the defaults ask for.
    new, text = planner.fit_to_machine(RunConfig(), space, available=16 * 10**9 - 2 * GIB)
    assert new.per_device_train_batch_size * new.gradient_accumulation_steps == 8, text


def test_precision_and_what_this_machine_cannot_run(tmp_path, tiny_cfg):
    from sft_ui.plan.hardware import precision, speedups, unsupported
    h100, t4 = Hardware("cuda", "H100", 1, True, GIB, 2), Hardware("cuda", "T4", 1, False, GIB, 2)
    bf16_cpu = Hardware("cpu", "CPU", 1, True, GIB, 2)
    assert [precision(None, None, hw) for hw in (h100, t4, CPU, bf16_cpu)] == \
        ["bf16", "fp16", "fp32", "bf16"]
    assert precision(False, None, h100) == "fp32" and precision(None, True, h100) == "fp16"
    assert precision(None, False, t4) == "fp32" and precision(True, None, CPU) == "bf16"
    four_bit = RunConfig(use_peft=True, load_in_4bit=True)
    assert "a CUDA GPU is needed" in unsupported(four_bit, CPU)[0]
    assert "has no bf16" in unsupported(RunConfig(bf16=True), t4)[0]
    assert "fp16" in unsupported(RunConfig(fp16=True), CPU)[0]
    assert "Liger" in unsupported(RunConfig(use_liger_kernel=True), CPU)[0]
    assert unsupported(RunConfig(), CPU) == unsupported(RunConfig(bf16=True), h100) == []
    # What the page says of the optional speed-ups here.
    assert speedups(CPU) == ["QLoRA (a 4-bit base) and Liger kernels need a CUDA GPU: this "
                             "machine has none."]
    assert [line.split(":")[0] for line in speedups(h100)] == \
        ["Load the base in 4 bits (QLoRA)", "Liger kernels"]
    assert "turn on Use LoRA" in " ".join(RunConfig(load_in_4bit=True).validate())
    assert "both on" in " ".join(RunConfig(bf16=True, fp16=True).validate())
    # Refused before a run folder exists, with the reason (this machine has no GPU).
    if detect().device == "cpu":
        manager = RunManager(tmp_path / "runs")
        with pytest.raises(ConfigError, match="QLoRA.: a CUDA GPU is needed"):
            manager.start({**tiny_cfg, "use_peft": True, "load_in_4bit": True})
        assert not any((tmp_path / "runs").iterdir())


def test_out_of_memory_raised_inside_training_fails_the_run_with_the_fixes(
        tmp_path, tiny_cfg, monkeypatch):
    """The real engine on the tiny model; a callback raises PyTorch's out-of-memory error
    (what CUDA raises) at step 2: the run fails with the fixes, and the next one trains."""
    from sft_ui.train.callbacks import StudioCallback
    original = StudioCallback.on_step_end

    def out_of_memory(self, args, state, control, **kwargs):
        result = original(self, args, state, control, **kwargs)
        if state.global_step == 2:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.00 GiB")
        return result
    monkeypatch.setattr(StudioCallback, "on_step_end", out_of_memory)
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "max_steps": 4, "sample_steps": 0})
    snap = wait_for(lambda: (lambda s: s if s["state"] not in ("queued", "running") else None)(
        manager.get(run_id).snapshot()), timeout=HANG)
    assert snap["state"] == "failed" and snap["step"] == 2
    assert snap["error"].startswith("Out of memory at step 2. Try, in this order: 1. halve")
    assert snap["suggestion"] == {"per_device_train_batch_size": 1,
                                  "gradient_accumulation_steps": 2}
    assert "OutOfMemoryError" in (tmp_path / "runs" / run_id / "train.log").read_text()
    monkeypatch.setattr(StudioCallback, "on_step_end", original)
    run_id = manager.start({**tiny_cfg, **snap["suggestion"], "sample_steps": 0})
    assert wait_for(lambda: manager.get(run_id).state in ("done", "failed")) and \
        manager.get(run_id).state == "done"


def test_the_plans_words_agree_with_each_other_on_a_cpu():
    """On this CPU: the padding line and the kernels' row say the same (the lean step's
    batches are padding-free), QLoRA's row says why it cannot train here without telling
    to turn off a setting that is off, and the speed line names no GPU; the plan line's
    time says "about" once."""
    from sft_ui.plan import kernels
    from sft_ui.ui.plan_text import plan_line
    from sft_ui.ui.target_plan import modes_markdown
    p = planner.plan_with_data(RunConfig())
    if p["device"] != "cpu":
        pytest.skip("the words of a CPU's plan")
    assert p["padding_free"] and p["kernels"]["padding_free"]["value"] is True
    qlora = next(m for m in p["modes"] if m["mode"] == "qlora")
    assert not qlora["fits"] and "CUDA GPU" in qlora["reason"]
    assert "Turn it off" not in qlora["reason"]
    text = modes_markdown({**p, "best_tokens_per_second": None})
    assert "padding-free batching: **on**" in text and "GPU and setup" not in text
    assert f"not measured for this model and setup on {p['target']} yet" in text
    assert "about about" not in plan_line({**p, "seconds_total": 100})
    cpu = Hardware("cpu", "test CPU", 1, False, 64 * 2**30, 2)
    assert not kernels.lean_pads_nothing(RunConfig(packing=True), cpu)
    assert not kernels.lean_pads_nothing(RunConfig(stage="dpo",
                                                   dataset_name="demo-preference"), cpu)
