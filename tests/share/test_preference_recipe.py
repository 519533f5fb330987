"""Reproducing the preference stages and GRPO: `trl dpo` / `trl kto` read the YAML (ORPO has
no TRL command), the generated script and the continue flow's script train, the headless
CLI trains a preference settings file, and the model card names each stage's reference."""
import dataclasses
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from sft_ui.cli import train_from_file
from sft_ui.config import RunConfig
from sft_ui.runs import RunManager
from sft_ui.share import recipe
from sft_ui.stages import stages
from tests.conftest import HANG
from tests.share.test_recipe import ROOT, _tiny

# ---- preference stages: `trl dpo` / `trl kto` read the file, the script trains -----------
PREFERENCE = {"dataset_name": "demo-preference", "beta": 0.3, "use_peft": True, "lora_r": 8,
              "lora_target_modules": "q_proj,v_proj", "train_by": "epochs",
              "num_train_epochs": 2.0, "warmup_steps": 0.1, "save_steps": 20,
              "save_total_limit": 2, "max_train_samples": 40}


def test_trls_command_line_is_there_for_the_stages_the_recipe_gives_one():
    import importlib
    cli = [s.name for s in stages() if s.cli]
    assert cli == ["sft", "dpo", "kto", "grpo"]
    for stage in cli:  # `trl sft`, `trl dpo`, `trl kto`, `trl grpo` read --config
        assert importlib.import_module(f"trl.scripts.{stage}").make_parser
    with pytest.raises(ImportError):  # TRL 1.16: no `trl orpo`
        importlib.import_module("trl.scripts.orpo")
    done = subprocess.run([str(Path(sys.executable).with_name("trl")), "--help"],
                          capture_output=True, text=True, timeout=HANG)
    commands = done.stdout.split("{", 1)[1].split("}", 1)[0].split(",")
    assert set(cli) <= set(commands) and "orpo" not in commands


@pytest.mark.parametrize("stage, loss", [("dpo", "ipo"), ("kto", "apo_zero_unpaired")])
def test_a_preference_yaml_is_read_by_trls_own_parser_and_by_the_studio(tmp_path, stage,
                                                                        loss):
    import importlib

    from sft_ui.config.registry import stage_names
    from sft_ui.config.trl import MACHINE_CHOICES
    from sft_ui.train.preference import training_arguments
    make_parser = importlib.import_module(f"trl.scripts.{stage}").make_parser
    cfg = RunConfig.from_dict({**PREFERENCE, "stage": stage, "loss_type": loss,
                               "ref_model": "some-owner/reference",
                               "dataset_test_split": "test"})  # eval pairs, as for SFT
    assert cfg.validate() == []
    text = recipe.to_yaml(cfg)
    assert f"`trl {stage} --config THIS_FILE`" in text and "ref_model is the studio's own" in text
    assert "packing" not in text and "dataset_format" not in text  # SFT's own settings
    path = tmp_path / f"{stage}.yaml"
    path.write_text(text)
    script, train, model, _ = make_parser().parse_args_and_config(
        ["--config", str(path), "--output_dir", str(tmp_path / "out")],
        fail_with_unknown_args=False)
    assert (train.beta, train.max_steps, train.num_train_epochs, train.warmup_steps) == \
        (0.3, -1, 2.0, 0.1)
    assert train.loss_type in (loss, [loss]) and train.eval_strategy == "steps"
    assert script.dataset_test_split == "test"
    assert (model.use_peft, model.lora_r, model.lora_target_modules) == \
        (True, 8, ["q_proj", "v_proj"])
    assert script.dataset_name == "demo-preference"
    # The stage's Config a run trains with is the one `trl {stage}` builds from the file.
    engine = training_arguments(cfg, tmp_path / "out").to_dict()
    differ = {k: (v, train.to_dict().get(k)) for k, v in engine.items()
              if k not in ("disable_tqdm", "dataloader_num_workers") and
              v != train.to_dict().get(k)}
    assert differ == {}
    # The command line form parses to the same settings, and says what it cannot carry.
    shown = recipe.trl_command(cfg)
    assert f"# or: trl {stage} --config {stage}.yaml" in shown
    assert "some-owner/reference" in shown and "demo set is the studio's own" in shown
    assert f"-m sft_ui train --config {stage}.yaml" in recipe.accelerate_command(cfg)
    command = shown.split(f"\ntrl {stage}", 1)[1].replace("\\\n", " ")
    _, train_cli, model_cli, _ = make_parser().parse_args_and_config(
        shlex.split(command) + ["--output_dir", str(tmp_path / "out")])
    assert train_cli.to_dict() == {**train.to_dict(), "output_dir": train_cli.output_dir}
    # The studio reads the same run back: every setting of the stage (the machine's
    # choices come back as the values this machine chose).
    loaded = RunConfig.from_yaml(path)
    assert loaded.stage == stage and loaded.ref_model == "some-owner/reference"
    assert [n for n in stage_names(stage) if n not in MACHINE_CHOICES and
            getattr(loaded, n) != getattr(cfg, n)] == []
    assert recipe.trl_values(loaded) == recipe.trl_values(cfg)
    assert recipe.studio_values(loaded) == recipe.studio_values(cfg)


def test_orpo_has_no_trl_command_and_its_file_is_orpoconfigs(tmp_path):
    from trl import ModelConfig, ScriptArguments, TrlParser
    from trl.experimental.orpo import ORPOConfig
    cfg = RunConfig.from_dict({**PREFERENCE, "stage": "orpo"})
    path = tmp_path / "orpo.yaml"
    path.write_text(recipe.to_yaml(cfg))
    assert "has no `trl orpo` command" in path.read_text()
    _, train, _ = TrlParser((ScriptArguments, ORPOConfig, ModelConfig)).parse_args_and_config(
        ["--config", str(path), "--output_dir", str(tmp_path / "out")],
        fail_with_unknown_args=False)
    assert (train.beta, train.num_train_epochs) == (0.3, 2.0)
    shown = recipe.trl_command(cfg)
    assert "has no `trl orpo` command" in shown and "\ntrl " not in shown
    assert shown.endswith("python -m sft_ui train --config orpo.yaml")
    script = recipe.python_script(cfg)
    assert "from trl.experimental.orpo import ORPOConfig, ORPOTrainer" in script
    assert "ref_model" not in script and "beta=0.3" in script
    assert RunConfig.from_yaml(path).stage == "orpo"


def test_an_sft_runs_files_are_those_of_sft_alone():
    """The preference settings stay out of an SFT run's files: `trl sft` as before."""
    cfg = RunConfig(beta=0.5, loss_type="ipo", ref_model="some-owner/reference")
    text = recipe.to_yaml(cfg)
    assert text.startswith(recipe.HEADER) and "# Studio settings (trl sft ignores these)" in text
    for name in ("beta", "loss_type", "ref_model"):
        assert f"\n{name}:" not in text
    assert "\nstage: sft\n" in text and "\npacking: false\n" in text
    assert "\ntrl sft \\\n" in recipe.trl_command(cfg)
    assert "# or: trl sft --config sft.yaml" in recipe.trl_command(cfg)
    script = recipe.python_script(cfg)
    assert "from trl import SFTConfig, SFTTrainer" in script and "ref_model" not in script
    assert "output_dir='sft-output'" in script and "beta" not in script


@pytest.mark.parametrize("stage, extra", [
    ("dpo", {"ref_model": "TINY"}),  # a second frozen copy, loaded by the script
    ("orpo", {"use_peft": True, "lora_r": 4, "lora_alpha": 8}),  # trl.experimental, no ref
])  # (KTO's script is DPO's with KTOConfig and KTOTrainer from trl: the YAML test reads it)
def test_generated_preference_script_trains_the_tiny_model(tmp_path, tiny_model_dir, stage,
                                                           extra):
    extra = {k: tiny_model_dir if v == "TINY" else v for k, v in extra.items()}
    cfg = _tiny(tiny_model_dir, stage=stage, dataset_name="demo-preference",
                max_train_samples=8, **extra)
    assert cfg.validate() == []
    script = tmp_path / "train.py"
    out = tmp_path / "out"
    code = recipe.python_script(cfg, output_dir=str(out))
    assert ("ref_model = AutoModelForCausalLM" in code) == bool(cfg.ref_model)
    script.write_text(code)
    # The demo set comes from the studio (as the SFT script's 'demo' does): installed there.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRL_EXPERIMENTAL_SILENCE": "1"}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=HANG, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'loss'" in done.stdout, done.stdout[-2000:]
    weights = "adapter_model.safetensors" if cfg.use_peft else "model.safetensors"
    assert (out / weights).exists()


@pytest.mark.parametrize("stage", ["dpo", "kto"])
def test_the_continue_flows_script_trains_the_sft_runs_adapter_on(tmp_path, tiny_model_dir,
                                                                  stage):
    """Show code after Continue does what the studio does: the finished LoRA run's adapter
    trains on (no new adapter), with a frozen copy of it as the reference, so the first
    step has no margin; the saved folder holds the trained adapter alone."""
    from sft_ui.runs.next_stage import preference_after
    from tests.conftest import wait_for
    manager = RunManager(tmp_path / "runs")
    sft = manager.start(_tiny(tiny_model_dir, use_peft=True, lora_r=4, lora_alpha=8,
                              learning_rate=5e-3).to_dict())
    wait_for(lambda: manager.get(sft).state not in ("queued", "running"))
    cfg = dataclasses.replace(preference_after(manager.get(sft)).config, stage=stage,
                              max_train_samples=8, logging_steps=1, max_steps=2,
                              per_device_train_batch_size=4)
    code = recipe.python_script(cfg, output_dir=str(tmp_path / "out"))
    assert "is_trainable=True" in code and "peft_config = None" in code
    assert "a frozen copy of the finished run's adapter" in code
    (tmp_path / "train.py").write_text(code)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True,
                          timeout=HANG, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    logged = [line for line in done.stdout.splitlines() if "'rewards/chosen'" in line]
    first = float(re.search(r"'rewards/chosen': '?([-0-9.e]+)", logged[0]).group(1))
    assert first == 0, logged[0]  # the policy starts where its reference is
    assert (tmp_path / "out" / "adapter_model.safetensors").exists()
    assert not (tmp_path / "out" / "ref").exists()


def test_cli_trains_a_preference_settings_file_and_its_card_says_so(tmp_path,
                                                                     tiny_model_dir, capsys):
    from sft_ui.share.export import export_run
    cfg = _tiny(tiny_model_dir, stage="dpo", dataset_name="demo-preference", beta=0.2,
                max_train_samples=8, sample_steps=2, sample_max_new_tokens=4)
    path = tmp_path / "dpo.yaml"
    path.write_text(recipe.to_yaml(cfg))
    assert train_from_file(path, tmp_path / "runs") == 0
    printed = capsys.readouterr().out
    assert "step 2/2" in printed and "Done: 2 steps" in printed
    (row,) = RunManager(tmp_path / "runs").list_runs()
    snap = RunManager(tmp_path / "runs").get(row["run_id"]).snapshot()
    assert snap["state"] == "done" and snap["config"]["stage"] == "dpo"
    assert [m["step"] for m in snap["metrics"] if "loss" in m] == [1, 2]
    (folder,) = list((tmp_path / "runs").iterdir())
    assert "DPO reference model: " in (folder / "train.log").read_text()
    assert (folder / "model" / "model.safetensors").exists()
    # The model card: the stage's tag, trainer and reference, its settings and figures.
    card = (export_run(RunManager(tmp_path / "runs").get(row["run_id"])) /
            "README.md").read_text()
    assert "tags:\n- dpo\n- trl\n- sft-studio\n" in card and "- sft\n" not in card
    assert "preference-tuned with DPO (TRL's DPOTrainer) in SFT Studio on " \
        "`demo-preference` (2 steps)." in card
    assert "Reference model: a frozen copy of the starting weights." in card
    assert "| stage | dpo |" in card and "| beta | 0.2 |" in card
    assert "| packing |" not in card  # SFT's own settings stay out
    assert "| final reward accuracy |" in card and "| final reward margin |" in card


def test_the_card_names_each_stages_reference_and_tags(tmp_path):
    from sft_ui.share import card
    from sft_ui.train.preference import reference_description
    adapter = tmp_path / "sft-run"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text("{}")
    cases = [({}, "a frozen copy of the starting weights"),
             ({"use_peft": True}, "the model with the new LoRA adapter switched off"),
             ({"use_peft": True, "model_name_or_path": str(adapter)},
              "a frozen copy of the finished run's LoRA adapter"),
             ({"ref_model": "owner/ref"}, "owner/ref, a second frozen copy"),
             ({"stage": "orpo", "ref_model": "owner/ref"}, "none (ORPO needs no reference")]
    for values, words in cases:
        cfg = RunConfig.from_dict({"stage": "dpo", **values})
        assert reference_description(cfg).startswith(words), values
    assert card.tags(RunConfig(stage="kto", use_peft=True)) == \
        ["kto", "trl", "sft-studio", "lora"]
    assert card.tags(RunConfig()) == ["sft", "trl", "sft-studio"]


def test_a_grpo_card_says_reinforcement_learning_from_rewards_not_preference_tuning():
    """GRPO learns from rewards: its card (and the page's Japanese of it) says so, and
    not "preference-tuned" (「選好チューニング」) as a DPO card does."""
    from types import SimpleNamespace

    from sft_ui.share import card
    from sft_ui.ui.export_tab import card_in_language
    from tests.i18n.test_i18n import _in_japanese
    cfg = RunConfig.from_dict({"stage": "grpo", "dataset_name": "demo-grpo"})
    lines = card.about_lines(SimpleNamespace(step=3), cfg, "a full fine-tune", "")
    assert lines == ["This model is a full fine-tune of `HuggingFaceTB/SmolLM2-135M-Instruct`, "
                     "trained by reinforcement learning from rewards with GRPO (TRL's "
                     "GRPOTrainer) in SFT Studio on `demo-grpo` (3 steps)."], lines
    japanese = _in_japanese(lambda: card_in_language(card.about_lines(
        SimpleNamespace(step=3), cfg, "a full fine-tune", "checkpoint-2")))  # (its Messages)
    assert "GRPO（報酬による強化学習）の学習を行いました（3 ステップ、checkpoint-2）" in japanese
    assert "選好" not in japanese and "preference" not in " ".join(lines)
    dpo = card.about_lines(SimpleNamespace(step=3), RunConfig(stage="dpo"), "a full fine-tune",
                           "")
    assert "preference-tuned with DPO" in dpo[0]
