"""The CUDA paths on a tiny model: bf16 and fp16 mixed precision with fused AdamW, a LoRA
base kept in half precision, QLoRA (4-bit base), Liger kernels, and a real CUDA
out-of-memory error raised inside training. Skipped, with the reason, without a GPU (and
QLoRA and Liger without their packages)."""
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from sft_ui.config import RunConfig
from sft_ui.plan import loading, memory, planner, speed
from sft_ui.plan.hardware import detect, installed
from sft_ui.runs import RunManager
from sft_ui.train import engine
from tests.conftest import HANG, wait_for

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs a CUDA GPU (none on this machine)")
needs_bnb = pytest.mark.skipif(not installed("bitsandbytes"),
                               reason="QLoRA needs the bitsandbytes package")
needs_liger = pytest.mark.skipif(not installed("liger_kernel"),
                                 reason="Liger kernels need the liger-kernel package")


def _finished(manager, run_id):
    return wait_for(lambda: (lambda s: s if s["state"] not in ("queued", "running") else None)(
        manager.get(run_id).snapshot()), timeout=HANG)


def _run(tmp_path, cfg, steps=3, **extra):
    """Train cfg (+ extra) to the end; the finished snapshot and the trainer's arguments."""
    seen = {}
    original = engine.sft_config

    def spy(*args, **kwargs):
        seen["args"] = original(*args, **kwargs)
        return seen["args"]
    engine.sft_config = spy
    try:
        manager = RunManager(tmp_path / "runs")
        snap = _finished(manager, manager.start({**cfg, "max_steps": steps, **extra}))
    finally:
        engine.sft_config = original
    assert snap["state"] == "done", snap["error"]
    losses = [m["loss"] for m in snap["metrics"] if "loss" in m]
    assert len(losses) == steps and all(0 < l < 100 for l in losses), losses
    assert {s["step"] for s in snap["samples"]} >= {0, steps}
    return snap, seen["args"]


def _changed(before_dir, after_dir, name="model.safetensors"):
    before = load_file(Path(before_dir) / "model.safetensors")
    after = load_file(Path(after_dir) / name)
    return [k for k in after if k in before and not torch.equal(before[k], after[k].to(
        before[k].dtype))]


def test_auto_precision_on_this_gpu_trains_full_weights(tmp_path, tiny_cfg):
    snap, args = _run(tmp_path, tiny_cfg)
    mixed = "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    assert (args.bf16, args.fp16) == (mixed == "bf16", mixed == "fp16")
    assert args.optim == "adamw_torch_fused" and not args.use_cpu
    assert len(_changed(tiny_cfg["model_name_or_path"], snap["model_dir"])) > 5
    log = (Path(snap["run_dir"]) / "train.log").read_text()
    assert f", {mixed}, full fine-tuning" in log


def test_fp16_with_loss_scaling_trains(tmp_path, tiny_cfg):
    # The loss scaler starts high and skips the steps whose gradients overflow, halving
    # its scale each time: some steps pass before the weights move.
    snap, args = _run(tmp_path, tiny_cfg, steps=12, bf16=False, fp16=True)
    assert args.fp16 and not args.bf16
    assert _changed(tiny_cfg["model_name_or_path"], snap["model_dir"])


def test_lora_keeps_the_frozen_base_in_half_precision(tmp_path, tiny_cfg):
    cfg = RunConfig.from_dict({**tiny_cfg, "use_peft": True})
    options = loading.load_options(cfg)
    assert options["dtype"] in (torch.bfloat16, torch.float16)
    assert options["device_map"] == {"": 0}
    snap, _ = _run(tmp_path, tiny_cfg, use_peft=True)
    adapter = load_file(Path(snap["model_dir"]) / "adapter_model.safetensors")
    assert adapter and all(t.dtype == torch.float32 for t in adapter.values())


@needs_bnb
def test_qlora_trains_an_adapter_on_a_4bit_base(tmp_path, tiny_cfg):
    import bitsandbytes as bnb

    from sft_ui.models import load_model_and_tokenizer
    cfg = RunConfig.from_dict({**tiny_cfg, "use_peft": True, "load_in_4bit": True})
    model, _ = load_model_and_tokenizer(tiny_cfg["model_name_or_path"],
                                        **loading.load_options(cfg))
    four_bit = [m for m in model.modules() if isinstance(m, bnb.nn.Linear4bit)]
    assert len(four_bit) == 14  # 2 layers x 7 projections
    del model
    snap, _ = _run(tmp_path, tiny_cfg, use_peft=True, load_in_4bit=True)
    config = json.loads((Path(snap["model_dir"]) / "adapter_config.json").read_text())
    assert config["peft_type"] == "LORA"
    log = (Path(snap["run_dir"]) / "train.log").read_text()
    assert "QLoRA (4-bit base)" in log


@needs_liger
def test_liger_kernels_train_and_the_model_then_answers_on_the_gpu(tmp_path, tiny_cfg):
    """Liger patches the process's model classes with Triton kernels (CUDA tensors only):
    the trained model and its base then answer in Chat on the GPU, in half precision."""
    from sft_ui.chat import ChatService, GenSettings
    snap, args = _run(tmp_path, tiny_cfg, use_liger_kernel=True)
    assert args.use_liger_kernel
    assert "Liger kernels on" in (Path(snap["run_dir"]) / "train.log").read_text()
    run_id = Path(snap["run_dir"]).name
    chat = ChatService(RunManager(tmp_path / "runs"))
    for ref in (run_id, f"{run_id}/base"):
        assert list(chat.stream("What is 2 plus 3?", [], ref, GenSettings(max_new_tokens=4)))
        model = chat.load(ref)[0]
        assert model.device.type == "cuda" and model.dtype in (torch.bfloat16, torch.float16)


def test_cuda_out_of_memory_fails_the_run_frees_the_gpu_and_the_next_run_trains(
        tmp_path, tiny_cfg, monkeypatch):
    """A real CUDA allocation failure inside the training loop (a callback asking for far
    more than the GPU has): the run fails with the fixes in order, the GPU memory comes back,
    and the next run trains."""
    from sft_ui.train.callbacks import StudioCallback
    torch.cuda.synchronize()
    before, free = torch.cuda.memory_allocated(), torch.cuda.mem_get_info()[0]
    original = StudioCallback.on_step_end

    def greedy(self, args, state, control, **kwargs):
        result = original(self, args, state, control, **kwargs)
        if state.global_step == 2:
            torch.empty(2 * free, dtype=torch.uint8, device="cuda")
        return result
    monkeypatch.setattr(StudioCallback, "on_step_end", greedy)
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "max_steps": 5, "sample_steps": 0})
    snap = _finished(manager, run_id)
    assert snap["state"] == "failed", snap["message"]
    assert snap["error"].startswith("Out of memory at step 2. Try, in this order: 1. halve")
    assert "4 bits" in snap["error"]
    assert snap["suggestion"] == {"per_device_train_batch_size": 1,
                                  "gradient_accumulation_steps": 2}
    after = torch.cuda.memory_allocated()
    assert after <= before + 2**20, f"the failed run's tensors stayed: {before} -> {after} bytes"
    monkeypatch.setattr(StudioCallback, "on_step_end", original)
    snap = _finished(manager, manager.start({**tiny_cfg, "max_steps": 2, "sample_steps": 0}))
    assert snap["state"] == "done", snap["error"]


def test_planner_on_the_gpu(tiny_cfg, tmp_path, monkeypatch):
    """The plan counts GPU memory, and Measure speed times real CUDA steps."""
    monkeypatch.setenv("SFT_UI_CACHE", str(tmp_path))
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    hw = detect()
    cfg = RunConfig.from_dict({**tiny_cfg, "use_peft": True})
    result = planner.plan(cfg)
    assert result["device"] == "cuda" and result["precision"] in ("bf16", "fp16")
    assert 0 < result["available_bytes"] <= hw.memory_bytes
    full = memory.weight_bytes(RunConfig.from_dict(tiny_cfg),
                               memory.model_shape(tiny_cfg["model_name_or_path"]), hw)
    assert result["memory"]["weights"] < full  # the LoRA base is half precision here
    assert speed.calibrate(cfg) > 0
    assert planner.plan(cfg)["seconds_per_step"] > 0
