"""Build and run a run's TRL trainer from a RunConfig: SFTTrainer, or the trainer its stage's
family builds (its `trainer` hook), with the model, data, callbacks and saved model. Knows
nothing of Gradio; reports through a RunSink (train/events.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from sft_ui.config import RunConfig, length
from sft_ui.config.trl import STUDIO_SFT_ARGUMENTS, has_eval_data
from sft_ui.data.chat_habits import stops_at_turn_end
from sft_ui.data.openings import continuations
from sft_ui.data.thinking import applied
from sft_ui.data.tokens import load_training_data
from sft_ui.data.turns import as_trained, asked_apart
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.lazy import trl
from sft_ui.models import cache_dir, load_model_and_tokenizer, resolve_model
from sft_ui.plan.hardware import detect, precision
from sft_ui.plan.loading import half_dtype, load_options
from sft_ui.plan.speed import remember_round, remember_run_speed, round_seconds
from sft_ui.stages import PREFERENCE, hook, stage_of
from sft_ui.train import log as runlog
from sft_ui.train.agree import agree
from sft_ui.train.answering import answers_before_training
from sft_ui.train.arguments import to_trl
from sft_ui.train.callbacks import StudioCallback
from sft_ui.train.events import MODEL_SUBDIR, RunSink, announce
from sft_ui.train.held_out import HeldOut, short_answers
from sft_ui.train.lean import studio_trainer
from sft_ui.train.policy import policy
from sft_ui.train.preference import drop_reference_adapter
from sft_ui.train.sample_rounds import sample_prompts


def sft_config(cfg: RunConfig, output_dir: Path, has_eval: bool | None = None):
    """SFTConfig for cfg on this machine: to_trl's values and this process's own
    arguments (where checkpoints go, no progress bars, the text column data/formats.py
    fills)."""
    SFTConfig, _ = trl()
    values = {**to_trl(cfg, has_eval)["train"], **STUDIO_SFT_ARGUMENTS,
              "output_dir": str(output_dir), "dataloader_num_workers": 0}
    return SFTConfig(**values)


def is_main_process() -> bool:
    """False in the other processes of a run launched with accelerate/torchrun."""
    return int(os.environ.get("RANK", "0")) == 0


def base_answers_file(model_path, cfg: RunConfig) -> Path:
    """Where the base model's answers to the sample prompts are kept between runs: one
    file per model (its files' names, sizes and times), prompts, length, precision and
    device."""
    folder, mixed = Path(model_path), precision(cfg.bf16, cfg.fp16)
    files = sorted((p.name, p.stat().st_size, int(p.stat().st_mtime))
                   for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    key = json.dumps([str(folder.resolve()), files, cfg.sample_prompts,
                      cfg.sample_max_new_tokens, cfg.samples_as == "text", mixed == "bf16",
                      mixed == "fp16", cfg.load_in_4bit, detect().device])
    return cache_dir() / "base-answers" / f"{hashlib.sha256(key.encode()).hexdigest()[:20]}.json"


def answer_ahead(name: str, model, tokenizer) -> None:
    """The warm training process, with `name` loaded ahead as `model`: the base model's
    answers to the default sample prompts, kept where a run of that model with those
    prompts finds them (base_answers_file). The first run after the app started then
    reaches its first loss a generation sooner (3.4-4.1 s for the default model on a
    2-core CPU). On a CPU only: a model loaded ahead waits there, and on a GPU the run
    answers faster than a CPU would ahead."""
    cfg = RunConfig(model_name_or_path=name)
    prompts = sample_prompts(cfg.sample_prompts)
    if not cfg.sample_steps or not prompts or detect().device != "cpu":
        return
    answers_before_training(model, tokenizer, prompts, cfg.sample_max_new_tokens,
                            half_dtype(cfg), base_answers_file(resolve_model(name), cfg))


def sft_trainer(cfg: RunConfig, model, tokenizer, output_dir: Path, callbacks, log):
    """SFTTrainer (with the studio's lean CPU step) for cfg, with its data."""
    _, SFTTrainer = trl()
    data = load_training_data(cfg, tokenizer)
    log.info("Data: %s, %d training rows, %d eval rows, format %s. %s",
             data.source.label, len(data.train), len(data.eval or []), data.format,
             " ".join(data.notes))
    # the held-out rows' short answers, matched where a time budget judges the run
    # (train/held_out.py; read before the SFTConfig, which resets the accelerator state)
    answers = short_answers(cfg, tokenizer, data.eval) if data.eval else []
    apart = asked_apart(cfg, data.train, tokenizer)  # (the eval rows are shaped alike)
    data.train, how = as_trained(cfg, data.train, tokenizer, apart)  # each answer's mask
    if how:
        data.eval = as_trained(cfg, data.eval, tokenizer, apart)[0] if data.eval else None
        log.info("%s", how)
    train_set, eval_set = data.datasets()
    args = sft_config(cfg, output_dir, eval_set is not None)
    trained, lora = policy(cfg, model, log)
    trainer = studio_trainer(SFTTrainer)(
        model=trained, args=args, train_dataset=train_set, eval_dataset=eval_set,
        processing_class=tokenizer, peft_config=lora, callbacks=callbacks)
    if len(trainer.train_dataset) == 0:  # TRL drops the examples with no answer left
        raise UserError(Message(
            "Nothing to train on: Max length ({max_length} tokens) cuts every example's "
            "answer away (of {train_set} rows, none keeps an answer token within it), and "
            "the loss is counted on answers only. Raise Max length, or turn Loss on answers "
            "only off.", max_length=cfg.max_length, train_set=len(train_set)))
    trainer.held_out_answers = answers
    if cfg.samples_as == "text":  # each opening's true continuation, beside its sample
        texts = [r.get("text") for r in (data.eval or []) + data.train]
        trainer.sample_references = continuations(
            sample_prompts(cfg.sample_prompts), texts, tokenizer, cfg.sample_max_new_tokens)
    return trainer


def train(cfg: RunConfig, run_dir: Path, sink: RunSink, resume_from: Path | None = None) -> Path:
    """Train to the end or until the sink asks to stop; save and return the model folder.
    With `resume_from` (a checkpoint folder) continue with its optimizer and RNG state.
    Enforces a time budget's deadline given by the sink; the budget itself is resolved
    where the run started (plan/budget.py)."""
    from transformers import PrinterCallback  # heavy: loaded with TRL, on first use
    run_dir.mkdir(parents=True, exist_ok=True)
    main = is_main_process()
    with runlog.capture(run_dir) if main else runlog.quiet() as log:
        announce(sink, "loading")
        model_path = resolve_model(cfg.model_name_or_path)
        log.info("Loading %s", cfg.model_name_or_path)
        if cfg.trust_remote_code:
            log.warning("trust_remote_code is on: the model's own Python code runs in this "
                        "process")
        model, tokenizer = load_model_and_tokenizer(model_path, cfg.trust_remote_code,
                                                    trainable_adapter=cfg.use_peft,
                                                    **load_options(cfg))
        tokenizer, said = applied(tokenizer, cfg.enable_thinking)  # (saved with the model)
        if said:
            log.info("%s", said)
        stops_at_turn_end(model, tokenizer)  # its samples, answers and saved config
        if getattr(model, "loaded_ahead", False):
            log.info("The model was loaded ahead, while the app waited for Start")
        deadline = getattr(sink, "deadline", None)  # a sink without one: no time budget
        stage = stage_of(cfg)
        # (a stage whose trainer shows its own answers asks no sample prompts)
        callback = StudioCallback(sink, tokenizer, cfg.sample_prompts,
                                  0 if stage.own_samples else cfg.sample_steps,
                                  cfg.sample_max_new_tokens, log,
                                  base_answers_file(model_path, cfg), half_dtype(cfg),
                                  deadline=deadline, fit=getattr(sink, "fit_steps", False),
                                  expected_round=round_seconds(cfg),
                                  as_text=cfg.samples_as == "text")
        checkpoints = run_dir / "checkpoints"
        processes = int(os.environ.get("WORLD_SIZE", "1"))
        trainer = hook(stage, "trainer")(cfg, model, tokenizer, checkpoints, [callback],
                                         log)
        callback.references = getattr(trainer, "sample_references", [])
        if deadline and has_eval_data(cfg) and processes == 1 and \
                trainer.eval_dataset is not None:
            # a time budget spent on what the held-out rows measure (an SFT trainer's
            # short answers too: sft_trainer)
            answers = getattr(trainer, "held_out_answers", [])
            callback.judge = HeldOut(answers=answers, tokenizer=tokenizer,
                                     measure=stage.judged_by)
            key, higher = stage.judged_by
            measure = key.removeprefix("eval_")
            log.info("Held-out rows judge the run: it ends where their %s stops %s (or at "
                     "the budget's end) and keeps the best model they saw",
                     *((f"exact match, then {measure},", "improving") if answers
                       else (measure, "rising" if higher else "falling")))
        trainer.remove_callback(PrinterCallback)  # the run's log has the records instead
        args = trainer.args
        log.info("Training (%s): effective batch %d on %d process%s, %s, %s%s", stage.title,
                 cfg.effective_batch(processes), processes, "es" if processes > 1 else "",
                 f"{cfg.max_steps} steps" if cfg.train_by == "steps"
                 else f"{cfg.num_train_epochs:g} epochs",
                 "bf16" if args.bf16 else "fp16" if args.fp16 else "fp32",
                 (", QLoRA (4-bit base)" if cfg.load_in_4bit else ", LoRA") if cfg.use_peft
                 else ", full fine-tuning")
        if length.said(cfg):  # a length given and not used, said again where it trains
            log.info("%s", length.said(cfg))
        if deadline:
            log.info("Time budget %g min: training ends by %s", cfg.time_budget_minutes,
                     time.strftime("%H:%M:%S", time.localtime(deadline)))
        if args.use_liger_kernel:
            log.info("Liger kernels on")
        if getattr(trainer, "lean", False):
            log.info("CPU step: the loss on labelled positions only, %s",
                     "padding-free batches" if trainer.padding_free_batches else "padded batches")
        try:
            trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
            _final_eval(trainer, sink)
        finally:
            getattr(trainer, "close_rewards", lambda: None)()  # a written reward's worker
        # (a resumed run's log mixes two starts; a preference step's speed is an SFT step's
        # with its reference passes counted (plan/passes.step_cost), so its own is not
        # remembered; GRPO's, with the answers it writes, is its stage's own)
        if main and not resume_from and stage.family != PREFERENCE:
            speed = remember_run_speed(cfg, trainer.state.log_history)
            if speed:
                log.info("Remembered %.0f tokens/s for the plan of these settings", speed)
        if main and callback.round_seconds is not None:  # the plan counts the rounds
            remember_round(cfg, callback.round_seconds)
        out = run_dir / MODEL_SUBDIR
        announce(sink, "saving")
        drop_reference_adapter(trainer.model)
        trainer.save_model(str(out))  # the main process writes, the others wait
        if main:
            tokenizer.save_pretrained(str(out))
        log.info("Saved the model to %s", out)
    _leave_process_group()
    return out


def _final_eval(trainer, sink) -> None:
    """The eval loss of the model the run saves, where it has eval data and its last step
    had none (a sweep judges its trials on it; the card's final eval loss is the saved
    model's). Not after a Stop: the person asked for the model as it is, now."""
    state = trainer.state
    if trainer.eval_dataset is None or agree(sink.stop_requested(), trainer.args.device):
        return
    if any("eval_loss" in h and h.get("step") == state.global_step for h in state.log_history):
        return
    trainer.evaluate()


def _leave_process_group() -> None:
    """The processes of a run of several end their group together before they exit:
    gloo's threads left to the interpreter's exit can abort a process (SIGABRT) after a
    good run, and one that ends it early leaves another waiting for it."""
    import torch.distributed as dist  # heavy: torch, loaded with the trainer
    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
