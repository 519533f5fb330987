"""A setting is written once: a field added to RunConfig reaches the page, the YAML that
`trl sft` parses, the SFTConfig of a run and the model card with no other edit; the
engine and `trl sft` build the same SFTConfig from one translation; every action checks
its caller; the page's modules import no torch; the page has every action's binding."""
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from sft_ui.config import RunConfig
from sft_ui.config.setting import setting
from sft_ui.runs import RunManager
from tests.conftest import HANG, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _install_config_with_a_new_field(monkeypatch):
    """A copy of RunConfig with one more field (TRL's max_grad_norm, in the Optimizer
    panel, on the model card), put wherever the studio's modules name RunConfig: what
    adding the field to config/fields.py does."""
    extended = dataclasses.make_dataclass("RunConfig", [("max_grad_norm", "float", setting(
        1.0, "Clip the gradient norm to this value each step.", "optim", minimum=0.0,
        maximum=1e6, label="Max gradient norm", trl="train", card=True))], bases=(RunConfig,))
    for name, module in list(sys.modules.items()):
        if name.startswith("sft_ui") and getattr(module, "RunConfig", None) is RunConfig:
            monkeypatch.setattr(module, "RunConfig", extended)
    return extended


def test_a_new_field_reaches_page_yaml_trainer_and_card(monkeypatch, tmp_path, tiny_cfg):
    from trl.scripts.sft import make_parser

    from sft_ui.access import Access
    from sft_ui.config import registry
    from sft_ui.share import recipe
    from sft_ui.share.card import write_card
    from sft_ui.train.callbacks import StudioCallback
    from sft_ui.ui import build_app, lang
    # The page marks the new field's texts for translation; they go with the test (the
    # catalogue test, in the same session, would ask for their Japanese).
    monkeypatch.setattr(lang, "_TEXTS", dict(lang._TEXTS))
    extended = _install_config_with_a_new_field(monkeypatch)
    # The page: a widget in the Optimizer panel, with its help; the API's description.
    manager = RunManager(tmp_path / "runs")
    app = build_app(manager, Access())
    (widget,) = [b for b in app.blocks.values()
                 if getattr(b, "elem_id", None) == "cfg-max_grad_norm"]
    tables = lang.translations()  # its help, ending with its name, in both languages
    assert float(widget.value) == 1.0
    assert tables["en"][widget.info.key].endswith("Name in YAML and the API: max_grad_norm")
    assert tables["ja"][widget.info.key].endswith("YAML などでの名前: max_grad_norm")
    assert "max_grad_norm" in next(p for p in registry.panels() if p.group == "optim").names
    (described,) = [d for d in registry.describe() if d["name"] == "max_grad_norm"]
    assert described["trl"] == "train" and described["panel"] == "Optimizer"
    # The YAML, as TRL's own parser reads it.
    cfg = extended.from_dict({**tiny_cfg, "max_grad_norm": 0.25, "sample_steps": 0})
    path = tmp_path / "sft.yaml"
    path.write_text(recipe.to_yaml(cfg))
    _, train_args, _, _ = make_parser().parse_args_and_config(
        ["--config", str(path), "--output_dir", str(tmp_path / "out")],
        fail_with_unknown_args=False)  # as `trl sft` reads it: the studio's keys stay unread
    assert train_args.max_grad_norm == 0.25
    # The SFTConfig of a real run, seen from inside the trainer.
    seen = {}
    original = StudioCallback.on_train_begin

    def record(self, args, state, control, **kwargs):
        seen["max_grad_norm"] = args.max_grad_norm
        return original(self, args, state, control, **kwargs)
    monkeypatch.setattr(StudioCallback, "on_train_begin", record)
    run_id = manager.start(cfg)
    run = wait_for(lambda: manager.get(run_id) if manager.get(run_id).state == "done"
                   else None)
    assert seen == {"max_grad_norm": 0.25}
    # The run folder keeps it, and the model card shows it.
    assert RunManager(tmp_path / "runs").get(run_id).config.max_grad_norm == 0.25
    card = write_card(run, tmp_path, "full").read_text()
    assert "| max_grad_norm | 0.25 |" in card


CONFIGS = [
    {},
    {"train_by": "epochs", "num_train_epochs": 2.5, "packing": True, "neftune_noise_alpha": 5,
     "warmup_steps": 0.1, "save_steps": 20, "save_total_limit": 2, "use_peft": True,
     "lora_target_modules": "q_proj,v_proj", "dataset_test_split": "test", "eval_steps": 7,
     "lr_scheduler_type": "cosine", "report_to": "none", "completion_only_loss": True},
    {"warmup_steps": 3, "save_strategy": "epoch", "logging_strategy": "epoch",
     "activation_checkpointing": True, "bf16": False, "max_length": 512, "seed": 7},
]


@pytest.mark.parametrize("values", CONFIGS)
def test_engine_and_trl_sft_build_the_same_sftconfig(tmp_path, values):
    """The SFTConfig a run trains with and the one `trl sft --config` builds from the
    saved YAML agree on every field but the run's own arguments."""
    from trl.scripts.sft import make_parser

    from sft_ui.share import recipe
    from sft_ui.train.engine import sft_config
    cfg = RunConfig.from_dict(values)
    path = tmp_path / "sft.yaml"
    path.write_text(recipe.to_yaml(cfg))
    _, from_yaml, _, _ = make_parser().parse_args_and_config(
        ["--config", str(path), "--output_dir", str(tmp_path / "out")],
        fail_with_unknown_args=False)  # as `trl sft` reads it: the studio's keys stay unread
    engine = sft_config(cfg, tmp_path / "out", has_eval=bool(cfg.dataset_test_split))
    runtime = {"disable_tqdm", "dataloader_num_workers"}  # the engine's own arguments
    a, b = engine.to_dict(), from_yaml.to_dict()
    differ = {k: (a[k], b.get(k)) for k in a if k not in runtime and a[k] != b.get(k)}
    assert differ == {}
    assert engine.max_steps == (-1 if cfg.train_by == "epochs" else cfg.max_steps)
    assert engine.eval_strategy == ("steps" if cfg.dataset_test_split else "no")


def test_every_action_checks_its_caller(tmp_path):
    """On a view-only server every action that changes something is refused by the action
    itself (whatever binds it), and reading stays open."""
    from sft_ui.access import Access, AccessError, Who
    from sft_ui.actions import Actions
    actions = Actions(RunManager(tmp_path), Access(space_id="me/studio"))
    anyone = Who("session-1")
    refused = {
        "start": (anyone, {}), "stop": (anyone, "x"), "resume": (anyone, "x"),
        "rename": (anyone, "x", "y"), "ask_delete": (anyone, "x"), "delete": (anyone, "x"),
        "measure": (anyone, {}), "upload": (anyone, str(tmp_path / "a.jsonl")),
        "export": (anyone, "x"), "export_gguf": (anyone, "x", "", "q8_0"),
        "push_export": (anyone, str(tmp_path), "me/m", "hf_x"),
        "push": (anyone, "x", "me/m", "hf_x"), "publish": (anyone, "me/m", "me/s", "hf_x"),
        "deploy": (anyone, "me/s", "hf_x"), "evaluate": (anyone, ["base"], "demo"),
        "stop_evaluation": (anyone,), "test_rewards": (anyone, {"stage": "grpo"}),
        "check_start": (anyone, {}), "queue_run": (anyone, {}),
        "unqueue": (anyone, "q1"), "move_queued": (anyone, "q1", 1),
        "edit_queued": (anyone, "q1", {}), "start_sweep": (anyone, {}),
        "stop_sweep": (anyone, "sweep-1"), "resume_sweep": (anyone, "sweep-1"),
        # (many prompts hold the CPU as Evaluate does: one prompt stays open)
        "compare_batch": (anyone, ["Hi"], "base", "base"),
        "compare_batch_steps": (anyone, ["Hi"], "base", "base")}
    for name, args in refused.items():
        with pytest.raises(AccessError, match="Duplicate"):
            getattr(actions, name)(*args)
    public = {n for n in dir(actions) if not n.startswith("_") and callable(getattr(actions, n))}
    reading = {"plan", "preview", "fit", "chat", "chat_notes", "compare", "sign_in",
               "sign_out", "continue_with_preference",  # this one only fills the page
               "dataset_choices", "training_data_warning",  # lists and notes: nothing changes
               "queued",  # (a viewer's own queue, empty)
               "sweep", "sweep_ids", "best_of_sweep",  # (a viewer's own sweeps, none)
               "damaged_sweeps"}  # (said where the studio is one person's only)
    assert actions.dataset_choices(anyone, "sft") == ["demo"]
    assert actions.damaged_sweeps(anyone) == []
    assert public == set(refused) | reading, "a new action: say whether it needs a right"
    assert actions.plan(anyone, {})["fit"]  # open: nothing changes
    assert list(tmp_path.iterdir()) == []  # nothing written by the refused actions


def test_the_page_imports_no_torch():
    code = ("import sys, sft_ui.ui; heavy = [m for m in ('torch', 'transformers', 'trl') "
            "if m in sys.modules]; assert not heavy, heavy")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=HANG)
    assert done.returncode == 0, done.stderr[-2000:]


def _imports(path: Path) -> set[str]:
    """The top packages a module imports, anywhere in it (late imports included)."""
    import ast
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_layers_hold():
    """Only the page imports gradio; only lazy.py imports trl (under its lock)."""
    package = ROOT / "sft_ui"
    modules = [p for p in package.rglob("*.py") if "space_app" not in p.parts]
    gradio = sorted(str(p.relative_to(package)) for p in modules
                    if "gradio" in _imports(p) and "ui" not in p.relative_to(package).parts)
    trl = sorted(str(p.relative_to(package)) for p in modules if "trl" in _imports(p))
    assert gradio == [] and trl == ["lazy.py"]


def _other_value(f, value):
    """A valid value of setting `f` other than `value` (None: none to pick here)."""
    from sft_ui.config.values import choices
    if choices(f):
        return next((c for c in choices(f) if c != value), None)
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        new = type(value)(value * 2 if value else 3 if isinstance(value, int) else 0.5)
        return min(new, f.metadata["max"]) if f.metadata["max"] is not None else new
    return None


def test_every_training_setting_given_is_the_one_that_trains(tmp_path):
    """Each SFT training setting given alone, at a value other than its default, is in the
    SFTConfig the run trains with (the time budget never overrides a value given); a
    sweep's trial that varies a setting trains with the trial's value."""
    import dataclasses

    from sft_ui.config import length
    from sft_ui.config.values import applies_field
    from sft_ui.sweeps.space import VARIABLE
    from sft_ui.train.engine import sft_config
    defaults, checked = RunConfig(), []
    for f in dataclasses.fields(RunConfig):
        if f.metadata["trl"] != "train" or not applies_field(f, "sft"):
            continue
        value = _other_value(f, getattr(defaults, f.name))
        extra = {"save_steps": 10} if f.name == "save_total_limit" else {}
        if value is None or RunConfig(**{f.name: value, **extra}).validate():
            continue
        cfg = RunConfig(**{f.name: value, **extra})
        args = sft_config(cfg, tmp_path / "out", has_eval=True)
        assert getattr(args, f.name) == value, (f.name, value, getattr(args, f.name))
        checked.append(f.name)
    assert {"num_train_epochs", "max_steps", "learning_rate", "packing",
            "gradient_accumulation_steps"} <= set(checked) and len(checked) >= 20
    for name in VARIABLE:
        f = next(f for f in dataclasses.fields(RunConfig) if f.name == name)
        value = _other_value(f, getattr(defaults, name))
        trial = length.changed(defaults, **{name: value})
        assert getattr(trial, name) == value
        if f.metadata["trl"] == "train" and applies_field(f, "sft"):
            assert getattr(sft_config(trial, tmp_path / "out", True), name) == value, name


@pytest.mark.parametrize("stage", ["dpo", "kto", "grpo"])
def test_every_setting_of_another_stage_given_is_the_one_that_trains(tmp_path, stage):
    """As for SFT: each training setting of DPO, KTO and GRPO given alone, at a value other
    than its default, is in the stage's own config (DPOConfig, KTOConfig, GRPOConfig), or
    refused with a message; LoRA's in the adapter the run trains."""
    import dataclasses

    from sft_ui.config.values import applies_field
    from sft_ui.plan.loading import peft_config
    from sft_ui.train import grpo, preference
    build = (lambda cfg: grpo.training_arguments(cfg, tmp_path / "out", True)) \
        if stage == "grpo" else (lambda cfg: preference.training_arguments(cfg,
                                                                         tmp_path / "out"))
    from sft_ui.stages import get
    base = {"stage": stage, "dataset_name": get(stage).demo, "eval_fraction": 0.1}
    defaults, checked = RunConfig(**base), []
    for f in dataclasses.fields(RunConfig):
        if f.metadata["trl"] != "train" or not applies_field(f, stage):
            continue
        value = _other_value(f, getattr(defaults, f.name))
        extra = {"save_steps": 10} if f.name == "save_total_limit" else {}
        if value is None or RunConfig(**{**base, f.name: value, **extra}).validate():
            continue
        try:
            args = build(RunConfig(**{**base, f.name: value, **extra}))
        except (ValueError, TypeError) as e:  # refused by the stage's own config: said
            assert str(e), f.name
            continue
        got = getattr(args, f.name)
        if isinstance(got, list) and isinstance(value, str):  # (DPO's loss_type: a list)
            got = "+".join(got)
        assert got == value, (stage, f.name, value, got)
        checked.append(f.name)
    assert {"learning_rate", "gradient_accumulation_steps", "max_steps"} <= set(checked)
    assert len(checked) >= 15, checked
    lora = peft_config(RunConfig(**base, use_peft=True, lora_r=8, lora_alpha=24,
                                 lora_dropout=0.1))
    assert (lora.r, lora.lora_alpha, lora.lora_dropout) == (8, 24, 0.1)
