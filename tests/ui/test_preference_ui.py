"""The page's side of preference tuning, without a browser: the Train tab's panels follow
the stage (from each field's `stages`), the demo set follows it, "Continue with preference
tuning" fills in a DPO run after a finished SFT run, the preview shows preference rows
(and says what is wrong with a bad file), and the live view plots a run's rewards with
series in the page's language."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import gradio as gr
import pytest

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.config import RunConfig, registry
from sft_ui.data import DataError
from sft_ui.runs import RunError, RunManager
from sft_ui.runs.next_stage import can_continue, preference_after
from sft_ui.runs.run import create_run
from sft_ui.ui import data_panel, live_view, stage_view
from tests.i18n.test_i18n import JAPANESE, _in_japanese, english_left

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


# ---- Continue with preference tuning -----------------------------------------------------
def _finished_sft(root, **settings):
    run = create_run(root, RunConfig.from_dict(settings))
    model = run.dir / "model"
    model.mkdir()
    run.model_dir = str(model)
    run.set_state("done", "Finished.")
    return run


def test_continue_after_an_sft_run_with_lora_on_the_demo_set(tmp_path):
    run = _finished_sft(tmp_path, use_peft=True, max_steps=3, learning_rate=2e-4,
                        time_budget_minutes=5)
    assert can_continue(run.snapshot())
    follow = preference_after(run)
    cfg = follow.config
    assert cfg.model_name_or_path == run.model_dir and cfg.stage == "dpo"
    assert cfg.dataset_name == "demo-preference" and cfg.use_peft
    assert cfg.learning_rate == 5e-5 and cfg.max_steps == 3 and cfg.ref_model == ""
    assert cfg.time_budget_minutes == 5  # Continue keeps the budget the person set
    assert cfg.validate() == []
    text = " ".join(follow.notes)
    assert run.model_dir in text and "demo-preference" in text and "5e-05" in text
    # Through the actions, by run id, and the notes in Japanese.
    actions = Actions(RunManager(tmp_path), Access.from_env())
    assert actions.continue_with_preference(run.id).config == cfg
    page = _in_japanese(lambda: stage_view.follow_up_markdown(run.id, "DPO", follow.notes))
    assert not english_left(page.replace(run.model_dir, "")), page


def test_continue_after_full_fine_tuning_on_other_data(tmp_path):
    run = _finished_sft(tmp_path, use_peft=False, dataset_name="/data/qa.jsonl")
    follow = preference_after(run)
    assert not follow.config.use_peft and follow.config.learning_rate == 5e-6
    assert follow.config.dataset_name == ""  # the person chooses preference data
    assert any("choose DPO data" in n and "`/data/qa.jsonl`" in n for n in follow.notes)
    page = _in_japanese(lambda: stage_view.follow_up_markdown(run.id, "DPO", follow.notes))
    assert JAPANESE.search(page) and not english_left(
        page.replace(run.model_dir, "").replace("/data/qa.jsonl", "")), page


def test_a_finished_dpo_run_continues_into_grpo(tmp_path):
    """After preference tuning, Continue offers GRPO: the DPO run's model, the GRPO demo
    set after the preference demo set, GRPO's learning rate; the button says so."""
    dpo = _finished_sft(tmp_path, stage="dpo", dataset_name="demo-preference")
    assert can_continue(dpo.snapshot())
    follow = preference_after(dpo)
    cfg = follow.config
    assert cfg.stage == "grpo" and cfg.dataset_name == "demo-grpo"
    assert cfg.model_name_or_path == dpo.model_dir and cfg.validate() == []
    first, also = stage_view.continue_update(dpo.snapshot())
    assert first["value"] == "Continue with GRPO (rewards)" and also["visible"] is False
    page = _in_japanese(lambda: stage_view.follow_up_markdown(dpo.id, "GRPO", follow.notes))
    assert not english_left(page.replace(dpo.model_dir, "")), page


def test_a_finished_sft_run_offers_preference_tuning_or_grpo(tmp_path):
    """Two buttons after SFT: DPO (the next stage) and GRPO (also offered there); GRPO's
    settings continue the SFT run's model on the GRPO demo set after the demo set, at
    GRPO's learning rate, LoRA as the run had it. A stage not offered there is refused."""
    run = _finished_sft(tmp_path, use_peft=True, max_steps=3)
    first, also = stage_view.continue_update(run.snapshot())
    assert (first["value"], also["value"]) == ("Continue with preference tuning",
                                              "Continue with GRPO (rewards)")
    assert first["visible"] and also["visible"]
    follow = preference_after(run, "grpo")
    cfg = follow.config
    assert (cfg.stage, cfg.dataset_name, cfg.model_name_or_path) == (
        "grpo", "demo-grpo", run.model_dir)
    assert cfg.use_peft and cfg.learning_rate == 5e-5 and cfg.validate() == []
    actions = Actions(RunManager(tmp_path), Access.from_env())
    assert actions.continue_with_preference(run.id, "grpo").config == cfg
    assert preference_after(run).config.stage == "dpo"  # the first button's
    with pytest.raises(RunError, match="kto does not follow SFT: choose one of dpo, grpo"):
        preference_after(run, "kto")
    # Nothing to continue: both hidden.
    assert [u["visible"] for u in stage_view.continue_update(None)] == [False, False]


def test_continue_with_grpo_after_a_small_batch_makes_whole_groups(tmp_path):
    """An SFT run of batch 2 x 1: GRPO writes 4 answers per prompt, so Continue raises
    Gradient accumulation to 2 (the batch, which decides the memory, kept) and says so;
    the settings it fills in start (before: 'Answers per prompt (4) must divide ... (2)')."""
    run = _finished_sft(tmp_path, per_device_train_batch_size=2,
                        gradient_accumulation_steps=1)
    follow = preference_after(run, "grpo")
    cfg = follow.config
    assert (cfg.per_device_train_batch_size, cfg.gradient_accumulation_steps,
            cfg.num_generations) == (2, 2, 4)
    assert cfg.validate() == []
    assert any("Gradient accumulation: 2 (was 1)" in n for n in follow.notes)
    page = _in_japanese(lambda: stage_view.follow_up_markdown(run.id, "GRPO", follow.notes))
    assert "勾配累積ステップ数: 2（元は 1）" in page
    assert not english_left(page.replace(run.model_dir, "")), page
    # Batch 3 x 3 and 4 answers: 3 x 4; a batch that already makes whole groups: kept.
    odd = preference_after(_finished_sft(tmp_path, per_device_train_batch_size=3,
                                         gradient_accumulation_steps=3), "grpo").config
    assert (odd.gradient_accumulation_steps, odd.validate()) == (4, [])
    even = preference_after(_finished_sft(tmp_path, per_device_train_batch_size=8,
                                          gradient_accumulation_steps=1), "grpo")
    assert even.config.gradient_accumulation_steps == 1
    assert not any("Gradient accumulation" in n for n in even.notes)
    # DPO after the same small run: nothing to group.
    assert preference_after(run).config.gradient_accumulation_steps == 1


def test_only_a_finished_sft_run_with_a_model_continues(tmp_path):
    running = create_run(tmp_path, RunConfig())
    running.set_state("running", "Training...")
    assert not can_continue(running.snapshot())
    with pytest.raises(RunError, match="once it is done"):
        preference_after(running)
    grpo = _finished_sft(tmp_path, stage="grpo", dataset_name="demo-grpo")
    assert not can_continue(grpo.snapshot())
    with pytest.raises(RunError, match="trained GRPO, which has no next stage"):
        preference_after(grpo)
    gone = _finished_sft(tmp_path)
    (gone.dir / "model").rmdir()
    with pytest.raises(RunError, match="no saved model"):
        preference_after(gone)
    failed = create_run(tmp_path, RunConfig())
    failed.set_state("failed", "", "boom")
    assert not can_continue(failed.snapshot())


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


# ---- the live view's reward plots --------------------------------------------------------
def _snap(metrics):
    return {"run_id": "r1", "name": "r1", "state": "running", "step": 2, "max_steps": 3,
            "metrics": metrics, "samples": [], "error": "", "message": "",
            "eta_seconds": None, "elapsed_seconds": 3.0, "log": "", "config": {}}


def test_the_live_view_plots_rewards_only_for_a_run_that_has_them():
    dpo = _snap([{"step": 1, "loss": 0.69, "rewards/chosen": 0.01, "rewards/rejected": -0.02,
                  "rewards/margins": 0.03, "rewards/accuracies": 0.5, "logps/chosen": -40.0},
                 {"step": 2, "loss": 0.6, "rewards/chosen": 0.05, "rewards/rejected": -0.1,
                  "rewards/margins": 0.15, "rewards/accuracies": 1.0}])
    frame = live_view.reward_frame(dpo)
    assert set(frame["series"]) == {"chosen", "rejected", "margin"} and len(frame) == 6
    assert list(live_view.accuracy_frame(dpo)["value"]) == [0.5, 1.0]
    outputs = ["status", "progress", "loss", "rewards", "accuracy", "lr", "grad", "samples",
               "log", "series", "reward_series", "plot_notes"]
    dpo["config"] = {"stage": "dpo"}
    values, key = live_view.update(dpo, None)
    assert len(values) == len(outputs)
    got = dict(zip(outputs, values))
    assert got["rewards"]["visible"] and got["accuracy"]["visible"]
    assert got["reward_series"] == ("accuracy", "chosen", "margin", "rejected")
    assert got["accuracy"]["label"] == "Reward accuracy"
    assert got["plot_notes"]["visible"] and "jumps to 1 within a few steps" in \
        got["plot_notes"]["value"]
    # ORPO's "rewards" are its own: named and explained as what they are.
    orpo = dict(zip(outputs, live_view.update({**dpo, "config": {"stage": "orpo"}}, None)[0]))
    assert orpo["accuracy"]["label"] == "Chosen answer more likely (share of pairs)"
    assert orpo["rewards"]["label"].startswith("Answer log-probabilities x beta")
    assert "Not rewards against a reference" in orpo["plot_notes"]["value"]
    assert "Reward accuracy" not in orpo["plot_notes"]["value"]
    # An SFT run after it hides them; one before any reward, with nothing shown, sends none.
    sft = {**_snap([{"step": 1, "loss": 2.0}]), "run_id": "r2"}
    got = dict(zip(outputs, live_view.update(sft, key)[0]))
    assert got["rewards"]["visible"] is False and got["reward_series"] == ()
    got = dict(zip(outputs, live_view.update(sft, None)[0]))
    assert got["rewards"]["visible"] is False
    _, shown = live_view.update(sft, None)
    again = dict(zip(outputs, live_view.update({**sft, "log": "x"}, shown)[0]))
    assert not isinstance(again["rewards"], dict) or "visible" not in again["rewards"]
    # Series in the page's language, with colours that follow them.
    names = _in_japanese(lambda: set(live_view.reward_frame(dpo)["series"]))
    assert names == {"選ばれた回答", "退けられた回答", "差"}
    colours = _in_japanese(lambda: live_view.loss_colours(names, live_view.REWARD_COLOURS))
    assert set(colours) == names
    assert set(_in_japanese(lambda: live_view.accuracy_frame(dpo)["series"])) == {"正解率"}


def test_the_plots_axes_say_what_they_show_on_whole_steps():
    """GRPO's no-spread / cut plot: its value axis says shares (of prompts, of answers),
    not "accuracy" (「正解率」); a preference run's says accuracy. Every plot's step axis
    spans 3 steps at least, so that its whole-step ticks come once each ("1 2 3 4": over
    steps 1 to 3 they were "1 2 2 3 3")."""
    outputs = ["status", "progress", "loss", "rewards", "accuracy", "lr", "grad", "samples",
               "log", "series", "reward_series", "plot_notes"]
    grpo = {**_snap([{"step": s, "loss": 0.1, "learning_rate": 1e-5, "grad_norm": 1.0,
                      "reward": 0.5, "frac_reward_zero_std": 0.5,
                      "completions/clipped_ratio": 0.25} for s in (1, 2, 3)]),
            "config": {"stage": "grpo"}}
    got = dict(zip(outputs, live_view.update(grpo, None)[0]))
    assert got["accuracy"]["y_title"] == "share"
    for part in ("loss", "rewards", "accuracy", "lr", "grad"):
        assert got[part]["x_lim"] == [1, 4], (part, got[part])
    assert _in_japanese(lambda: dict(zip(outputs, live_view.update(grpo, None)[0])))[
        "accuracy"]["y_title"] == "割合"
    dpo = {**_snap([{"step": s, "loss": 0.6, "rewards/chosen": 0.1, "rewards/rejected": 0.0,
                     "rewards/margins": 0.1, "rewards/accuracies": 1.0}
                    for s in range(1, 21)]), "config": {"stage": "dpo"}}
    got = dict(zip(outputs, live_view.update(dpo, None)[0]))
    assert got["accuracy"]["y_title"] == "accuracy"
    assert got["loss"]["x_lim"] == got["accuracy"]["x_lim"] == [1, 20]  # long enough


def test_live_view_outputs_match_the_update():
    """LiveView.outputs() and update() agree on the number of outputs."""
    fields = [f.name for f in dataclasses.fields(live_view.LiveView)]
    assert len(fields) == len(live_view.update(_snap([]), None)[0])


def test_the_live_view_sends_only_what_changed():
    """A tick sends a plot only when a step of its own was logged and the log when it
    grew (while the run trains, each at most every PLOT_SECONDS), the samples when one
    came: the page redraws each part it is sent."""
    outputs = [f.name for f in dataclasses.fields(live_view.LiveView)]
    first = _snap([{"step": 1, "loss": 2.0, "learning_rate": 1e-4, "grad_norm": 1.0}])
    _, shown = live_view.update(first, None, now=100.0)
    later = 100.0 + live_view.PLOT_SECONDS

    def sent(snap, now=101.0):
        values, _ = live_view.update(snap, shown, now=now)
        return {name for name, value in zip(outputs, values)
                if not (isinstance(value, type(gr.skip())) and value == gr.skip())}
    assert sent({**first, "elapsed_seconds": 4.0}) == {"progress"}
    assert sent({**first, "log": "a line"}) == set()  # a second after: not yet
    assert sent({**first, "log": "a line"}, later) == {"log"}
    assert live_view.sent_parts({**first, "log": "a line"}, shown, later) == {"log"}
    assert sent({**first, "samples": [{"step": 1, "prompt": "p", "completion": "c"}]}) == {
        "samples"}
    eval_row = {**first, "metrics": [*first["metrics"], {"step": 1, "eval_loss": 2.1}]}
    assert sent(eval_row, later) == {"loss", "series"}  # a new series: "eval"
    step = {**first, "metrics": [*first["metrics"], {"step": 2, "loss": 1.8,
                                                     "learning_rate": 9e-5, "grad_norm": 0.9}]}
    assert sent(step) == set()  # a step a second after the plots were drawn: not yet
    assert sent(step, later) == {"loss", "lr", "grad"}
    assert sent({**step, "state": "done"}) == {"status", "loss", "lr", "grad"}  # its end
    # The step that waited is drawn when the plots are due, with nothing new since.
    values, waited = live_view.update(step, shown, now=101.0)
    again, _ = live_view.update(step, waited, now=later)
    assert sum(not (isinstance(v, type(gr.skip())) and v == gr.skip()) for v in again) == 3
    # Another run: each part drawn again at once, even where its counts are the same.
    assert sent({**step, "run_id": "r2"}) >= {"loss", "lr", "grad", "samples", "log"}


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

