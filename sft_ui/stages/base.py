"""The Stage (what one kind of training is, said once), the Family (the code each layer calls
for it, named by import path so this bottom layer imports none of it), and their registries.
Imports nothing of the studio but its Message.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sft_ui.i18n.message import Message

# Two families' names, which settings and layers name; each family (these, and GRPO's
# REWARD) is registered by its stages' module: stages/sft.py, preference.py, grpo.py.
SUPERVISED, PREFERENCE = "supervised", "preference"
# What a setting can apply to (config/fields.py's `stages`): a family, or a stage with a
# reference model, with loss types to choose from, or reading answers labelled good or bad.
REFERENCE, LOSSES, UNPAIRED = "reference", "losses", "unpaired"
# Each hook a family may name, and the layer that calls it (docs/architecture.md): the
# family's function for it lives in that layer or a lower one (tests/house/test_layers.py);
# its signature and what it answers: stages/hooks.py, a Protocol each.
REQUIRED = ("data_check", "trainer", "preview", "script")  # every family names these
HOOKS = {
    "data_check": "backends", "trainer": "train", "preview": "data", "script": "share",
    "yaml_note": "share", "checks": "config", "trl": "config", "continued": "config",
    "plan_sample": "plan", "signal": "runs", "follow_data": "runs", "stalled": "runs",
    "sized": "data", "judge": "sweeps", "settings": "config", "plan_notes": "plan",
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
    assert set(REQUIRED) <= set(family.hooks), set(REQUIRED) - set(family.hooks)
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
    """The facts every layer asks of a run's stage (`stage_of(cfg)`) instead of comparing
    stage names, and its `family`, whose code each layer finds by `hook(stage, name)`."""
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
    """Make `stage` a choice of the Stage setting and known to every layer: a `trl`
    config, a plan and a run. A stage of an existing family needs no edit outside its
    own module; a new family brings its hooks in its own module."""
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
