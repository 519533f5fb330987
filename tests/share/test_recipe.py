"""Reproduce and scale out: the YAML TRL's own parser reads, the generated script
trains, the headless CLI writes a run the app lists, and two processes under
accelerate train one shared run."""
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from sft_ui.cli import train_from_file
from sft_ui.config import ConfigError, RunConfig
from sft_ui.plan.hardware import detect
from sft_ui.runs import RunManager
from sft_ui.share import recipe
from tests.conftest import HANG, run_group

ROOT = Path(__file__).resolve().parents[2]
PC_ROWS = [{"prompt": f"Question {i}: what is {i} plus {i}?", "completion": f" {2 * i}."}
           for i in range(12)]


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _tiny(tiny_model_dir, **extra) -> RunConfig:
    return RunConfig.from_dict({"model_name_or_path": tiny_model_dir, "max_steps": 2,
                                "per_device_train_batch_size": 2,
                                "gradient_accumulation_steps": 1, "max_length": 64,
                                "sample_steps": 0, "learning_rate": 1e-3, **extra})


def test_yaml_is_read_by_trls_own_parser_and_by_the_studio(tmp_path):
    from trl.scripts.sft import make_parser
    cfg = RunConfig(train_by="epochs", num_train_epochs=2.5, per_device_train_batch_size=3,
                    gradient_accumulation_steps=5, learning_rate=3e-5, packing=True,
                    neftune_noise_alpha=5, save_steps=20, save_total_limit=2, use_peft=True,
                    lora_r=8, lora_target_modules="q_proj,v_proj", dataset_test_split="test",
                    eval_steps=7, warmup_steps=0.1, sample_prompts=["Hi"], load_in_4bit=True,
                    use_liger_kernel=True)
    path = tmp_path / "sft.yaml"
    path.write_text(recipe.to_yaml(cfg))
    script, train, model, _ = make_parser().parse_args_and_config(
        ["--config", str(path), "--output_dir", str(tmp_path / "out")],
        fail_with_unknown_args=False)
    assert (train.per_device_train_batch_size, train.gradient_accumulation_steps,
            train.max_steps, train.num_train_epochs, train.learning_rate) == (3, 5, -1, 2.5, 3e-5)
    assert (train.packing, train.neftune_noise_alpha, train.save_steps,
            train.save_total_limit, train.eval_steps, train.warmup_steps) == \
        (True, 5, 20, 2, 7, 0.1)
    assert train.eval_strategy == "steps" and script.dataset_test_split == "test"
    assert (model.use_peft, model.lora_r, model.lora_target_modules, model.load_in_4bit) == \
        (True, 8, ["q_proj", "v_proj"], True)
    assert train.use_liger_kernel and train.bf16 == (detect().bf16)
    assert "BitsAndBytesConfig(load_in_4bit=True" in recipe.python_script(cfg)
    assert script.dataset_name == "demo" and model.model_name_or_path == cfg.model_name_or_path
    # The command line form parses to the same settings.
    command = recipe.trl_command(cfg).split("\ntrl sft", 1)[1].replace("\\\n", " ")
    _, train_cli, model_cli, _ = make_parser().parse_args_and_config(
        shlex.split(command) + ["--output_dir", str(tmp_path / "out")])
    assert train_cli.to_dict() == {**train.to_dict(), "output_dir": train_cli.output_dir}
    assert model_cli.lora_target_modules == ["q_proj", "v_proj"]
    loaded = RunConfig.from_yaml(path)
    assert recipe.trl_values(loaded) == recipe.trl_values(cfg)
    assert recipe.studio_values(loaded) == recipe.studio_values(cfg)


def test_unknown_and_invalid_fields_give_readable_messages(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("batch: 3\nmax_steps: lots\nlearning_rate: 1e-4\n")
    with pytest.raises(ConfigError) as e:
        RunConfig.from_yaml(path)
    text = " ".join(e.value.messages)
    assert "Unknown setting 'batch'" in text and "max_steps) must be a whole number" in text
    path.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        RunConfig.from_yaml(path)
    path.write_text("max_steps: [1\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        RunConfig.from_yaml(path)


@pytest.mark.parametrize("fmt", ["prompt/completion", "template"])
def test_generated_script_trains_the_tiny_model(tmp_path, tiny_model_dir, fmt):
    if fmt == "template":
        data = tmp_path / "qa.csv"
        data.write_text("question,answer\n" + "".join(f"q{i},a{i}\n" for i in range(8)))
        cfg = _tiny(tiny_model_dir, dataset_name=str(data), dataset_format="template",
                    dataset_template="Q: {question}\nA: {answer}")
    else:
        cfg = _tiny(tiny_model_dir, dataset_name=_write_jsonl(tmp_path / "pc.jsonl", PC_ROWS),
                    use_peft=True, lora_r=4, lora_alpha=8, eval_fraction=0.25, eval_steps=1)
    script = tmp_path / "train.py"
    out = tmp_path / "out"
    script.write_text(recipe.python_script(cfg, output_dir=str(out)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=HANG, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'loss'" in done.stdout, done.stdout[-2000:]
    weights = "adapter_model.safetensors" if cfg.use_peft else "model.safetensors"
    assert (out / weights).exists()
    if cfg.eval_fraction:
        assert "'eval_loss'" in done.stdout


def test_cli_run_appears_in_the_apps_history(tmp_path, tiny_model_dir, capsys):
    cfg = _tiny(tiny_model_dir, max_steps=3, sample_steps=3, sample_max_new_tokens=4)
    path = tmp_path / "sft.yaml"
    path.write_text(recipe.to_yaml(cfg))
    assert train_from_file(path, tmp_path / "runs") == 0
    printed = capsys.readouterr().out
    assert "step 3/3" in printed and "Done: 3 steps" in printed
    (row,) = RunManager(tmp_path / "runs").list_runs()
    snap = RunManager(tmp_path / "runs").get(row["run_id"]).snapshot()
    assert snap["state"] == "done" and snap["step"] == 3
    assert [m["step"] for m in snap["metrics"] if "loss" in m] == [1, 2, 3]
    assert snap["samples"] and snap["config"]["max_steps"] == 3
    bad = tmp_path / "bad.yaml"
    bad.write_text("max_steps: 0\n")
    assert train_from_file(bad, tmp_path / "runs") == 2
    assert "Max steps (max_steps) must be at least 1" in capsys.readouterr().err
    assert len(RunManager(tmp_path / "runs").list_runs()) == 1


def test_two_processes_under_accelerate_train_one_shared_run(tmp_path, tiny_model_dir):
    cfg = _tiny(tiny_model_dir, max_steps=3, sample_steps=3, sample_max_new_tokens=4)
    path = tmp_path / "sft.yaml"
    path.write_text(recipe.to_yaml(cfg))
    # The accelerate config file the page shows ("show code"), for 1 machine x 2 processes.
    (tmp_path / "accelerate.yaml").write_text(recipe.accelerate_config(2, 1, "ddp"))
    launcher = Path(sys.executable).with_name("accelerate")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = run_group(
        [str(launcher), "launch", "--config_file", str(tmp_path / "accelerate.yaml"),
         "-m", "sft_ui", "train", "--config", str(path), "--runs-dir", str(tmp_path / "runs")],
        timeout=HANG, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    (folder,) = list((tmp_path / "runs").iterdir())
    records = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records if "loss" in r] == [1, 2, 3]  # main process only
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == len({(s["step"], s["prompt"]) for s in samples}) > 0
    assert "on 2 processes" in (folder / "train.log").read_text()
    assert json.loads((folder / "state.json").read_text())["state"] == "done"
    assert (folder / "model" / "model.safetensors").exists()


@pytest.mark.parametrize("strategy, kind", [("ddp", "MULTI_GPU"), ("fsdp", "FSDP")])
def test_the_accelerate_config_for_several_machines_is_accelerates_own(tmp_path, strategy,
                                                                       kind):
    from accelerate.commands.config.config_args import ClusterConfig
    path = tmp_path / "accelerate.yaml"
    path.write_text(recipe.accelerate_config(4, 2, strategy))
    config = ClusterConfig.from_yaml_file(str(path))
    assert config.distributed_type.value == kind and config.num_processes == 8
    assert config.num_machines == 2 and config.main_process_ip == "MAIN_MACHINE_IP"
    if strategy == "fsdp":
        assert config.fsdp_config["fsdp_sharding_strategy"] == "FULL_SHARD"
    shown = recipe.accelerate_command(RunConfig(num_processes=4, distributed=strategy), 2)
    assert path.read_text() in shown  # "Show code" writes the run's Processes and Strategy
    assert "--config_file accelerate.yaml" in shown and "--machine_rank 0" in shown
    assert "-m sft_ui train --config sft.yaml" in shown
