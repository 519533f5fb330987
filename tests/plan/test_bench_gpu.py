"""scripts/bench_gpu.py's parts that need no GPU: its arguments, configs and random-weight
model folders, and its trainings (scripts/bench_gpu_train.py) on a CPU with the tiny model."""
import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import torch

from sft_ui.plan import catalog
from tests.plan.test_gpu_plan import ROOT


# ---- the GPU benchmark's parts without a GPU ---------------------------------------
def _bench(name="bench_gpu"):
    spec = importlib.util.spec_from_file_location(name, ROOT / f"scripts/{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_bench_gpu_arguments_and_configs_without_a_gpu(tmp_path, capsys, tiny_model_dir):
    bench = _bench()
    args = bench.parse_args(["--only", "qwen-0.5b-full,llama-8b-qlora", "--steps", "4",
                             "--length", "256", "--out", str(tmp_path / "gpu.json")])
    cases = bench.selected(args)
    assert [c.key for c in cases] == ["qwen-0.5b-full", "llama-8b-qlora"]
    assert {c.key for c in bench.CASES} == {"qwen-0.5b-full", "qwen-1.5b-lora",
                                            "llama-3b-lora", "llama-8b-qlora"}
    for case in bench.CASES:
        cfg = bench.run_config(case, args, tmp_path / "data.jsonl")
        assert cfg.max_length == 256 and cfg.max_steps == 4 and not cfg.validate()
        assert (cfg.use_peft, cfg.load_in_4bit) == {"full": (False, False),
                                                     "lora": (True, False),
                                                     "qlora": (True, True)}[case.mode]
        folder = bench.random_model_folder(case.model, tmp_path / "models", tiny_model_dir)
        config = json.loads((folder / "config.json").read_text())
        assert config == catalog.shipped_config(case.model)
        assert (folder / "tokenizer.json").exists()
        assert bench.flops_per_token(dataclasses.replace(cfg, model_name_or_path=str(
            folder)), 256) > (4 if cfg.use_peft else 6) * 0.9 * catalog.find(case.model).params
    rows = bench.write_data(tmp_path / "data.jsonl", rows=8, length=256)
    assert rows == 8 and len((tmp_path / "data.jsonl").read_text().splitlines()) == 8
    if not torch.cuda.is_available():
        assert bench.main(["--out", str(tmp_path / "gpu.json")]) == 0
        out = capsys.readouterr().out
        assert "Skipped: no CUDA GPU on this machine" in out
        assert not (tmp_path / "gpu.json").exists()


def test_bench_gpu_trains_each_system_on_the_tiny_model(tmp_path, tiny_model_dir):
    """The bench's trainings themselves (scripts/bench_gpu_train.py), on a CPU with the tiny
    model: the studio's engine and the bare TRL script log a speed and a peak; Unsloth,
    absent here, says why. One of them through its command line, as the bench runs it."""
    bench, one = _bench(), _bench("bench_gpu_train")
    data = tmp_path / "rows.jsonl"
    bench.write_data(data, rows=16, length=64)
    args = bench.parse_args(["--steps", "4", "--length", "64"])
    for case in (bench.CASES[0], bench.CASES[1]):  # full, LoRA
        cfg = bench.run_config(case, args, data, tiny_model_dir)
        cfg = dataclasses.replace(cfg, per_device_train_batch_size=2,
                                  gradient_accumulation_steps=1)
        for system in ("studio", "trl"):
            got = one.train_once(system, cfg.to_dict())
            assert got.get("tokens_per_second", 0) > 0 and got["peak"] > 2**20, (system, got)
    got = bench.measure_system("trl", cfg)
    assert got.get("tokens_per_second", 0) > 0, got
    if importlib.util.find_spec("unsloth") is None:
        assert one.train_once("unsloth", cfg.to_dict())["error"].startswith(
            "unsloth does not import")
    # Random weights from a config, saved once (on the GPU there; on this CPU here).
    folder = tmp_path / "random"
    folder.mkdir()
    (folder / "config.json").write_text((Path(tiny_model_dir) / "config.json").read_text())
    bench.materialize(folder, device="cpu")
    from safetensors.torch import load_file
    weights = load_file(folder / "model.safetensors")
    assert weights and all(w.dtype == torch.bfloat16 for w in weights.values())
