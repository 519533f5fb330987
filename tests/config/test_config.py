"""RunConfig: coercion, validate() messages, presets."""
import pytest

from sft_ui.config import ConfigError, RunConfig, load_preset, preset_names


def test_defaults_are_valid_and_effective_batch():
    cfg = RunConfig()
    assert cfg.validate() == []
    assert cfg.effective_batch() == 8
    assert cfg.effective_batch(devices=2) == 16


@pytest.mark.parametrize("values, needle", [
    ({"per_device_train_batch_size": 0}, "per_device_train_batch_size"),
    ({"max_steps": -1}, "max_steps"),
    ({"learning_rate": 0}, "learning_rate) must be greater than 0 (got 0.0)"),
    ({"lr_scheduler_type": "zigzag"}, "must be one of"),
    ({"model_name_or_path": "  "}, "Model is empty"),
    ({"sample_steps": 5, "sample_prompts": []}, "no sample prompts"),
    ({"warmup_steps": 50, "max_steps": 10}, "warmup_steps (50) must be smaller"),
    ({"warmup_steps": 2.5}, "must be a whole number of steps, or a fraction below 1"),
    ({"save_total_limit": 2, "save_steps": 0}, "no checkpoints are saved"),
    ({"eval_fraction": 0.1, "dataset_test_split": "test"}, "Choose one source of eval data"),
    ({"eval_fraction": 0.1, "eval_dataset_name": "e.jsonl"}, "Choose one source of eval data"),
    ({"eval_fraction": 0.9}, "eval_fraction) must be at most 0.5"),
    ({"dataset_format": "template"}, "the template is empty"),
    ({"dataset_format": "csv"}, "must be one of auto, text"),
    ({"use_peft": True, "lora_target_modules": " "}, "LoRA target modules is empty"),
    ({"dataset_text_field": ""}, "Text field is empty"),
    ({"train_by": "hours"}, "must be one of steps, epochs"),
    ({"train_by": "epochs", "num_train_epochs": 0}, "num_train_epochs) must be at least 0.01"),
    ({"packing_strategy": "tight"}, "must be one of bfd, bfd_split, wrapped"),
    ({"neftune_noise_alpha": -1}, "neftune_noise_alpha) must be at least 0"),
])
def test_validate_names_the_problem(values, needle):
    problems = RunConfig.from_dict(values).validate()
    assert any(needle in p for p in problems), problems


def test_only_a_stage_that_compares_answers_in_a_batch_says_so():
    """Batch size 0: every stage is told its batch's range; only KTO (which compares the
    answers within a batch, minimum 2) adds that it compares them. SFT, DPO, ORPO and
    GRPO compare nothing within a batch, and said so."""
    for stage in ("sft", "dpo", "orpo", "grpo", "kto"):
        problems = RunConfig.from_dict({"stage": stage,
                                        "per_device_train_batch_size": 0}).validate()
        assert any("per_device_train_batch_size) must be at least 1" in p
                   for p in problems), (stage, problems)
        compares = [p for p in problems if "compares answers within a batch" in p]
        assert compares == (["KTO compares answers within a batch: set Batch size per "
                             "device to 2 or more."] if stage == "kto" else []), stage
    assert any("KTO compares answers" in p for p in RunConfig.from_dict(
        {"stage": "kto", "per_device_train_batch_size": 1}).validate())


def test_from_dict_coerces_ui_values_and_rejects_bad_ones():
    cfg = RunConfig.from_dict({"max_steps": 5.0, "bf16": "auto", "use_peft": "true",
                               "sample_prompts": "a\n\nb\n"})
    assert cfg.max_steps == 5 and cfg.bf16 is None and cfg.use_peft is True
    assert cfg.sample_prompts == ["a", "b"]
    with pytest.raises(ConfigError) as e:
        RunConfig.from_dict({"max_steps": "ten", "batch": 3, "learning_rate": "nan"})
    text = " ".join(e.value.messages)
    assert "Max steps (max_steps) must be a whole number" in text
    assert "Unknown setting 'batch'" in text
    assert "Learning rate (learning_rate) must be a finite number" in text


def test_yaml_round_trip_and_presets(tmp_path):
    cfg = RunConfig(max_steps=7, sample_prompts=["x"])
    path = tmp_path / "c.yaml"
    path.write_text(cfg.to_yaml())
    assert RunConfig.from_yaml(path) == cfg
    assert {"default", "opt350m-imdb"} <= set(preset_names())
    seed = load_preset("opt350m-imdb")
    assert (seed.model_name_or_path, seed.dataset_name, seed.per_device_train_batch_size,
            seed.gradient_accumulation_steps, seed.max_steps, seed.logging_steps,
            seed.save_steps, seed.learning_rate, seed.weight_decay) == \
        ("facebook/opt-350m", "imdb", 4, 8, 1000, 100, 500, 1e-5, 0.01)
    assert load_preset("default").validate() == []


def test_live_view_helpers():
    """Loss frame: train, smoothed and eval series with numeric columns; no frame at all
    before the first value (the plot types its axes from the first frame); samples
    newest first."""
    from sft_ui.ui.run_frames import loss_frame, metric_frame, samples_frame, smooth
    from sft_ui.ui.train_tab import effective_batch_text
    assert loss_frame(None) is None and metric_frame({"metrics": []}, "grad_norm") is None
    frame = loss_frame({"metrics": [{"step": 1, "loss": 2.5}, {"step": 1, "train_runtime": 3.0},
                                    {"step": 2, "loss": 1.5}, {"step": 2, "eval_loss": 2.0}]})
    assert frame["value"].dtype == "float64" and frame["step"].dtype == "int64"
    train = frame[frame.series == "train"]
    assert train["value"].tolist() == [2.5, 1.5] and train["step"].tolist() == [1, 2]
    assert frame[frame.series == "eval"]["value"].tolist() == [2.0]
    assert frame[frame.series == "train (smoothed)"]["value"].tolist() == [
        float(f"{v:.4g}") for v in smooth([2.5, 1.5])]  # as the tooltip shows them
    tooltip = loss_frame({"metrics": [{"step": 1, "loss": 2.2781023979}]})
    assert tooltip["value"].tolist() == [2.278, 2.278]
    assert metric_frame({"metrics": [{"step": 1, "learning_rate": 1.6666667e-05}]},
                        "learning_rate")["value"].tolist() == [1.667e-05]
    assert smooth([2.0]) == [2.0] and 1.5 < smooth([2.5, 1.5])[1] < 2.5
    samples = samples_frame({"samples": [{"step": 0, "prompt": "p", "completion": "a"},
                                         {"step": 5, "prompt": "p", "completion": "b"}]})
    assert samples["step"].tolist() == [5, 0]
    assert "Effective batch: 12" in effective_batch_text(3, 4)
    for batch, accum in ((0, 2), (2, 0), ("x", 2)):  # never "Effective batch: 0 = 0 x 2"
        assert "1 or more" in effective_batch_text(batch, accum), (batch, accum)


def test_every_setting_has_a_place_in_the_page():
    import dataclasses

    from sft_ui.config.registry import panels
    shown = [n for panel in panels() for n in panel.names]
    assert sorted(shown) == sorted(f.name for f in dataclasses.fields(RunConfig))
    assert all(f.metadata["help"] and f.metadata["label"] for f in dataclasses.fields(RunConfig))
