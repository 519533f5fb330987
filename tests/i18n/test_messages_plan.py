"""The plan's sentences and a run's status as Messages (sft_ui/i18n/message.py): each made
where it is said, with its English template and values, and rendered in Japanese from
the template, nested values (a reason, a stage's title, a fix, a label) too.

Before they were Messages, parse-back of the finished English left English in these
cases (each listed by the test that finds it):
- test_memory_problems_fixes_and_fits_come_out_in_japanese_whole[5-1] (sft, dpo, kto):
  the fixes of a run that would not fit, or ran out of memory, whose first fix says
  "(batch 2 x accumulation 3: 6 examples per device and step instead of 5)": the whole
  numbered list stayed English ("1. halve the batch per device ...; 2. shorten
  max_length ...") inside the Japanese "Try, in this order: ..." sentence.
- test_how_a_run_ended_is_a_message_and_survives_its_state_file: how a run ended was a
  plain str, and so was every sentence of the other tests (they failed on
  `isinstance(..., Message)`; parse-back of their English happened to read them whole).
Each sentence is also checked as a Message: rendered from its template, not parsed back.
"""
from __future__ import annotations

import dataclasses
import json

import pytest

from sft_ui import i18n
from sft_ui.config import ConfigError, RunConfig
from sft_ui.i18n.message import Message
from sft_ui.plan import hardware, memory, oom, planner
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.sample import DataSample
from tests.i18n.test_i18n import _in_japanese, english_left

GIB = 2**30
CPU = Hardware("cpu", "CPU", 1, False, 64 * GIB, 2)
SMALL_CPU = Hardware("cpu", "CPU", 1, False, GIB // 4, 2)
L4 = Hardware("cuda", "NVIDIA L4", 1, True, 22 * GIB, 8,
              frozenset({"bitsandbytes", "liger_kernel"}))
T4 = Hardware("cuda", "Tesla T4", 2, False, 15 * GIB, 8, frozenset())
DEMO = {"sft": "demo", "dpo": "demo-preference", "orpo": "demo-preference",
        "kto": "demo-kto", "grpo": "demo-grpo"}
# (stage, settings, target): SFT, DPO, ORPO, KTO and GRPO, LoRA on and off, a time budget,
# a reference model, vLLM, and plans for target GPUs.
CASES = [
    ("sft", {}, ""),
    ("sft", {"use_peft": True, "time_budget_minutes": 5}, ""),
    ("sft", {"time_budget_minutes": 2, "max_length": 4096}, "t4-small"),
    ("dpo", {}, ""),
    ("dpo", {"use_peft": True}, "l4"),
    ("dpo", {"ref_model": "HuggingFaceTB/SmolLM2-135M-Instruct"}, ""),
    ("orpo", {"use_peft": True}, ""),
    ("kto", {}, ""),
    ("kto", {"use_peft": True, "time_budget_minutes": 5}, ""),
    ("grpo", {}, ""),
    ("grpo", {"use_peft": True, "use_vllm": True}, "h100"),
]


def _config(stage: str, settings: dict) -> RunConfig:
    return RunConfig.from_dict({"stage": stage, "dataset_name": DEMO.get(stage, "demo"),
                                **settings})


def _known(stage: str) -> bool:
    from sft_ui import stages
    return any(s.name == stage for s in stages.stages())


def _plan_sentences(p: dict) -> list:
    """Every sentence of a plan the page shows as it is (figures aside)."""
    said = [*p["budget"], *p["memory_notes"], p["fit"]]
    said += [p["data_note"]] if p["data_note"] else []
    said += [p["strategy"]["reason"]] if p.get("strategy") else []
    for mode in p.get("modes", ()):
        said += [mode["label"], mode["reason"]]
    return said


def _left(said, where: str) -> list[str]:
    """The sentences among `said` with English left in Japanese, or not a Message."""
    out = []
    for message in said:
        japanese = i18n.translate(message, "ja")
        if english_left(japanese) or not isinstance(message, Message):
            out.append(f"{where}: {type(message).__name__} {japanese!r}")
    return out


@pytest.mark.parametrize("stage, settings, target", CASES)
def test_every_sentence_of_the_plan_comes_out_in_japanese_whole(stage, settings, target):
    """A plan's sentences (the budget's reasons, what memory holds, each way to train and
    why it fits or not) and what Fit says, rendered in Japanese: no English left."""
    if not _known(stage):
        pytest.skip(f"no {stage} stage here")
    cfg = _config(stage, settings)
    p = planner.plan_with_data(cfg, CPU, target)
    left = _left(_plan_sentences(p), f"{stage} {settings} {target or 'CPU'}")
    try:
        if target:  # (what it says, "{label} on {where}: {reason}.", has no entry yet)
            planner.fit_to_target(cfg, target)
        else:
            left += _left([planner.fit_to_machine(cfg, CPU)[1]], "Fit")
    except ConfigError as e:  # nothing fits there: each way to train, and why
        left += _left(e.messages, "Fit")
    assert not left, "\n".join(left)


@pytest.mark.parametrize("batch, accumulation", [(6, 2), (5, 1)])
@pytest.mark.parametrize("stage", ["sft", "dpo", "kto", "grpo"])
def test_memory_problems_fixes_and_fits_come_out_in_japanese_whole(stage, batch, accumulation):
    """What a run that would not fit is told (on a CPU, on a GPU), its fixes after running
    out of memory, Fit's answers, the speed-ups of a machine and what it cannot run. Batch
    5: halving it changes the effective batch, which the first fix says inside itself."""
    cfg = _config(stage, {"per_device_train_batch_size": batch,
                          "gradient_accumulation_steps": accumulation, "max_length": 2048})
    if cfg.validate():
        pytest.skip(f"{stage}: {cfg.validate()[0]}")  # (GRPO: its answers per prompt)
    said = [memory.memory_problem(cfg, SMALL_CPU, available=GIB // 4),
            memory.memory_problem(cfg, L4, available=GIB // 4),
            oom.out_of_memory_advice(cfg, L4)[0], oom.out_of_memory_advice(cfg, CPU)[0]]
    said += [planner.fit_to_machine(cfg, CPU, available=n)[1] for n in (GIB // 4, 64 * GIB)]
    said += [planner.fit_to_machine(dataclasses.replace(
        cfg, per_device_train_batch_size=3, gradient_accumulation_steps=4), CPU,
        available=4 * GIB)[1]]
    said += hardware.speedups(CPU) + hardware.speedups(L4)
    said += hardware.unsupported(dataclasses.replace(
        cfg, bf16=True, use_liger_kernel=True, load_in_4bit=True, use_peft=True), T4)
    said += hardware.unsupported(dataclasses.replace(cfg, use_liger_kernel=True), CPU)
    said += hardware.unsupported(dataclasses.replace(cfg, use_liger_kernel=True), CPU,
                                 fixes=False)
    left = _left([s for s in said if s], stage)
    assert not left, "\n".join(left)


def test_the_budget_reasons_come_out_in_japanese_whole():
    """Each reason the time budget gives: LoRA for few rows or a big model, a learning
    rate (with the stage's title), answers only, whole epochs or the steps that fit."""
    from sft_ui.plan import budget
    chat = DataSample(lengths=(60,) * 64, rows=400, format="messages")
    big = DataSample(lengths=(60,) * 64, rows=50_000, format="text")
    said = []
    for stage in ("sft", "dpo"):
        for data, params, speed in ((chat, 135_000_000, 400.0), (big, 135_000_000, 400.0),
                                    (big, 8_000_000_000, 400.0), (chat, 135_000_000, None)):
            cfg = _config(stage, {"time_budget_minutes": 5})
            said += budget.choose(cfg, data, params, speed=lambda c, s=speed: s,
                                  hw=CPU).reasons
    left = _left(said, "budget")
    assert not left, "\n".join(left)


def test_the_pages_plan_is_made_of_messages_in_japanese():
    """The plan panel's text in a Japanese request: the sentences it composes (the
    budget's heading, the run, peak memory, time, padding) and the one-line plan, with
    nested values (the fit, durations) in Japanese too."""
    from sft_ui.ui import lang, plan_text
    p = planner.plan_with_data(_config("sft", {"time_budget_minutes": 5}), CPU)
    p = {**p, "seconds_per_step": 1.5, "tokens_per_second": 800.0, "seconds_total": 90.0,
         "round_seconds": 12.0, "sample_rounds": 3, "steps": 60, "budget_needs_speed": False,
         "device_name": "NVIDIA L4"}
    said = [plan_text._time_line(p), plan_text._padding_line(p),
            plan_text._tokens_line(p),
            plan_text.run_time(100.0, {"eta_seconds": 50.0, "elapsed_seconds": 30.0}),
            plan_text.run_time(100.0, {"eta_seconds": None})]
    left = _left([s for s in said if s], "page")
    line = _in_japanese(lambda: plan_text.plan_line(p))
    left += [f"plan line: {line!r}"] if english_left(line) else []
    text = _in_japanese(lambda: lang.say(plan_text.plan_markdown(p)))  # as plan_texts
    left += [f"plan: {w}" for w in english_left(text.split("| part |")[0])]
    assert not left, "\n".join(left)


def _status(name: str, info: dict):
    from sft_ui.runs.phases import phase_message
    return phase_message(name, info)


def test_every_status_of_a_run_comes_out_in_japanese_whole(tmp_path):
    """A run's status line in each phase, how it ended, and each refusal about runs
    (RunError's messages): no English left, and Messages all."""
    from sft_ui.runs import RunManager
    from sft_ui.runs.run import RunError
    said = [_status("samples", {"round": 1, "rounds": 3, "step": 0}),
            _status("samples", {"round": 3, "rounds": 3, "step": 10, "final": True}),
            _status("samples", {"round": 2, "rounds": 3, "step": 5}),
            _status("training", {"processes": 1}), _status("training", {"processes": 2})]
    said = [s for s in said if s]
    manager = RunManager(tmp_path, trainer=lambda cfg, folder, run, resume_from=None: folder)
    errors = []
    for ask in (lambda: manager.get("nope"), lambda: manager.resume("nope"),
                lambda: manager.delete("20261128-000000-abcdef")):
        try:
            ask()
        except RunError as e:
            errors += list(getattr(e, "messages", [str(e)]))
    left = _left(said, "status") + _left(errors, "refusal")
    assert errors and not left, "\n".join(left)


def test_how_a_run_ended_is_a_message_and_survives_its_state_file(tmp_path):
    """A run that finished says so as a Message; its state.json keeps it, and a run read
    back says it in Japanese whole."""
    from sft_ui.runs import RunManager
    from sft_ui.runs.run import Run
    from tests.conftest import wait_for
    model = tmp_path / "model"
    model.mkdir()
    manager = RunManager(tmp_path / "runs", preflight=lambda cfg: None,
                         trainer=lambda cfg, folder, run, resume_from=None: model)
    run_id = manager.start(RunConfig(max_steps=2))
    run = manager.get(run_id)
    wait_for(lambda: run.state == "done")
    assert isinstance(run.message, Message), run.message
    run.budget = [Message("{steps} steps fit {minutes} min at the pace of the run's first "
                          "steps", steps="40", minutes="5"), "a reason kept as text"]
    run.rename("mine")  # (saves its state)
    again = Run.load(run.dir)
    assert isinstance(again.message, Message) and isinstance(again.budget[0], Message)
    assert again.budget == run.budget and again.message == run.message
    for said in (again.message, again.budget[0]):
        japanese = i18n.translate(said, "ja")
        assert not english_left(japanese), japanese
    # the file keeps the English where readers of it look
    state = json.loads((run.dir / "state.json").read_text())
    assert state["message"] == str(run.message) and state["budget"][0].startswith("40 steps")
    # a refusal about it, as the page shows it: the run's state a Message of its own
    from sft_ui.runs.run import RunError
    from sft_ui.ui import lang
    with pytest.raises(RunError) as refused:
        manager.resume(run_id)
    assert isinstance(refused.value.messages[0], Message)
    shown = _in_japanese(lambda: lang.problems("Cannot resume:", refused.value))
    assert not english_left(shown.split("<!--")[0]), shown
