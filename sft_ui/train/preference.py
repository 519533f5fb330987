"""The trainer of a preference run (DPO, ORPO, KTO; named by its Stage): the stage's arguments,
its rows as TRL reads them (KTO's ordered and weighed), the check of a named reference
model, and the policy with its reference model. The engine (train/engine.py) loads the
model, runs and saves the trainer.
"""
from __future__ import annotations

import copy
from pathlib import Path

from sft_ui.config import ConfigError, RunConfig
from sft_ui.data import likelihood
from sft_ui.data.formats import DataError, chat_note
from sft_ui.data.load import eval_source, hold_out
from sft_ui.data.preference import interleaved_labels, load_preference, unpaired
from sft_ui.errors import said
from sft_ui.i18n.message import Message, as_message
from sft_ui.lazy import trl_class
from sft_ui.models import ModelError, load_model_and_tokenizer, load_tokenizer, resolve_model
from sft_ui.plan.loading import load_options
from sft_ui.plan.passes import trains_on_adapter
from sft_ui.plan.shape import model_shape
from sft_ui.stages import stage_of
from sft_ui.stages.preference import SFT_TERM
from sft_ui.train.arguments import to_trl
from sft_ui.train.policy import is_adapter, policy

REFERENCE_ADAPTER = "ref"  # the name TRL gives the frozen copy of a trained-on adapter


def training_arguments(cfg: RunConfig, output_dir: Path):
    """The stage's Config (DPOConfig, ORPOConfig, KTOConfig) for cfg on this machine."""
    Config = trl_class(*stage_of(cfg).config)
    values = {**to_trl(cfg)["train"], "output_dir": str(output_dir),
              "dataloader_num_workers": 0, "disable_tqdm": True}
    return Config(**values)


def preference_rows(cfg: RunConfig, tokenizer):
    """The run's preference rows as datasets.Dataset: (train, eval or None, the
    PreferenceData of the training rows, a note on the eval rows). Eval rows: an eval
    file or split of pairs, or a held-out fraction fixed by the seed."""
    import datasets  # heavy: loaded on first use
    data = load_preference(cfg.dataset_name, cfg, cfg.stage, cfg.dataset_train_split,
                           tokenizer)
    if data.conversational and not getattr(tokenizer, "chat_template", None):
        raise DataError(Message("The model has no chat template, so conversational {format} "
                                "rows cannot be rendered. Use an instruct model, or rows of "
                                "plain text.", format=as_message(data.format)))
    rows, held, note = data.rows, None, ""
    eval_name, eval_split = eval_source(cfg)
    if eval_name:
        found = load_preference(eval_name, cfg, cfg.stage, eval_split, tokenizer)
        held = _as_read(cfg, found.format, found.rows)
        note = Message("Eval: {count} rows from {file}.", count=len(found.rows),
                       file=found.source.label)
    elif cfg.eval_fraction > 0:
        rows, kept = hold_out(rows, cfg.eval_fraction, cfg.seed)
        held = _as_read(cfg, data.format, kept)
        note = Message("Eval: {count} rows held out (seed {seed}).", count=len(kept),
                       seed=cfg.seed)
    if cfg.max_train_samples and cfg.max_train_samples < len(rows):
        rows = rows[:cfg.max_train_samples]
    datasets.disable_progress_bars()
    return (datasets.Dataset.from_list(_as_read(cfg, data.format, rows)),
            datasets.Dataset.from_list(held) if held else None, data, note)


def _as_read(cfg: RunConfig, fmt: str, rows: list[dict]) -> list[dict]:
    """Rows in the order the stage's trainer should read them: for KTO (which reads in
    order) unpaired, good and bad answers alternating."""
    if not stage_of(cfg).unpaired:
        return rows
    if fmt == "implicit preference":
        extract_prompt = trl_class("trl.data_utils", "extract_prompt")
        rows = [extract_prompt(row) for row in rows]
    if fmt != "unpaired preference":
        rows = unpaired(rows)
    return interleaved_labels(rows, cfg.seed)


def check_reference(cfg: RunConfig) -> None:
    """Before a run folder exists: a named Reference model exists, loads (its config and
    tokenizer) and reads the trained model's vocabulary; ConfigError with the fix."""
    named = cfg.ref_model.strip()
    if not named or not stage_of(cfg).reference:
        return
    try:
        ref_path = resolve_model(named)
        model_shape(named)
        ref = load_tokenizer(ref_path, cfg.trust_remote_code).get_vocab()
    except ModelError as e:
        raise ConfigError([Message("Reference model: {error}", error=said(e))]) from e
    except (OSError, ValueError, KeyError) as e:
        raise ConfigError([Message(
            "The reference model {name} does not load ({kind}: {error}): choose a model folder "
            "or Hub id that loads, or leave Reference model blank (the model training starts "
            "from).", name=named, kind=type(e).__name__, error=str(e))]) from e
    policy = load_tokenizer(resolve_model(cfg.model_name_or_path),
                            cfg.trust_remote_code).get_vocab()
    if ref != policy:
        raise ConfigError([Message(
            "The reference model {name} reads another vocabulary than the trained model ({n} "
            "and {m} tokens): the reference must share its tokenizer. Choose a model of the "
            "same family (for example the SFT run's model), or leave Reference model blank "
            "(the model training starts from).", name=named, n=f"{len(ref):,}",
            m=f"{len(policy):,}")])


def label_weights(cfg: RunConfig, good: int, bad: int, log) -> tuple[float, float]:
    """KTO's (desirable_weight, undesirable_weight): the settings, or where left at 0
    (auto) chosen from the label counts so that desirable_weight x good answers equals
    undesirable_weight x bad answers (the lower end of TRL's advised 1 to 4/3)."""
    desirable, undesirable = cfg.desirable_weight, cfg.undesirable_weight
    if not desirable and not undesirable and good and bad:
        desirable, undesirable = (1.0, round(good / bad, 3)) if good >= bad else \
            (round(bad / good, 3), 1.0)
    desirable, undesirable = desirable or 1.0, undesirable or 1.0
    log.info("Labels: %d good and %d bad answers; weights %g (good) and %g (bad)%s", good,
             bad, desirable, undesirable, "" if cfg.desirable_weight or
             cfg.undesirable_weight else " (auto, from the counts)")
    return desirable, undesirable


def reference_description(cfg: RunConfig) -> Message:
    """What the reference model of a run of cfg is, in a phrase (the run's log and the
    model card say it)."""
    named = cfg.ref_model.strip()
    stage = stage_of(cfg)
    if not stage.reference:
        return Message("none ({stage} needs no reference model)", stage=stage.title)
    if named:
        return Message("{model}, a second frozen copy", model=named)
    if trains_on_adapter(cfg):  # as the plan says it (plan/passes.py)
        return Message("a frozen copy of the finished run's LoRA adapter (no second model)")
    if cfg.use_peft:
        return Message("the model with the new LoRA adapter switched off (no second copy)")
    return Message("a frozen copy of the starting weights")


def policy_and_reference(cfg: RunConfig, model, log) -> tuple:
    """(model, peft_config, ref_model) for the trainer, with no second copy of the model
    where TRL allows (reference_description says which): LoRA on a base model trains a
    new adapter against the same model with it switched off; LoRA on a finished LoRA run
    trains its adapter on (stacked, not merged) against a frozen copy of that adapter;
    a full fine-tune's reference is a frozen copy of the starting weights (a finished
    LoRA run merged first); a Reference model setting loads that model as a second
    frozen copy; ORPO needs none."""
    trained, lora = policy(cfg, model, log)
    ref_model = None
    if not stage_of(cfg).reference:  # ORPO has none
        return trained, lora, None
    if cfg.ref_model.strip():
        ref_model = _frozen(load_model_and_tokenizer(resolve_model(cfg.ref_model.strip()),
                                                     cfg.trust_remote_code,
                                                     **load_options(cfg))[0])
    elif not cfg.use_peft:
        ref_model = _frozen(copy.deepcopy(trained))
    return trained, lora, ref_model


def _frozen(model):
    """A reference model: merged when it is an adapter, in eval mode, no gradients."""
    if is_adapter(model):
        model = model.merge_and_unload()
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad = False
    return model


def preference_trainer(cfg: RunConfig, model, tokenizer, output_dir: Path, callbacks,
                       log):
    """The stage's TRL trainer for cfg, with its data, policy and reference."""
    stage = stage_of(cfg)
    args = training_arguments(cfg, output_dir)
    train_set, eval_set, data, eval_note = preference_rows(cfg, tokenizer)
    log.info("Data: %s, %d %s rows (%s form). %s", data.source.label, len(train_set),
             data.format, "conversational" if data.conversational else "standard",
             " ".join([*data.source.notes, eval_note]))
    if data.as_chat:
        log.info("%s", chat_note(cfg.model_name_or_path))
    if stage.unpaired:
        args.desirable_weight, args.undesirable_weight = label_weights(
            cfg, sum(train_set["label"]), len(train_set) - sum(train_set["label"]), log)
    if stage.sft_term and cfg.loss_type == "auto":
        found = likelihood.measure(model, tokenizer, data.rows)
        if found is not None:
            log.info("Loss type auto: %s", found.sentence())
        if found is not None and found.unlikely:
            args.loss_type, args.loss_weights = SFT_TERM.split("+"), [1.0, 1.0]
            rate = stage.sft_term_rate(cfg.use_peft, cfg.learning_rate)
            if rate != cfg.learning_rate:
                args.learning_rate = rate
                log.info("Loss type auto: %s", likelihood.rate_sentence(
                    stage.title, cfg.learning_rate, rate))
    trained, lora, ref_model = policy_and_reference(cfg, model, log)
    log.info("%s reference model: %s", stage.title, reference_description(cfg))
    Trainer = trl_class(*stage.trainer)
    extra = {"ref_model": ref_model} if stage.reference else {}
    return Trainer(model=trained, args=args, train_dataset=train_set, eval_dataset=eval_set,
                   processing_class=tokenizer, peft_config=lora, callbacks=callbacks,
                   **extra)


def drop_reference_adapter(model) -> None:
    """Before saving: TRL's frozen copy of a trained-on adapter, so that the saved folder
    holds the trained adapter only."""
    if is_adapter(model) and REFERENCE_ADAPTER in model.peft_config:
        model.delete_adapter(REFERENCE_ADAPTER)
