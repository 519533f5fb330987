"""The page's side of preference tuning, without a browser: the Train tab's panels follow
the stage (from each field's `stages`), the demo set follows it, the preview shows
preference rows (and says what is wrong with a bad file), and the Runs table, lists and
dataset box say each run's stage and data."""
from __future__ import annotations

import json
from pathlib import Path

import gradio as gr
import pytest

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.config import RunConfig, registry
from sft_ui.data import DataError
from sft_ui.runs import RunManager
from sft_ui.runs.run import create_run
from sft_ui.ui import data_panel, stage_view
from tests.i18n.test_i18n import _in_japanese, english_left

# ---- the panels follow the stage --------------------------------------------------------
# The settings that only some stages have, and which: written out here, not read from
# the fields, so that a tag or a stage's facts going wrong fails this test.
ONLY = {"beta": {"dpo", "orpo", "kto"}, "loss_type": {"dpo", "kto"},
        "ref_model": {"dpo", "kto"}, "packing": {"sft"}, "dataset_format": {"sft"},
        "neftune_noise_alpha": {"sft"},
        "completion_only_loss": {"sft"}}


def test_each_stage_shows_its_own_settings_and_panels():
    names = [f.name for f in registry.fields()]
    for stage in ("sft", "dpo", "orpo", "kto"):
        shown = stage_view.shown(names, stage)
        for name, stages in ONLY.items():
            assert shown[name] == (stage in stages), (stage, name)
        assert shown["learning_rate"] and shown["use_peft"] and shown["max_length"]
        assert shown["time_budget_minutes"] and shown["eval_fraction"]  # every stage's
    dpo = stage_view.shown(names, "dpo")
    assert dpo["beta"] and dpo["ref_model"] and dpo["learning_rate"] and dpo["use_peft"]
    assert not any(dpo[n] for n in ("dataset_format", "packing", "neftune_noise_alpha"))
    sft = stage_view.shown(names, "sft")
    assert sft["packing"] and not sft["beta"] and not sft["loss_type"]
    assert not stage_view.shown(names, "orpo")["ref_model"]  # ORPO has no reference
    # A panel shows while one of its settings applies.
    assert stage_view.panel_shown("eval", "dpo") and stage_view.panel_shown("eval", "sft")
    assert not stage_view.panel_shown("preference", "sft")
    assert stage_view.panel_shown("preference", "kto") and stage_view.panel_shown("data", "dpo")
    # Only the settings some stage does without are ever hidden.
    assert "learning_rate" not in stage_view.staged(names)
    assert {"beta", "packing", "desirable_weight"} <= set(stage_view.staged(names))
    assert "eval_steps" not in stage_view.staged(names)  # eval data: every stage


def test_the_demo_set_follows_the_stage():
    assert stage_view.demo_switch("dpo", "demo") == "demo-preference"
    assert stage_view.demo_switch("kto", " demo ") == "demo-preference"
    assert stage_view.demo_switch("sft", "demo-preference") == "demo"
    assert stage_view.demo_switch("dpo", "demo-preference") is None
    assert stage_view.demo_switch("sft", "demo") is None
    assert stage_view.demo_switch("dpo", "/data/pairs.jsonl") is None
    assert data_panel.demo_for("orpo") == "demo-preference" and data_panel.demo_for("sft") == "demo"


def _stage_handler(app: gr.Blocks):
    """The function the stage's change runs, and the elem_id (or kind) of each output."""
    stage = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "cfg-stage")
    fn = next(f for f in app.fns.values()  # (not the other events of every setting's change)
              if (stage._id, "change") in [tuple(t) for t in f.targets] and
              getattr(f.fn, "__name__", "") == "on_stage")
    outputs = [getattr(o, "elem_id", None) or type(o).__name__ for o in fn.outputs]
    return fn.fn, outputs, fn.outputs


def test_the_page_hides_what_the_stage_does_without(tmp_path):
    """The built page starts with sft's settings; a stage change (by a person, a preset,
    a settings file or Continue: the same change event) shows the new stage's settings,
    rows and panels and switches the demo set."""
    from sft_ui.ui import build_app
    app = build_app(RunManager(tmp_path), Access.from_env())
    widget = {b.elem_id: b for b in app.blocks.values()
              if str(getattr(b, "elem_id", "") or "").startswith("cfg-")}
    assert widget["cfg-packing"].visible and not widget["cfg-beta"].visible
    accordions = [b for b in app.blocks.values() if isinstance(b, gr.Accordion)]
    hidden = [a for a in accordions if not a.visible and a.elem_id != "queue-panel"]
    assert len(hidden) == 2  # the preference panel and GRPO's rewards panel (the queue
    # shows once a run is queued)

    fn, outputs, components = _stage_handler(app)
    values = fn(None, "dpo", "demo")
    assert outputs[-1] == "cfg-dataset_name" and values[-1]["value"] == "demo-preference"
    assert values[-1]["choices"][0] == "demo-preference"  # the stage's set offered first
    shown = {name: v["visible"] for name, v in zip(outputs, values) if name.startswith("cfg-")
             and isinstance(v, dict) and "visible" in v}
    assert shown["cfg-beta"] and shown["cfg-ref_model"]
    assert not shown["cfg-packing"] and "cfg-time_budget_minutes" not in shown
    assert "cfg-learning_rate" not in shown  # never hidden, never sent
    panels = [v["visible"] for c, v in zip(components, values) if isinstance(c, gr.Accordion)]
    assert panels.count(False) == 1 and panels.count(True) >= 1  # preference's, not GRPO's
    values = fn(None, "grpo", "demo-preference")
    assert values[-1]["value"] == "demo-grpo"
    shown = {name: v["visible"] for name, v in zip(outputs, values) if name.startswith("cfg-")
             and isinstance(v, dict) and "visible" in v}
    assert shown["cfg-num_generations"] and shown["cfg-reward_code"]
    assert not shown["cfg-beta"] and not shown["cfg-max_length"] and not shown["cfg-packing"]
    values = fn(None, "sft", "demo-preference")
    assert values[-1]["value"] == "demo"
    values = fn(None, "sft", "my.jsonl")
    assert "value" not in values[-1]  # a file of the person's stays


# ---- the preview of preference data --------------------------------------------------------
def test_preview_of_the_preference_demo_set(tiny_model_dir):
    from sft_ui.data.preview import preview
    p = preview(RunConfig(model_name_or_path=tiny_model_dir, stage="dpo",
                          dataset_name="demo-preference", max_length=60))
    assert p["kind"] == "preference" and p["format"] == "preference" and p["conversational"]
    assert p["rows"] == 83 and p["columns"] == ["prompt", "chosen", "rejected"]
    ex = p["examples"][0]
    assert ex["prompt"].endswith("<|im_start|>assistant\n")  # the chat template applied
    assert ex["chosen"].startswith("Arr") and ex["chosen"].endswith("<|im_end|>\n")
    assert ex["raw"]["chosen"][0]["role"] == "assistant"
    assert p["stats"]["over_max_length"] > 0 and p["stats"]["max"] > 60
    json.dumps(p)  # JSON-ready, for the API
    summary, html = data_panel.summary_markdown(p), data_panel.examples_html(p)
    assert "Format: preference" in summary and "for DPO" in summary
    assert "Chosen answer" in html and "Rejected answer" in html and "Arr" in html
    summary_ja = _in_japanese(lambda: data_panel.summary_markdown(p))
    html_ja = _in_japanese(lambda: data_panel.examples_html(p))
    assert "選ばれた回答" in html_ja
    # English left: the format's name and the columns, as the file names them.
    assert set(english_left(summary_ja.replace("&middot;", ""))) <= {
        "preference", "chosen", "rejected"}, summary_ja


def test_preview_of_unpaired_text_rows_and_of_bad_files(tiny_model_dir, tmp_path):
    from sft_ui.data.preview import preview
    rows = tmp_path / "kto.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in [
        {"prompt": "Say hi.", "completion": " Hi!", "label": True},
        {"prompt": "Say bye.", "completion": " Whatever.", "label": "false"}]))
    # A chat model reads the text prompt as the user's turn, as Chat asks it.
    chat = preview(RunConfig(model_name_or_path=tiny_model_dir, stage="kto",
                             dataset_name=str(rows), per_device_train_batch_size=2))
    assert chat["conversational"] and "<|im_start|>user\nSay hi." in chat["examples"][0]["prompt"]
    assert any("as the user's turn of its chat template" in n for n in chat["notes"])
    assert "Conversational rows" in data_panel.summary_markdown(chat)
    p = preview(RunConfig(model_name_or_path=tiny_model_dir, stage="kto",
                          dataset_name=str(rows), per_device_train_batch_size=2,
                          prompts_as_chat=False))
    assert p["format"] == "unpaired preference" and not p["conversational"]
    assert p["examples"][1]["label"] is False and p["examples"][0]["completion"].startswith(" Hi!")
    html = data_panel.examples_html(p)
    assert "Answer, labelled good" in html and "Answer, labelled bad" in html
    assert "Plain-text rows" in data_panel.summary_markdown(p)
    sft = tmp_path / "qa.jsonl"
    sft.write_text('{"prompt": "Say hi.", "completion": " Hi!"}\n')
    with pytest.raises(DataError, match="DPO needs prompt/chosen/rejected columns"):
        preview(RunConfig(model_name_or_path=tiny_model_dir, stage="dpo",
                          dataset_name=str(sft)))
    same = tmp_path / "same.jsonl"
    same.write_text('{"prompt": "a", "chosen": "b", "rejected": "b"}\n')
    with pytest.raises(DataError, match="'chosen' and 'rejected' are the same answer"):
        preview(RunConfig(model_name_or_path=tiny_model_dir, stage="dpo",
                          dataset_name=str(same)))


def test_the_runs_table_says_each_runs_stage(tmp_path):
    """SFT and DPO runs side by side in the Runs tab: a Stage column tells them apart."""
    from sft_ui.ui import runs_tab
    create_run(tmp_path, RunConfig())
    create_run(tmp_path, RunConfig(stage="dpo", dataset_name="demo-preference"))
    frame = runs_tab.table_frame(RunManager(tmp_path).history())
    assert sorted(frame["Stage"]) == ["DPO", "SFT"]


def test_lists_name_a_run_by_what_it_is(tmp_path):
    """Stage, the model it started from (an earlier run by its id, not "model") and data."""
    from sft_ui.runs import display_name
    sft = create_run(tmp_path, RunConfig())
    (sft.dir / "model").mkdir()
    dpo = create_run(tmp_path, RunConfig(stage="dpo", dataset_name="demo-preference",
                                         model_name_or_path=str(sft.dir / "model")))
    assert display_name(sft).startswith(f"SFT · {Path(RunConfig().model_name_or_path).name}"
                                        " · demo · ")
    assert display_name(dpo).startswith(f"DPO · run {sft.id} · demo-preference · ")


def test_the_dataset_box_offers_the_stage_set_and_earlier_runs_data(tmp_path):
    """The stage's built-in set first, then what earlier runs of its kind trained on,
    newest first: Hub ids and local files still there, never another person's upload."""
    root = tmp_path / "runs"
    mine = tmp_path / "qa.jsonl"
    mine.write_text('{"text": "hi"}\n')
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"prompt": "q", "chosen": "a", "rejected": "b"}\n')
    theirs = root / "uploads" / "someone-else" / "abc" / "secret.jsonl"
    theirs.parent.mkdir(parents=True)
    theirs.write_text('{"text": "x"}\n')
    for stage, data in [("sft", "owner/chat-data"), ("sft", str(mine)),
                        ("sft", str(tmp_path / "gone.jsonl")), ("sft", str(theirs)),
                        ("dpo", str(pairs)), ("sft", "demo")]:
        create_run(root, RunConfig(stage=stage, dataset_name=data))
    actions = Actions(RunManager(root), Access.from_env())
    sft = actions.dataset_choices(None, "sft")
    assert sft[0] == "demo" and set(sft[1:]) == {"owner/chat-data", str(mine)}, sft
    assert actions.dataset_choices(None, "kto") == ["demo-preference", str(pairs)]
