"""A stage is said once, in sft_ui/stages/: a stage defined in this file alone, DPO under
another name registered the way a real stage is, reaches the Stage setting's choices,
/settings, the page, the YAML and Show code, the plan, and trains 2 steps through the run
manager, with no edit anywhere else."""
from __future__ import annotations

import dataclasses

import pytest
import yaml

from sft_ui import stages
from sft_ui.config import RunConfig
from sft_ui.plan.planner import plan
from sft_ui.runs import RunManager
from sft_ui.share import recipe
from tests.conftest import wait_for

TOY = dataclasses.replace(stages.get("dpo"), name="toydpo", title="ToyDPO", cli=False,
                          follows=())


@pytest.fixture
def toy_stage():
    stages.register(TOY)
    yield TOY
    stages.unregister(TOY.name)


def test_a_stage_defined_here_is_everywhere(toy_stage, tmp_path, tiny_cfg):
    from sft_ui.ui import build_app  # gradio: this test builds the page
    assert "toydpo" in stages.names()
    cfg = RunConfig.from_dict({**tiny_cfg, "stage": "toydpo", "dataset_name": "demo-preference"})
    assert cfg.stage == "toydpo"  # a choice of the Stage setting: no "must be one of"
    # /settings and the page's Stage choices
    app = build_app(RunManager(tmp_path / "page-runs"))
    settings = next(f for f in app.fns.values() if f.api_name == "settings").fn()
    stage_field = next(s for s in settings if s["name"] == "stage")
    assert "toydpo" in stage_field["choices"]
    beta = next(s for s in settings if s["name"] == "beta")
    assert "toydpo" in beta["stages"]  # DPO's settings apply to it, SFT's do not
    assert "toydpo" not in next(s for s in settings if s["name"] == "packing")["stages"]
    box = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "cfg-stage")
    assert "toydpo" in [value for _, value in box.choices]
    # The YAML and Show code
    text = recipe.to_yaml(cfg)
    assert yaml.safe_load(text)["stage"] == "toydpo" and "beta" in yaml.safe_load(text)
    assert "TRL 1.16 has no `trl toydpo` command" in text
    script = recipe.python_script(cfg)
    assert "DPOTrainer(model=model, ref_model=ref_model" in script
    assert "preference_demo_rows" in script
    compile(script, "toydpo.py", "exec")
    # The plan counts it as DPO: two sequences per example and a reference forward.
    planned = plan(cfg)
    assert planned["tokens_per_step"] == 2 * cfg.max_length * cfg.per_device_train_batch_size
    assert "reference" in planned["memory"]
    # 2 steps through the run manager
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "stage": "toydpo", "dataset_name": "demo-preference",
                            "max_steps": 2, "sample_steps": 0, "use_peft": True})
    snap = wait_for(lambda: (s := manager.get(run_id).snapshot())["state"] not in
                    ("queued", "running") and s)
    assert snap["state"] == "done", snap["error"]
    losses = [m["loss"] for m in snap["metrics"] if "loss" in m]
    assert len(losses) == 2 and any("rewards/margins" in m for m in snap["metrics"])
    assert "Training (ToyDPO)" in snap["log"]


def test_an_unknown_stage_is_refused_with_the_choices():
    """Unregistered again, the toy stage is no choice: the check names the stages there are."""
    problems = RunConfig.from_dict({"stage": "toydpo"}).validate()
    assert any("must be one of sft, dpo, orpo, kto, grpo (got" in p for p in problems), problems
