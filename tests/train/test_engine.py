"""The engine on a tiny model: losses logged, weights changed, samples produced,
stop saves, one run at a time, run folders survive a restart."""
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from sft_ui import i18n
from sft_ui.config import ConfigError, RunConfig
from sft_ui.runs import Run, RunError, RunManager
from tests.conftest import wait_for


def _finished(manager, run_id):
    snap = manager.get(run_id).snapshot()
    return snap if snap["state"] in ("done", "stopped", "failed") else None


def test_tiny_run_logs_losses_changes_weights_and_samples(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path)
    run_id = manager.start(tiny_cfg)
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    losses = [m["loss"] for m in snap["metrics"] if "loss" in m]
    assert len(losses) == 2 and all(l > 0 and l == l for l in losses)
    steps = sorted({s["step"] for s in snap["samples"]})
    assert steps == [0, 1, 2]  # before training, every step
    assert {s["prompt"] for s in snap["samples"]} == set(RunConfig().sample_prompts)
    assert all(isinstance(s["completion"], str) for s in snap["samples"])
    before = load_file(Path(tiny_cfg["model_name_or_path"]) / "model.safetensors")
    after = load_file(Path(snap["model_dir"]) / "model.safetensors")
    changed = [k for k in before if not torch.equal(before[k], after[k])]
    assert len(changed) >= len(before) // 2, "training did not change the weights"
    folder = Path(snap["run_dir"])
    for name in ("config.yaml", "state.json", "metrics.jsonl", "samples.jsonl"):
        assert (folder / name).exists(), name
    assert len((folder / "metrics.jsonl").read_text().splitlines()) >= 2


def test_no_sample_round_just_before_the_final_one(tmp_path, tiny_cfg):
    """Every 4 steps of 5: the round at step 4 would show what step 5's shows, at the
    cost of a round: before training and at the end only. Every 2 steps of 5: each round
    the person asked for (2 and 4), and the final one."""
    for every, expected in ((4, [0, 5]), (2, [0, 2, 4, 5])):
        manager = RunManager(tmp_path / str(every))
        run_id = manager.start({**tiny_cfg, "max_steps": 5, "sample_steps": every})
        snap = wait_for(lambda: _finished(manager, run_id))  # noqa: B023 (waited here)
        assert snap["state"] == "done", snap["error"]
        assert sorted({s["step"] for s in snap["samples"]}) == expected, every


def test_stop_ends_after_the_current_step_and_saves(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "max_steps": 5000, "sample_steps": 0})
    wait_for(lambda: manager.get(run_id).step >= 2)
    assert manager.stop(run_id)["state"] == "stopping"
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "stopped", snap["error"]
    assert 2 <= snap["step"] < 5000
    assert (Path(snap["model_dir"]) / "model.safetensors").exists()
    assert "saved" in snap["message"]


def test_one_active_run_and_validation_before_any_folder(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path)
    with pytest.raises(ConfigError, match="at least 1"):
        manager.start({**tiny_cfg, "per_device_train_batch_size": 0})
    assert list(tmp_path.iterdir()) == []  # nothing written for a bad config
    run_id = manager.start({**tiny_cfg, "max_steps": 5000, "sample_steps": 0})
    with pytest.raises(RunError, match="still training"):
        manager.start(tiny_cfg)
    manager.stop(run_id)
    wait_for(lambda: _finished(manager, run_id))
    assert len(list(tmp_path.iterdir())) == 1


def test_failure_in_training_marks_the_run_failed_and_keeps_the_app(tmp_path, tiny_cfg):
    def broken_train(cfg, run_dir, sink, resume_from=None):
        raise RuntimeError("disk on fire")
    manager = RunManager(tmp_path, trainer=broken_train)
    run_id = manager.start(tiny_cfg)
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "failed" and "disk on fire" in snap["error"]
    assert (Path(snap["run_dir"]) / "error.log").exists()
    again = manager.start(tiny_cfg)  # the next run is accepted (and fails as well)
    assert wait_for(lambda: _finished(manager, again))["state"] == "failed"


def test_a_length_that_cuts_every_answer_away_says_so(tmp_path, tiny_cfg):
    """Chats whose system prompt alone fills Max length, with the loss on answers only:
    TRL drops every example; the run fails saying why and what to do, not with the
    sampler's 'num_samples=0'."""
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "max_length": 16, "completion_only_loss": True,
                            "sample_steps": 0})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "failed"
    assert "Nothing to train on: Max length (16 tokens) cuts every example's answer away" \
        in snap["error"] and "Raise Max length" in snap["error"], snap["error"]
    assert "num_samples" not in snap["error"]
    said = i18n.translate(snap["error"], "ja")  # (a Message, said in the reader's language)
    assert said.startswith("学習するものがありません: 最大長（16 トークン）"), said


def test_runs_survive_a_restart(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path)
    run_id = manager.start(tiny_cfg)
    done = wait_for(lambda: _finished(manager, run_id))
    again = RunManager(tmp_path)  # a new process would build exactly this
    snap = again.get(run_id).snapshot()
    assert snap["state"] == "done" and snap["metrics"] == done["metrics"]
    assert snap["samples"] == done["samples"]
    assert [r["run_id"] for r in again.list_runs()] == [run_id]
    assert again.latest_finished().id == run_id
    # A run cut off mid-way (process killed) comes back as failed, not as running.
    state = json.loads((tmp_path / run_id / "state.json").read_text())
    (tmp_path / run_id / "state.json").write_text(json.dumps({**state, "state": "running"}))
    assert Run.load(tmp_path / run_id).state == "failed"


def test_unknown_run_ids_are_refused(tmp_path):
    manager = RunManager(tmp_path)
    for bad in ("", "nope", "../etc", "a/b"):
        with pytest.raises(RunError, match="No run"):
            manager.get(bad)


def test_lora_run_trains_an_adapter(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "use_peft": True, "lora_r": 4, "lora_alpha": 8,
                            "sample_steps": 0})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    assert (Path(snap["model_dir"]) / "adapter_config.json").exists()
    assert [m["loss"] for m in snap["metrics"] if "loss" in m]


def test_stop_then_resume_matches_an_uninterrupted_run(tmp_path, tiny_cfg, monkeypatch):
    cfg = {**tiny_cfg, "max_steps": 6, "sample_steps": 0, "seed": 7}
    manager = RunManager(tmp_path)
    straight = manager.start(cfg)
    reference = wait_for(lambda: _finished(manager, straight))
    assert reference["state"] == "done", reference["error"]

    # Stop deterministically right after step 3 (the check runs at each step's end).
    monkeypatch.setattr(Run, "stop_requested", lambda self: self.step >= 3)
    run_id = manager.start(cfg)
    stopped = wait_for(lambda: _finished(manager, run_id))
    assert stopped["state"] == "stopped" and stopped["step"] == 3, stopped["error"]
    assert (tmp_path / run_id / "checkpoints" / "checkpoint-3" / "optimizer.pt").exists()
    monkeypatch.undo()

    with pytest.raises(RunError, match="only a stopped or failed run"):
        manager.resume(straight)
    assert manager.resume(run_id) == run_id
    resumed = wait_for(lambda: _finished(manager, run_id))
    assert resumed["state"] == "done" and resumed["step"] == 6, resumed["error"]

    def losses(snap):
        return [(m["step"], m["loss"]) for m in snap["metrics"] if "loss" in m]
    assert [s for s, _ in losses(resumed)] == [1, 2, 3, 4, 5, 6]  # one series, same id
    for (step, a), (_, b) in zip(losses(reference), losses(resumed)):
        assert abs(a - b) < 1e-4, (step, a, b)


def test_epochs_packing_eval_and_checkpoint_limit(tmp_path, tiny_cfg, monkeypatch):
    """Train by epochs with packing, NEFTune, a warmup ratio, held-out eval data and at
    most one checkpoint kept: the trainer itself runs with those settings (its SFTConfig,
    its packed dataset, its step count, a NEFTune hook adding noise to the embeddings);
    the log panel's file names every step."""
    import math
    import re

    from sft_ui.train import callbacks
    seen = {}
    original = callbacks.StudioCallback.on_train_begin

    def spy(self, args, state, control, model=None, train_dataloader=None, **kwargs):
        emb = model.get_input_embeddings()
        ids = torch.arange(8, device=emb.weight.device).unsqueeze(0)
        with torch.random.fork_rng(), torch.no_grad():  # the run's randomness stays as is
            was_training = emb.training
            emb.train()  # NEFTune adds noise in training mode only
            noise = emb(ids) - emb.weight[ids]
            emb.train(was_training)
        dataset = train_dataloader.dataset
        packed = "seq_lengths" in dataset.column_names  # TRL's packing adds it
        seen.update(args=args, max_steps=state.max_steps, batches=len(train_dataloader),
                    sequences=len(dataset),
                    seq_lengths=list(dataset["seq_lengths"]) if packed else [],
                    lengths=[len(r) for r in dataset["input_ids"]],
                    hooks=[h.__name__ for h in emb._forward_hooks.values()],
                    noise=noise.abs().max().item(), width=emb.weight.shape[1])
        return original(self, args, state, control, model=model,
                        train_dataloader=train_dataloader, **kwargs)
    monkeypatch.setattr(callbacks.StudioCallback, "on_train_begin", spy)
    manager = RunManager(tmp_path)
    # 236 rows of 53-74 tokens: at max_length 64 none share a sequence, at 192 two or three do.
    run_id = manager.start({**tiny_cfg, "train_by": "epochs", "num_train_epochs": 0.05,
                            "per_device_train_batch_size": 2, "packing": True,
                            "max_length": 192, "neftune_noise_alpha": 5,
                            "warmup_steps": 0.25, "eval_fraction": 0.05, "eval_steps": 2,
                            "save_steps": 1, "save_total_limit": 1, "sample_steps": 0})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    log = (tmp_path / run_id / "train.log").read_text()
    rows = int(re.search(r"Data: .*?, (\d+) training rows", log).group(1))
    assert "Eval: 12 rows held out" in log

    args = seen["args"]  # the SFTConfig the trainer ran with
    assert args.packing is True and args.max_length == 192
    assert args.neftune_noise_alpha == 5
    assert args.num_train_epochs == 0.05 and args.max_steps == -1  # epochs, not steps
    # Packing: fewer sequences than rows, several rows in one, none over max_length, and
    # the rows' lengths in each sequence add up to its length.
    assert seen["sequences"] < rows
    assert seen["seq_lengths"] and max(len(s) for s in seen["seq_lengths"]) > 1
    assert all(n <= 192 for n in seen["lengths"])
    assert sum(seen["lengths"]) == sum(map(sum, seen["seq_lengths"]))
    # transformers' Trainer.set_initial_training_values, one process, drop_last off:
    #   batches = ceil(sequences / per_device_batch)
    #   update steps per epoch = max(ceil(batches / gradient_accumulation), 1)
    #   max_steps = ceil(num_train_epochs * update steps per epoch)
    batch, accumulation = 2, tiny_cfg["gradient_accumulation_steps"]
    assert seen["batches"] == math.ceil(seen["sequences"] / batch)
    expected = math.ceil(0.05 * max(math.ceil(seen["batches"] / accumulation), 1))
    unpacked = math.ceil(0.05 * max(math.ceil(math.ceil(rows / batch) / accumulation), 1))
    assert seen["max_steps"] == expected != unpacked  # packing changed the step count
    # NEFTune: its hook is on the input embeddings and adds noise of at most
    # alpha / sqrt(sequence length * width) to each value.
    assert "neftune_post_forward_hook" in seen["hooks"]
    assert 0 < seen["noise"] <= 5 / math.sqrt(8 * seen["width"]) + 1e-6

    train = [m for m in snap["metrics"] if "loss" in m]
    assert snap["max_steps"] == snap["step"] == len(train) == expected >= 2
    assert [m for m in snap["metrics"] if "eval_loss" in m]
    assert all(m["memory_bytes"] > 0 for m in train)
    assert [m for m in train if m.get("tokens_per_second", 0) > 0]
    assert train[0]["learning_rate"] < max(m["learning_rate"] for m in train)  # warmup
    checkpoints = list((tmp_path / run_id / "checkpoints").glob("checkpoint-*"))
    assert len(checkpoints) == 1
    for m in train:
        assert f"step {m['step']}: loss" in log


def test_lora_training_changes_the_logits_and_disabling_it_gives_the_base(tmp_path,
                                                                          tiny_cfg):
    """The saved adapter on its base model answers a fixed input with other logits than
    the base alone; the same model with the adapter disabled gives the base's logits."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "use_peft": True, "lora_r": 4, "lora_alpha": 8,
                            "learning_rate": 1e-2, "max_steps": 3, "sample_steps": 0})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    adapter = Path(snap["model_dir"])
    assert (adapter / "adapter_config.json").exists()

    base_dir = tiny_cfg["model_name_or_path"]
    ids = AutoTokenizer.from_pretrained(base_dir)("Ahoy, where is the treasure?",
                                                  return_tensors="pt")["input_ids"]
    with torch.no_grad():
        base = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.float32).eval()
        base_logits = base(ids).logits.clone()
        tuned = PeftModel.from_pretrained(base, str(adapter)).eval()
        tuned_logits = tuned(ids).logits
        with tuned.disable_adapter():
            disabled_logits = tuned(ids).logits
    assert (tuned_logits - base_logits).abs().max().item() > 1e-3, "the adapter is a no-op"
    assert (disabled_logits - base_logits).abs().max().item() < 1e-5


def test_answers_before_training_are_generated_once_per_model(tmp_path, tiny_cfg,
                                                              monkeypatch):
    """Greedy answers of the same base model are the same every run: the second run
    takes them from the cache instead of generating them at step 0."""
    from sft_ui.train import answering, sample_rounds
    monkeypatch.setenv("SFT_UI_CACHE", str(tmp_path / "cache"))
    calls = []
    original = sample_rounds.generate_batch

    def counted(model, tokenizer, prompts, max_new_tokens, half=None, as_text=False):
        calls.append(model.training)
        return original(model, tokenizer, prompts, max_new_tokens, half, as_text)
    monkeypatch.setattr(sample_rounds, "generate_batch", counted)  # the rounds while training
    monkeypatch.setattr(answering, "generate_batch", counted)  # the answers before it
    manager = RunManager(tmp_path / "runs")
    cfg = {**tiny_cfg, "sample_steps": 1000}  # only the answers before and after training
    samples = []
    for _ in range(2):
        run_id = manager.start(cfg)
        wait_for(lambda: manager.get(run_id).state == "done")
        samples.append(manager.get(run_id).samples)
    assert len(calls) == 3  # before + after in the first run, after only in the second
    first, second = ([r for r in s if r["step"] == 0] for s in samples)
    assert first == second and len(first) == 3
    # Other prompts are other answers: generated again.
    run_id = manager.start({**cfg, "sample_prompts": ["Say hi."]})
    wait_for(lambda: manager.get(run_id).state == "done")
    assert len(calls) == 5


def test_the_warm_worker_answers_the_default_prompts_ahead(tmp_path, tiny_cfg, monkeypatch):
    """The warm training process, with the likely model loaded ahead, keeps that model's
    answers to the default sample prompts: the first run of it with those prompts shows
    them at step 0 without generating them then."""
    import gc

    from sft_ui.backends import worker
    from sft_ui.train import answering, sample_rounds
    monkeypatch.setenv("SFT_UI_CACHE", str(tmp_path / "cache"))
    calls = []
    original = sample_rounds.generate_batch

    def counted(model, tokenizer, prompts, max_new_tokens, half=None, as_text=False):
        calls.append(list(prompts))
        return original(model, tokenizer, prompts, max_new_tokens, half, as_text)
    monkeypatch.setattr(sample_rounds, "generate_batch", counted)  # the rounds while training
    monkeypatch.setattr(answering, "generate_batch", counted)  # the answers before it
    defaults = RunConfig()
    try:
        worker.warm_up(tiny_cfg["model_name_or_path"])
    finally:
        gc.unfreeze()
    assert calls == [defaults.sample_prompts]
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "sample_steps": 1000,  # before and after training
                            "sample_max_new_tokens": defaults.sample_max_new_tokens})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    assert len(calls) == 2  # ahead, and after training: none at step 0
    before = [s for s in snap["samples"] if s["step"] == 0]
    assert [s["prompt"] for s in before] == defaults.sample_prompts
    log = (manager.get(run_id).dir / "train.log").read_text()
    assert "The model was loaded ahead" in log and "Sample answers at step 0" in log
