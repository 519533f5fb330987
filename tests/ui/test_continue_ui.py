"""The page's "Continue with preference tuning" (or GRPO) after a finished run, without a
browser: which runs it is offered for, and the run it fills in (stage, model, data,
settings) with its notes in the page's language."""
from __future__ import annotations

import pytest

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.config import RunConfig
from sft_ui.runs import RunError, RunManager
from sft_ui.runs.next_stage import can_continue, preference_after
from sft_ui.runs.run import create_run
from sft_ui.ui import stage_view
from tests.i18n.test_i18n import JAPANESE, _in_japanese, english_left


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
