"""A new kind of training is one module: a toy family written in this file alone (its own
settings in a panel of its own, a plot, a plan line, a trainer hook), named in
SFT_UI_STAGES as a person would name theirs, reaches the page, /settings, the YAML, the
plan and a run, with no other file edited. RunConfig is made once, when the config is
first imported, so the check runs in a fresh Python process of its own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.conftest import HANG, ROOT

TOY_FAMILY = '''
"""A toy kind of training: SFT whose log also carries a toy metric, scaled by a setting of
its own."""
from sft_ui.stages.base import Family, Plot, Stage, register, register_family

register_family(Family(
    "toy", hooks={"data_check": "sft_ui.data:check_dataset",
                  "preview": "sft_ui.data.preview:sft_preview",
                  "script": "sft_ui.share.recipe:sft_script",
                  "settings": "toy_family:settings",
                  "plan_notes": "toy_family:plan_notes",
                  "trainer": "toy_family:toy_trainer"},
    panel=("toy", "Toy knobs"), about="toy: SFT with a toy metric beside the loss."))
register(Stage(name="toy", title="Toy", family="toy", config=("trl", "SFTConfig"),
               trainer=("trl", "SFTTrainer"), demo="demo", columns="text, messages",
               formats=("text", "messages"),
               plots=(Plot("rewards", "Toy metric", "The loss times Toy scale.",
                           series=(("toy_metric", "toy"),)),)))


def settings():
    from sft_ui.config.setting import setting

    class ToySettings:
        toy_scale: float = setting(
            3.0, "What the toy metric multiplies the loss by.", "toy", minimum=0.0,
            maximum=100.0, label="Toy scale", trl=None, plan="change", stages=["toy"])
    return ToySettings


def plan_notes(cfg, shape, hw, prompt_tokens=None):
    return [f"The toy metric will be the loss times {cfg.toy_scale:g}."]


def toy_trainer(cfg, model, tokenizer, output_dir, callbacks, log):
    from sft_ui.train.engine import sft_trainer
    trainer = sft_trainer(cfg, model, tokenizer, output_dir, callbacks, log)
    logged = trainer.log

    def with_toy(logs, *args, **kwargs):
        if "loss" in logs:
            logs["toy_metric"] = cfg.toy_scale * logs["loss"]
        return logged(logs, *args, **kwargs)
    trainer.log = with_toy
    return trainer
'''

CHECK = '''
import dataclasses, json, sys, time
import yaml
from sft_ui.config import RunConfig
from sft_ui.config.registry import describe, panels
from sft_ui.plan.planner import plan
from sft_ui.runs import RunManager
from sft_ui.share import recipe
from sft_ui.ui import build_app
from sft_ui.ui.plan_text import plan_markdown
from sft_ui.ui.run_frames import reward_frame

tiny, runs = json.loads(sys.argv[1]), sys.argv[2]
out = {}
names = [f.name for f in dataclasses.fields(RunConfig)]
out["order"] = names
cfg = RunConfig.from_dict({**tiny, "stage": "toy", "toy_scale": 2.5})
out["yaml"] = yaml.safe_load(recipe.to_yaml(cfg))
out["settings"] = next(s for s in describe() if s["name"] == "toy_scale")
out["panels"] = [p.title for p in panels()]
app = build_app(RunManager(runs + "/page"))
out["ids"] = [b.elem_id for b in app.blocks.values() if getattr(b, "elem_id", None)]
stage_box = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "cfg-stage")
out["stage_choices"] = [value for _, value in stage_box.choices]
planned = plan(cfg)
out["plan_notes"] = planned["memory_notes"]
out["plan_text"] = plan_markdown(planned)
manager = RunManager(runs + "/runs")
run_id = manager.start({**tiny, "stage": "toy", "toy_scale": 2.5, "max_steps": 2,
                        "sample_steps": 0})
snap = manager.get(run_id).snapshot()
while snap["state"] in ("queued", "running"):  # the test's timeout bounds it
    time.sleep(0.2)
    snap = manager.get(run_id).snapshot()
out["state"], out["error"] = snap["state"], snap["error"]
out["metrics"] = [m for m in snap["metrics"] if "loss" in m]
frame = reward_frame(snap)
out["plotted"] = sorted(set(frame["series"])) if frame is not None else []
print("RESULT " + json.dumps(out, default=str))
'''


def test_a_family_in_one_module_reaches_the_page_yaml_plan_and_a_run(tmp_path, tiny_cfg):
    (tmp_path / "toy_family.py").write_text(textwrap.dedent(TOY_FAMILY))
    rows = [{"text": f"Toy example {i}: the answer is {i * 2}."} for i in range(8)]
    (tmp_path / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    tiny_cfg = {**tiny_cfg, "dataset_name": str(tmp_path / "toy.jsonl")}
    env = {**os.environ, "SFT_UI_STAGES": "toy_family",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", CHECK, json.dumps(tiny_cfg),
                           str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=HANG)
    result = next((json.loads(line[7:]) for line in done.stdout.splitlines()
                   if line.startswith("RESULT ")), None)
    assert result, done.stdout[-3000:] + done.stderr[-3000:]
    # Its setting is a field, after the data settings and the other families' own
    # (its panel's place), and in the YAML with the value given
    order = result["order"]
    assert order.index("toy_scale") > order.index("reward_code") and \
        order.index("toy_scale") < order.index("per_device_train_batch_size")
    assert result["yaml"]["stage"] == "toy" and result["yaml"]["toy_scale"] == 2.5
    # /settings and the page: its panel, its setting's box, a choice of the Stage setting
    assert result["settings"]["panel"] == "Toy knobs"
    assert result["settings"]["label"] == "Toy scale" and result["settings"]["stages"] == ["toy"]
    assert "Toy knobs" in result["panels"]
    assert result["panels"].index("Toy knobs") == result["panels"].index("Rewards (GRPO)") + 1
    assert "cfg-toy_scale" in result["ids"] and "toy" in result["stage_choices"]
    # The plan says its line
    assert result["plan_notes"] == ["The toy metric will be the loss times 2.5."]
    assert "The toy metric will be the loss times 2.5." in result["plan_text"]
    # A run trains through its trainer hook, and its plot shows the toy metric
    assert result["state"] == "done", result["error"]
    metrics = result["metrics"]
    assert len(metrics) == 2
    assert all(abs(m["toy_metric"] - 2.5 * m["loss"]) < 1e-6 for m in metrics), metrics
    assert result["plotted"] == ["toy"]
