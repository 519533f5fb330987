"""A time budget turned into settings (the quick path's "how long"): among the settings left at
their defaults, the way to train, the rate, held-out rows and the length that fit the
minutes (docs/training.md#the-quick-path-a-time-budget). Knows nothing of the trainer or the
UI.
"""
from __future__ import annotations

import dataclasses
import math
import statistics

from sft_ui.config import RunConfig, length
from sft_ui.config.registry import applies
from sft_ui.config.trl import has_eval_data
from sft_ui.data.answers import RECALL
from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import Hardware, detect
from sft_ui.plan.kernels import lean_pads_nothing
from sft_ui.plan.passes import sequences_per_example, step_cost
from sft_ui.plan.rollouts import writes_answers
from sft_ui.plan.sample import padding, quick_data_sample, run_steps
from sft_ui.plan.shape import model_shape
from sft_ui.plan.speed import calibrate, remembered
from sft_ui.stages import stage_of

OVERHEAD_SECONDS = 20.0  # loading the model and the data, and saving it (default model)
MARGIN = 0.85  # of the time left: samples, evaluation and a slower step now and then
# ... where the speed is a finished run's (its samples and evaluations already in it): a
# slower step now and then, as the run's own length is set (train/schedule.py)
RUN_MARGIN = 0.95
MAX_EPOCHS = 3  # without held-out rows to say when to stop
JUDGED_EPOCHS = 30  # with them: the plateau of their loss ends the run first
# Held out by a budget from data of MIN_HELD_OUT_DATA rows or more that has no eval data:
# HELD_OUT_SHARE of the rows, HELD_OUT_ROWS at least and at most
HELD_OUT_SHARE, HELD_OUT_ROWS, MIN_HELD_OUT_DATA = 0.1, (8, 64), 40
EVAL_COST = 0.1  # evaluations take at most this share of the training time, about
# Facts to recall (data/answers.py): a wider adapter at a higher rate, as facts asked in
# new words are answered only once memorised (docs/benchmarks.md#held-out-tasks-of-four-kinds)
RECALL_RANK, RECALL_RATE = 32, 4.0  # the stage's LoRA learning rate times RECALL_RATE
# A corpus of plain text: rank 32 at twice the LoRA rate, one batch a step (the hand
# grid's best; a higher rate made the held-out loss jump:
# docs/benchmarks.md#plain-text-a-knowledge-corpus-and-a-style-corpus)
CORPUS_RATE = 2.0
UNBOUNDED_STEPS = 100_000  # a run fitted on its first steps whose data is not measured
# A budget that buys fewer optimizer steps than this trains them one batch each (twice the
# updates learnt more: docs/benchmarks.md#few-steps-in-the-budget-long-rows); rows this long
# (median, tokens) have their speed measured first, so that the steps are known before the
# settings are fixed
FEW_STEPS, LONG_ROWS = 100, 128
SMALL_DATA_ROWS = 5000
BIG_MODEL_PARAMS = 1e9
LENGTH = set(length.NAMES)  # a run's length, in keep
# The schedule of a run that sets its own length: held, then down to 0 at its end
# (train/schedule.py decay_start), whatever the length
HELD_RATE = "constant_with_warmup"
CHAT_FORMATS = ("messages", "sharegpt", "prompt/completion", "question/answer", "alpaca")


@dataclasses.dataclass
class Choice:
    config: RunConfig          # the settings the run trains with
    reasons: list[Message]     # one sentence per setting the budget chose
    needs_speed: bool = False  # no speed known for these settings: the plan has no steps
    fits_in_run: bool = False  # the run sets its length on its first steps (train/schedule.py)
    said: dict = dataclasses.field(default_factory=dict)  # setting name -> its reason


def choose(cfg: RunConfig, data=None, params: int | None = None, speed=None,
           hw: Hardware | None = None, keep=()) -> Choice:
    """The settings a run of cfg's time budget trains with. `data` is the planner's
    DataSample (rows, token lengths, format) or None when unknown; `params` the model's
    parameter count; `speed(cfg)` the measured tokens/s of settings, or None (default:
    what the planner remembers); `keep`, settings the budget leaves as they are even at
    their defaults (a sweep's trial keeps the values it tries). Among the settings still
    at their defaults (a setting the person changed always wins): LoRA at its rate on
    small data or a model of a billion parameters or more (it learns the task with less
    memorising of the rows); loss on the answers only for chat and prompt/completion data;
    a wider adapter at a higher rate for facts to recall or plain text (a corpus to learn,
    not a form to copy); held-out rows where the data has none (their plateau ends the run
    and chooses the model it saves: plan/plateau.py); one batch a step where the budget
    buys fewer than FEW_STEPS optimizer steps; and the length: whole epochs (at most
    MAX_EPOCHS, or JUDGED_EPOCHS with held-out rows) when the budget holds one, else the
    steps that fit. A run that sets its own length holds its rate until the last fifth of
    it (HELD_RATE), not a fall that depends on the length."""
    if not cfg.time_budget_minutes:
        return Choice(cfg, [])
    defaults, changes, reasons, reason_of = RunConfig(), {}, [], {}

    def pick(name: str, value, why: Message | None) -> None:
        if name not in keep and getattr(cfg, name) == getattr(defaults, name) and \
                getattr(cfg, name) != value:
            changes[name] = value
            reasons.extend([why] if why else [])
            reason_of.update({name: why} if why else {})

    stage = stage_of(cfg)  # its learning rates (a preference stage's are far lower)
    small = data is not None and data.rows <= SMALL_DATA_ROWS
    big = params is not None and params >= BIG_MODEL_PARAMS
    if small or big:
        pick("use_peft", True, Message("LoRA: a model of a billion parameters or more trains "
                                       "in far less memory") if big else
             Message("LoRA: {rows} rows are few: an adapter learns the task with less "
                     "memorising of them", rows=f"{data.rows:,}"))
        recall = data is not None and data.answers.kind == RECALL and stage.eval_data
        corpus = data is not None and data.format == "text" and stage.eval_data
        if changes.get("use_peft", cfg.use_peft) and (recall or corpus):
            rate = stage.default_learning_rate(True) * (RECALL_RATE if recall else CORPUS_RATE)
            pick("lora_r", RECALL_RANK, Message(
                "facts to recall: {share} of the answers are short and bring a name "
                "their prompts do not hold: LoRA rank {r}, which holds more of them",
                share=f"{data.answers.new:.0%}", r=RECALL_RANK) if recall else Message(
                "plain text: what the corpus says is learnt, not a form: LoRA rank {r}, "
                "which holds more of it", r=RECALL_RANK))
            pick("lora_alpha", 2 * RECALL_RANK, Message("LoRA alpha {alpha} (2 x rank)",
                                                        alpha=2 * RECALL_RANK))
            pick("learning_rate", rate, Message("learning rate {lr}: facts are learnt by "
                                                "heart, faster at a higher rate",
                                                lr=f"{rate:g}") if recall else Message(
                "learning rate {lr}: a corpus is learnt faster at a higher rate",
                lr=f"{rate:g}"))
            if corpus:
                pick("gradient_accumulation_steps", 1, Message(
                    "gradient accumulation 1: a corpus is learnt by many small updates, "
                    "and the budget buys twice as many of them"))
        elif changes.get("use_peft", cfg.use_peft):
            rate = stage.default_learning_rate(True)
            pick("learning_rate", rate, Message("learning rate {lr}, as LoRA adapters want "
                                                "for {stage}", lr=f"{rate:g}",
                                                stage=stage.title))
    elif data is not None:
        rate = stage.default_learning_rate(False)
        pick("learning_rate", rate, Message("learning rate {lr} for a full fine-tune "
                                            "({stage}) on {rows} rows", lr=f"{rate:g}",
                                            stage=stage.title, rows=f"{data.rows:,}"))
    if data is not None and data.format in CHAT_FORMATS and \
            applies("completion_only_loss", cfg.stage):
        pick("completion_only_loss", True, Message("loss on the answers only: the prompts "
                                                   "are given, the answers are what to learn"))
    hw = hw or detect()
    held = _held_out(dataclasses.replace(cfg, **changes), data, hw)
    if held:
        fraction, every, rows = held
        pick("eval_fraction", fraction, _held_said(rows, every))
        if "eval_fraction" in changes:
            pick("eval_steps", every, None)
    chosen = dataclasses.replace(cfg, **changes)
    if speed is None:  # what the planner remembers (read once)
        entry = remembered(chosen, hw) or {}
        tokens_per_second = entry.get("tokens_per_second")
        margin = RUN_MARGIN if entry.get("from") == "run" else MARGIN
    else:
        tokens_per_second, margin = speed(chosen), MARGIN
    kept = bool(set(keep) & LENGTH)
    bought = _steps(_length(chosen, data, tokens_per_second, hw, [], kept, margin), hw, data)
    if bought and bought < FEW_STEPS and not kept and not length.given(cfg):
        pick("gradient_accumulation_steps", 1, Message(
            "gradient accumulation 1: at {accumulation} the budget buys only {steps} "
            "optimizer steps; one batch a step gives twice as many updates in the same "
            "minutes", accumulation=chosen.gradient_accumulation_steps, steps=bought))
        if held and "eval_steps" in changes:  # (rows as often as before: twice the steps apart)
            said = reasons.index(_held_said(held[2], changes["eval_steps"]))
            changes["eval_steps"] = _every(dataclasses.replace(cfg, **changes), held[2], hw)
            reasons[said] = _held_said(held[2], changes["eval_steps"])
        chosen = dataclasses.replace(cfg, **changes)
    choice = _length(chosen, data, tokens_per_second, hw, reasons, kept, margin)
    if choice.fits_in_run:
        changes.clear()  # (pick's, now for the chosen length)
        length_said = choice.reasons.pop()  # (the length is said last)
        pick("lr_scheduler_type", HELD_RATE, Message(
            "learning rate held, then brought down to 0 over the last fifth of the steps "
            "the run sets (or after the held-out rows stop improving): a longer budget "
            "trains as a shorter one would until then"))
        choice.reasons.append(length_said)
        choice.config = dataclasses.replace(choice.config, **changes)
    choice.said = reason_of
    return choice


def resolve(cfg: RunConfig, keep=()) -> Choice:
    """choose() for a run about to start: with its data, and a measured speed (a few
    training steps first, counted in the budget, when none is known for its settings).
    Done once, where the run starts (the app, or the command line); the training process
    only keeps the deadline (`deadline`). A run of one process sets its length on its own
    first steps (`fits_in_run`: train/schedule.py), starting from its longest; a run of several
    processes without a known speed measures it first, as does a run of long rows
    (LONG_ROWS), where few steps may fit. The engine also stops a run whose time is up, so
    a budget holds whatever the estimate said."""
    data = quick_data_sample(cfg)
    params = model_shape(cfg.model_name_or_path).params()
    choice = choose(cfg, data, params, keep=keep)
    if choice.needs_speed and (not choice.fits_in_run or _long_rows(data) and
                               not writes_answers(choice.config)):
        # (timed at the rows' own length where they are shorter than Max length)
        rows = min(cfg.max_length, max(data.lengths)) if data and data.lengths else None
        calibrate(dataclasses.replace(choice.config, max_length=rows or cfg.max_length))
        choice = choose(cfg, data, params, keep=keep)
    if choice.fits_in_run:  # from its longest; its first steps set the length
        longest = _longest(choice.config, _epoch_steps(choice.config, detect(), data))
        choice = dataclasses.replace(choice, config=longest)
    return choice


def _length(cfg: RunConfig, data, tokens_per_second, hw: Hardware,
            reasons: list[Message], kept: bool = False, margin: float = MARGIN) -> Choice:
    """Whole epochs, or the steps that fit the budget, at the measured speed (`kept`:
    the run's length is kept as it is, as a setting the person changed; `margin`: the
    share of the time left that trains)."""
    if kept or length.given(cfg):  # the person set the length: the budget only stops it
        reasons.append(Message("the length set, {length}, trains: the budget stops it at "
                               "{minutes} min if it is not done by then",
                               length=length.of(cfg), minutes=f"{cfg.time_budget_minutes:g}"))
        return Choice(cfg, reasons)
    minutes = f"{cfg.time_budget_minutes:g}"
    epoch = _epoch_steps(cfg, hw, data)
    in_run = cfg.processes(hw.devices) == 1  # (several processes would have to agree)
    if not tokens_per_second:
        if not in_run:
            return Choice(cfg, reasons, needs_speed=True)
        reasons.append(Message("the steps that fit {minutes} min, set on the run's first "
                               "steps from their pace", minutes=minutes))
        return Choice(cfg, reasons, needs_speed=True, fits_in_run=True)
    tokens = cfg.effective_batch(hw.devices) * cfg.max_length
    if data is not None and data.lengths and not cfg.packing:
        pad = padding(data.lengths, cfg.per_device_train_batch_size, cfg.max_length)
        # the rows' own tokens where the lean step lays them end to end (its speed is of
        # those too: a run's tokens/s counts no padding), else the padded batch's
        own = pad["tokens"] if lean_pads_nothing(cfg, hw) else pad["padded_tokens"]
        tokens = cfg.effective_batch(hw.devices) * own / pad["rows"]
    # each example's sequences (DPO: two), and the passes without gradients
    seconds_per_step = tokens * sequences_per_example(cfg) * step_cost(cfg) / \
        tokens_per_second
    seconds = (cfg.time_budget_minutes * 60 - OVERHEAD_SECONDS) * margin
    steps = max(1, math.floor(seconds / seconds_per_step))
    if epoch and steps >= epoch:
        epochs = min(steps // epoch, most_epochs(cfg))
        reasons.append(Message("whole epochs: {n} ({steps} steps of about {s} s): the data "
                               "fits {minutes} min", n=epochs, steps=f"{epochs * epoch:,}",
                               s=f"{seconds_per_step:.1f}", minutes=minutes))
        chosen = dataclasses.replace(cfg, train_by="epochs", num_train_epochs=float(epochs))
    else:
        reasons.append(Message("{steps} steps of about {s} s fit {minutes} min",
                               steps=f"{steps:,}", s=f"{seconds_per_step:.1f}",
                               minutes=minutes))
        chosen = dataclasses.replace(cfg, max_steps=steps)
    # (the run may train more steps than estimated when its own pace allows, or fewer)
    return Choice(chosen, reasons, fits_in_run=in_run)


def _long_rows(data) -> bool:
    """Rows so long that few steps may fit (the speed is measured before choosing)."""
    return bool(data is not None and data.lengths and
                statistics.median(data.lengths) >= LONG_ROWS)


def _steps(choice: Choice, hw: Hardware, data) -> int | None:
    """The optimizer steps a choice of length trains where the time limits them (None:
    its speed is not known, or the most epochs fit)."""
    cfg = choice.config
    if choice.needs_speed or cfg.train_by == "epochs" and \
            cfg.num_train_epochs >= most_epochs(cfg):
        return None
    if cfg.train_by == "epochs":
        epoch = _epoch_steps(cfg, hw, data)
        return round(epoch * cfg.num_train_epochs) if epoch else None
    return cfg.max_steps


def _held_out(cfg: RunConfig, data, hw: Hardware) -> tuple[float, int, int] | None:
    """(the share of the rows a budget holds out, how often they are evaluated, how many
    they are), where the stage reads eval data, cfg has none (nor evaluation turned off)
    and the data has MIN_HELD_OUT_DATA rows or more; else None. An evaluation's forward
    passes cost about a third of training as many rows: every few steps, they take about
    EVAL_COST of the time."""
    if data is None or not stage_of(cfg).eval_data or has_eval_data(cfg) or \
            data.rows < MIN_HELD_OUT_DATA or cfg.eval_strategy == "no":
        return None
    low, high = HELD_OUT_ROWS
    rows = min(high, max(low, round(data.rows * HELD_OUT_SHARE)))
    return round(rows / data.rows, 4), _every(cfg, rows, hw), rows


def _every(cfg: RunConfig, rows: int, hw: Hardware) -> int:
    """How many steps apart `rows` held-out rows are evaluated (EVAL_COST)."""
    batch = cfg.effective_batch(hw.devices)
    return max(cfg.eval_steps, math.ceil(rows / (3 * batch) / EVAL_COST))


def _held_said(rows: int, every: int) -> Message:
    return Message("{rows} rows held out: their loss, every {steps} steps, says when "
                   "training has learnt what it can and which model to keep", rows=rows,
                   steps=every)


def most_epochs(cfg: RunConfig) -> int:
    """The most epochs a budget's run trains: JUDGED_EPOCHS where held-out rows say when
    to stop (train/held_out.py), else MAX_EPOCHS."""
    judged = has_eval_data(cfg) and cfg.eval_strategy != "no"
    return JUDGED_EPOCHS if judged else MAX_EPOCHS


def _epoch_steps(cfg: RunConfig, hw: Hardware, data) -> int | None:
    """Optimizer steps in one epoch of the data (None: not measured)."""
    if data is None:
        return None
    return run_steps(dataclasses.replace(cfg, train_by="epochs", num_train_epochs=1.0),
                     hw.devices, data)


def _longest(cfg: RunConfig, epoch: int | None) -> RunConfig:
    """The longest a run fitted on its first steps may train: most_epochs of its data
    (UNBOUNDED_STEPS when the data is not measured); it sets its own length below."""
    if epoch:
        return dataclasses.replace(cfg, train_by="epochs",
                                   num_train_epochs=float(most_epochs(cfg)))
    return dataclasses.replace(cfg, train_by="steps", max_steps=UNBOUNDED_STEPS)


def deadline(cfg: RunConfig, started_at: float) -> float | None:
    """When a time-budgeted run must have its model, for a (re)start that began at
    `started_at` (before its settings were chosen and its model loaded); None: no budget
    (a stage without `time_budget` has none)."""
    if not cfg.time_budget_minutes or not stage_of(cfg).time_budget:
        return None
    return started_at + cfg.time_budget_minutes * 60
