"""The Stage: what one kind of training is, said once, and the registry of stages.

Every layer asks a run's stage (`stage_of(cfg)`) instead of comparing stage names: the
facts below, or its `family`: a kind of training, whose code each layer finds by
`hook(stage, name)` (the data check, the trainer builder, the script writer: a Family
names them by import path, so this bottom layer imports none of them). A stage of an
existing family needs no edit outside its own module: `register` makes it a choice of
the Stage setting, a `trl` config, a plan and a run; a new family brings its hooks in
its own module. Imports nothing of the studio but its Message (i18n/message.py).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from sft_ui.i18n.message import Message

# Two families' names, which settings and layers name; each family (these, and GRPO's
# REWARD) is registered by its stages' module: stages/sft.py, preference.py, grpo.py.
SUPERVISED, PREFERENCE = "supervised", "preference"
# What a setting can apply to (config/fields.py's `stages`): a family, or a stage with a
# reference model, with loss types to choose from, or reading answers labelled good or bad.
REFERENCE, LOSSES, UNPAIRED = "reference", "losses", "unpaired"
# Each hook a family may name, and the layer that calls it (docs/architecture.md): the
# family's function for it lives in that layer or a lower one (tests/test_layers.py).
HOOKS = {
    "data_check": "backends",  # (cfg): refuse data or settings before a run folder exists
    "trainer": "train",        # (cfg, model, tokenizer, output_dir, callbacks, log): a trainer
    "preview": "data",         # (cfg, tokenizer, examples): the data as its trainer reads it
    "script": "share",         # (cfg, output_dir): the Python script of Show code
    "yaml_note": "share",      # (cfg, command): a note at the top of the settings file
    "checks": "config",        # (cfg): the combinations the family cannot train, as lines
    "trl": "config",           # (cfg, script, training): its TRL keys, changed in place
    "continued": "config",     # (cfg): (cfg made trainable after Continue, a note or '')
    "plan_sample": "plan",     # (cfg, tokenizer, limit): (lengths, rows, format, notes)
    # (the person's cfg, the run's cfg, log): before a run trains, what its data and model
    # call for: (the run's settings, a sentence per setting chosen); raises a UserError
    # where training would learn nothing
    "signal": "runs",
    # (the earlier run's cfg, its folder): Continue's data for this family from the data
    # the earlier run trained on: (a file written into that folder, a note), or None
    "follow_data": "runs",
    # (records): a run that learns nothing, read from its logged metric records (oldest
    # first, the newest few): a sentence saying so and what to do, or None
    "stalled": "runs",
    # (cfg, tokenizer): what the family sizes from its own data where cfg left it at its
    # default (data/sized.py calls it for the run's start, the plan and the preview):
    # ({setting: value}, a sentence each)
    "sized": "data",
    # (eval file, run): a sweep's score of an ended run of the family, on held-out data,
    # for a family whose runs have no eval loss (sweeps/score.py's "reward"); higher is better
    "judge": "sweeps",
    # (): a class whose annotated names are the family's own settings, each a
    # config/setting.py `setting`, in the order the YAML and the page show them (called
    # once, when config/fields.py makes RunConfig)
    "settings": "config",
    # (cfg, shape, hw, prompt_tokens): the plan's sentences on what a run of the family
    # holds and does besides an SFT run (plan/memory.py's memory_notes)
    "plan_notes": "plan",
    # (cfg, prompts): Test rewards before a run: the model's answers to a few prompts,
    # scored by the run's rewards, nothing saved (the page's table; actions.py)
    "try": "actions",
}


@dataclass(frozen=True)
class Family:
    """A kind of training: the code each layer calls for its stages (HOOKS: a name to
    "module:function"), and what its scripts and settings files need."""
    name: str
    hooks: dict
    demo_code: tuple = ()         # its built-in set in a script: (module, function, what)
    derived_trl_keys: tuple = ()  # TRL keys its settings file derives from other settings
    # what its training is, in a few words: the model card says it ("trained by {kind}
    # with GRPO"; the supervised and preference families' cards say theirs in full)
    kind: str = "fine-tuning"
    # its own panel of the Train tab, (key, English title), for its settings' `group`;
    # () where its settings sit in the common panels (config/setting.py)
    panel: tuple = ()
    # its stages for the Stage setting's help, in a sentence or two ("sft: ...")
    about: str = ""


_FAMILIES: dict[str, Family] = {}


def register_family(family: Family) -> Family:
    assert set(family.hooks) <= set(HOOKS), set(family.hooks) - set(HOOKS)
    _FAMILIES[family.name] = family
    return family


def families() -> list[Family]:
    return list(_FAMILIES.values())


def setting_tags() -> tuple:
    """What a setting's `stages` may name: a family, or REFERENCE, LOSSES, UNPAIRED."""
    return (*_FAMILIES, REFERENCE, LOSSES, UNPAIRED)


@dataclass(frozen=True)
class Plot:
    """One of a stage's own plots in the live view (ui/run_frames.py reads TRL's reward
    metrics there): its title and a line on what a good curve looks like."""
    key: str  # the live view's component for it: "rewards" or "accuracy"
    title: str
    explanation: str
    # its series: (TRL's metric, the series' English name); a "*" in the metric stands for
    # a reward function's name, which "{}" in the series' name becomes. Empty: the live
    # view's own for the key (a preference stage's rewards and reward accuracy).
    series: tuple = ()
    # the value axis' title; empty: the live view's own for the key ("reward", "accuracy")
    y_title: str = ""


@dataclass(frozen=True)
class Stage:
    name: str          # the Stage setting's value
    title: str         # how the page, the log and the card name it
    family: str        # a registered Family's name
    config: tuple      # TRL 1.16's training arguments: (module, class)
    trainer: tuple     # and trainer: (module, class)
    demo: str          # the built-in data set it reads
    columns: str       # the columns its rows need, for messages (a Message where it has words)
    formats: tuple = ()             # the data formats its trainer reads
    cli: bool = True                # TRL 1.16 has `trl <name>`
    losses: tuple = ()              # loss types besides "auto"
    # the learning rates a time budget and Continue choose, by LoRA on / off
    learning_rates: dict = field(default_factory=lambda: {True: 5e-4, False: 5e-5})
    reference: bool = False         # keeps a reference model (a frozen copy, or LoRA off)
    sequences_per_example: int = 1  # sequences each example puts through with gradients
    reference_sequences: int = 0    # and through the reference model, without
    fused_head: bool = False        # the trainer never holds the whole logits
    kl_batch: bool = False          # a KL batch of mismatched pairs (KTO), without gradients
    unpaired: bool = False          # reads answers labelled good or bad, and unpairs pairs
    min_batch: int = 1
    # the stages after whose finished run Continue offers it (the first registered of
    # them on the first button, another on the second), and the button's words
    follows: tuple = ()
    continue_label: str = ""
    time_budget: bool = False       # a time budget chooses its steps
    eval_data: bool = False         # held-out data and an eval loss
    # what a time budget's held-out judge reads of an evaluation (train/held_out.py), and
    # whether more is better: what the stage optimises (GRPO's loss sits near 0 by
    # construction and says nothing of the answers; its held-out reward does)
    judged_by: tuple = ("eval_loss", False)
    lean_step: bool = False         # the studio's own CPU step (train/lean.py)
    plots: tuple = ()               # its own plots (Plot), besides loss, lr and grad norm
    own_samples: bool = False       # its trainer's own answers are the samples (no prompts)
    # Loss type auto adds TRL's SFT term on the chosen answers where the starting model
    # finds them far less likely than the rejected ones (data/likelihood.py), at these
    # learning rates by LoRA on / off where the run's is the stage's own; {}: it never does
    sft_term: dict = field(default_factory=dict)

    @property
    def tags(self) -> frozenset:
        """What settings apply to it (config/fields.py's `stages`)."""
        return frozenset({self.family} | ({REFERENCE} if self.reference else set()) |
                         ({LOSSES} if self.losses else set()) |
                         ({UNPAIRED} if self.unpaired else set()))

    def loss_choices(self) -> tuple:
        return ("auto", *self.losses)

    def default_learning_rate(self, lora: bool) -> float:
        return self.learning_rates[bool(lora)]

    def sft_term_rate(self, lora: bool, rate: float) -> float:
        """The learning rate of a run at `rate` whose loss auto adds the SFT term: the
        term's own where `rate` is the stage's default (left to the studio: the chosen
        form is learnt at an SFT rate, not at the preference stage's), else `rate`."""
        return self.sft_term[bool(lora)] if rate == self.default_learning_rate(lora) \
            else rate


_STAGES: dict[str, Stage] = {}


def register(stage: Stage) -> Stage:
    """Make `stage` a choice of the Stage setting and known to every layer."""
    assert stage.family in _FAMILIES, stage.family
    assert stage.continue_label or not stage.follows, stage.name  # Continue's words
    _STAGES[stage.name] = stage
    return stage


def unregister(name: str) -> None:
    _STAGES.pop(name, None)


def names() -> list[str]:
    """The stages in the order they were registered (the built-ins first)."""
    return list(_STAGES)


def stages() -> list[Stage]:
    return list(_STAGES.values())


def get(name: str) -> Stage | None:
    return _STAGES.get(str(name or "").strip())


def stage_of(cfg_or_name) -> Stage:
    """A run's stage (a RunConfig, a config dict, or a name); KeyError when unknown."""
    name = cfg_or_name if isinstance(cfg_or_name, str) else (
        cfg_or_name.get("stage", "sft") if isinstance(cfg_or_name, dict)
        else cfg_or_name.stage)
    stage = get(name)
    if stage is None:
        raise KeyError(Message("Unknown stage '{name}': choose one of {join}.", name=name,
                               join=", ".join(_STAGES)))
    return stage


def of_family(family: str) -> list[Stage]:
    return [s for s in _STAGES.values() if s.family == family]


def demos() -> dict[str, Stage]:
    """Each built-in set and the first stage that reads it."""
    out: dict[str, Stage] = {}
    for s in _STAGES.values():
        out.setdefault(s.demo, s)
    return out


def following(stage: Stage) -> list[Stage]:
    """The stages Continue offers after a finished run of `stage`, in registration order."""
    return [s for s in _STAGES.values() if stage.name in s.follows]


def family_of(cfg_or_stage) -> Family:
    stage = cfg_or_stage if isinstance(cfg_or_stage, Stage) else stage_of(cfg_or_stage)
    return _FAMILIES[stage.family]


def hook(cfg_or_stage, name: str):
    """The function the run's family names for hook `name` (HOOKS), or None where it names
    none. Imported on first use: the family's code lies in the layer that calls it."""
    return family_hook(family_of(cfg_or_stage), name)


def family_hook(family: Family, name: str):
    """What `family` names for hook `name` (HOOKS), imported; None where it names none."""
    path = family.hooks.get(name)
    if not path:
        return None
    module, _, function = path.partition(":")
    return getattr(importlib.import_module(module), function)
