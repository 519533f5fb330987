"""A run that learns nothing says so. Each family's rule reads a run's logged metric
records (GRPO: its answers (almost) all cut at the length limit, or most prompts'
answers without reward spread; DPO, ORPO, KTO: a flat margin, and reward accuracy at
most a half where the stage logs it); a run that hears such records (from its own
training thread, or as events from the warm worker or another process) says it in its
status, its summary and its Runs row, and once in its log."""
from __future__ import annotations

import json

from sft_ui import i18n
from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message
from sft_ui.rewards.stalled import stalled as grpo_stalled
from sft_ui.runs import RunManager
from sft_ui.runs.run import Run, create_run
from sft_ui.stages import hook
from sft_ui.train.events import deliver
from sft_ui.train.log import LOG_FILE
from sft_ui.train.stalled import preference_stalled
from tests.conftest import wait_for
from tests.i18n.test_i18n import _in_japanese, english_left


def grpo_records(shares: list[float]) -> list[dict]:
    """A GRPO run's logged steps with these shares of prompts without reward spread, and
    an eval record between them (its own keys, which the rule does not read)."""
    out = [{"step": n, "loss": 0.0, "reward": 0.5, "frac_reward_zero_std": share}
           for n, share in enumerate(shares, start=1)]
    return out[:1] + [{"step": 1, "eval_reward": 0.0, "eval_frac_reward_zero_std": 1.0}] + \
        out[1:]


def pair_records(margins: list[float], accuracies: list[float] | None = None) -> list[dict]:
    """A preference run's logged steps (DPO and ORPO log accuracies, KTO does not)."""
    out = []
    for n, margin in enumerate(margins, start=1):
        record = {"step": n, "loss": 0.69, "rewards/chosen": margin / 2,
                  "rewards/rejected": -margin / 2, "rewards/margins": margin}
        if accuracies is not None:
            record["rewards/accuracies"] = accuracies[n - 1]
        out.append(record)
    return out


FLAT = pair_records([0.0, 0.001, -0.002, 0.003, 0.0], [0.0, 0.25, 0.5, 0.5, 0.25])
LEARNING = pair_records([0.0, 0.02, 0.05, 0.09, 0.14], [0.0, 0.75, 1.0, 1.0, 1.0])


def test_each_family_names_its_rule():
    assert hook(RunConfig(stage="grpo"), "stalled") is grpo_stalled
    for stage in ("dpo", "orpo", "kto"):
        assert hook(RunConfig(stage=stage), "stalled") is preference_stalled
    assert hook(RunConfig(stage="sft"), "stalled") is None


def test_grpo_without_reward_spread_learns_nothing():
    message = grpo_stalled(grpo_records([1.0, 1.0, 0.75, 1.0, 1.0]))
    assert message.startswith("Nothing learnt: over the last 5 logged steps, 95% of the "
                              "prompts got the same reward for all their answers")
    assert "Raise Answers per prompt or Temperature" in message
    # Only the last 5 steps count: a run that stalled early and learns now is learning.
    assert grpo_stalled(grpo_records([1.0] * 10 + [0.5, 0.25, 0.5])) is None
    assert grpo_stalled(grpo_records([1.0] * 10 + [0.5])) is not None  # 0.9 of the 5
    assert grpo_stalled(grpo_records([1.0, 0.75, 1.0, 1.0, 0.75])) is not None  # mean 0.9
    assert grpo_stalled(grpo_records([1.0, 0.5, 1.0, 1.0, 0.75])) is None  # mean 0.85


def test_grpo_whose_answers_all_earn_the_top_reward_has_learnt():
    """Answers alike because they all earn the most, the reward risen to its top: no
    "Nothing learnt" (a run at its top from the start, or fallen from it, still has it)."""
    rising = grpo_records([0.5, 0.5, 0.75, 0.5, 0.75, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0])
    for n, record in enumerate(r for r in rising if "reward" in r):
        record["reward"] = min(2.0, 0.4 * n)
    assert grpo_stalled(rising) is None
    flat = grpo_records([1.0] * 11)
    assert grpo_stalled(flat).startswith("Nothing learnt")
    fallen = grpo_records([1.0] * 11)
    for n, record in enumerate(r for r in fallen if "reward" in r):
        record["reward"] = 2.0 if n < 5 else 1.0
    assert grpo_stalled(fallen).startswith("Nothing learnt")


def test_grpo_after_a_warm_up_that_taught_the_form_says_so_not_nothing_learnt():
    """The warm-up taught the form: every answer earns the same reward from GRPO's first
    step, at its top. The run says that, in Japanese too, instead of "Nothing learnt";
    without a warm-up, or at a reward of 0 (the rewards never fire), it is "Nothing
    learnt" as before."""
    warmed = RunConfig(stage="grpo", warmup_file="warmup.jsonl")
    flat = grpo_records([1.0] * 6)
    message = grpo_stalled(flat, warmed)
    assert message.startswith("Nothing more to learn after the warm-up: over the last 5 "
                              "logged steps, 100% of the prompts"), message
    japanese = i18n.translate(message, "ja")
    assert japanese.startswith("ウォームアップの後は") and not english_left(japanese), japanese
    assert grpo_stalled(flat, RunConfig(stage="grpo")).startswith("Nothing learnt")
    never = grpo_records([1.0] * 6)
    for record in never:
        record["reward"] = 0.0
    assert grpo_stalled(never, warmed).startswith("Nothing learnt")


def cut_records(cut: list[float], shares: list[float] | None = None) -> list[dict]:
    """A GRPO run's logged steps with these shares of answers cut at the length limit
    (TRL's completions/clipped_ratio) and of prompts without reward spread."""
    shares = shares or [0.25] * len(cut)
    return [{"step": n, "loss": 0.0, "reward": 0.5, "frac_reward_zero_std": share,
             "completions/clipped_ratio": c}
            for n, (c, share) in enumerate(zip(cut, shares), start=1)]


def test_grpo_whose_answers_are_all_cut_says_raise_the_length():
    """Answers (almost) all cut at Max completion length: the run says so with the fix (a
    longer limit), before (and instead of) the advice for no spread, which would be more
    answers or a higher temperature."""
    message = grpo_stalled(cut_records([1.0, 1.0, 0.875, 1.0, 1.0], [1.0] * 5))
    assert message.startswith("Answers cut at the length limit: over the last 5 logged "
                              "steps, 98% of the answers reached Max completion length "
                              "before they ended"), message
    assert "Raise Max completion length" in message
    assert "Raise Answers per prompt or Temperature" not in message
    # A run whose answers are cut though their rewards differ is told too.
    assert grpo_stalled(cut_records([1.0] * 5)).startswith("Answers cut at the length")
    # Most answers end before the limit: the rule for no spread alone.
    assert grpo_stalled(cut_records([0.5] * 5)) is None
    assert grpo_stalled(cut_records([0.5] * 5, [1.0] * 5)).startswith("Nothing learnt")
    assert grpo_stalled(cut_records([1.0, 1.0])) is None  # judged from 3 logged steps
    assert grpo_stalled(cut_records([0.0] * 10 + [1.0] * 3)) is None  # mean 0.6 of the 5
    japanese = i18n.translate(message, "ja")
    assert "回答の最大長" in japanese and not english_left(japanese), japanese


def test_grpo_judges_from_3_logged_steps():
    assert grpo_stalled(grpo_records([1.0, 1.0])) is None
    assert grpo_stalled([]) is None
    message = grpo_stalled(grpo_records([1.0, 1.0, 1.0]))
    assert "over the last 3 logged steps, 100% of the prompts" in message
    assert grpo_stalled(grpo_records([0.0, 0.5, 0.25])) is None  # a learning run
    assert grpo_stalled(grpo_records([1.0, float("nan"), 1.0])) is None  # 2 steps counted


def test_a_preference_run_with_a_flat_margin_and_accuracy_learns_nothing():
    message = preference_stalled(FLAT)
    assert message == (
        "Nothing learnt from the preferences: over the last 5 logged steps the margin "
        "between the chosen and the rejected answers averaged +0.0004 and the reward "
        "accuracy 0.30, so the chosen answers are no more preferred than the rejected ones. "
        "Raise the learning rate, check that the chosen and the rejected answers really "
        "differ, or train more steps.")
    assert preference_stalled(LEARNING) is None
    assert preference_stalled(FLAT[:4]) is None  # fewer than 5 logged steps
    assert preference_stalled(FLAT + LEARNING) is None  # only the last 5 count
    assert preference_stalled(LEARNING + FLAT) == message
    # A small margin that the chosen answers win: slow, but learning.
    assert preference_stalled(pair_records([0.002] * 5, [1.0] * 5)) is None
    # An eval record's keys are its own.
    evals = [{"step": 5, "eval_rewards/margins": 0.0, "eval_rewards/accuracies": 0.0}] * 5
    assert preference_stalled(FLAT[:3] + evals) is None


def test_kto_is_judged_by_its_margins():
    """KTO logs no accuracy (its margins' signs stand for it), and a margin only for
    batches holding both kinds of answers."""
    flat = pair_records([0.0, 0.004, -0.001, 0.0, 0.002, -0.001])
    flat.insert(2, {"step": 2, "loss": 0.5, "rewards/chosen": 0.0, "kl": 0.0})
    message = preference_stalled(flat)
    assert message.startswith("Nothing learnt from the preferences: over the last 5 logged "
                              "steps the margin between the good and the bad answers' "
                              "rewards averaged +0.0008 and was above 0 on 2 of them"), message
    assert preference_stalled(pair_records([0.0, 0.01, 0.02, 0.03, 0.05])) is None
    # Small margins, but above 0 on most steps: learning slowly.
    assert preference_stalled(pair_records([0.0, 0.001, 0.002, 0.002, 0.003])) is None


def _log_warnings(run: Run) -> list[str]:
    """The log's lines that say the run learns nothing (or, GRPO, that its answers are
    cut at the length limit)."""
    return [line for line in (run.dir / LOG_FILE).read_text().splitlines()
            if " WARNING step " in line and ("Nothing learnt" in line or
                                             "Answers cut at the length limit" in line)]


def test_a_run_hearing_its_records_says_it_in_its_status_summary_and_once_in_its_log(
        tmp_path):
    """Records arriving as events (the warm worker's, another process's), as deliver
    feeds them to the run in the app."""
    from sft_ui.ui import live_view, runs_tab  # (gradio: the page's modules)
    run = create_run(tmp_path / "runs", RunConfig(stage="dpo",
                                                  dataset_name="demo-preference"))
    for record in FLAT[:4]:
        deliver({"metrics": record}, run)
    assert run.stalled == "" and not (run.dir / LOG_FILE).exists()
    deliver({"metrics": FLAT[4]}, run)
    message = preference_stalled(FLAT)
    assert run.stalled == message
    deliver({"metrics": {**FLAT[4], "step": 6}}, run)  # still flat: said once
    warnings = _log_warnings(run)
    assert len(warnings) == 1 and warnings[0].endswith(f" WARNING step 5: {message}"), \
        warnings
    message = run.stalled  # with this step's figures
    assert message.endswith("averaged +0.0004 and the reward accuracy 0.35, so the chosen "
                            "answers are no more preferred than the rejected ones. Raise "
                            "the learning rate, check that the chosen and the rejected "
                            "answers really differ, or train more steps.")

    snap = run.snapshot()
    assert snap["stalled"] == message
    status = live_view.status_markdown(snap)
    assert f"**Warning:** {message}" in status
    run.set_state("done", Message("Finished {step} steps; the model is saved in {folder}.",
                                  step=6, folder="/tmp/m"))
    row = run.summary()
    assert row["stalled"] == message
    assert runs_tab.table_frame([row]).iloc[0]["Status"] == "done · nothing learnt"
    # The finished run keeps it (state.json), and says it in Japanese too.
    assert json.loads((run.dir / "state.json").read_text())["stalled"] == message
    loaded = Run.load(run.dir)
    assert loaded.stalled == message
    shown = _in_japanese(lambda: (live_view.status_markdown(loaded.snapshot()),
                                  " ".join(runs_tab.table_frame([loaded.summary()]).iloc[0])))
    assert "警告:" in shown[0] and "選好から何も学習できていません" in shown[0], shown
    assert "学習なし" in shown[1]
    assert not english_left(shown[0]), shown[0]


def test_a_run_that_learns_again_is_no_longer_said_to_stall(tmp_path):
    run = create_run(tmp_path / "runs", RunConfig(stage="dpo"))
    for record in FLAT + LEARNING[1:]:
        run.add_metrics(record)
    assert run.stalled == "" and run.snapshot()["stalled"] == ""
    assert len(_log_warnings(run)) == 1  # the log said it when it held
    sft = create_run(tmp_path / "runs", RunConfig())
    for record in FLAT:
        sft.add_metrics(record)
    assert sft.stalled == ""  # SFT has no rule


def test_a_grpo_run_whose_answers_are_all_cut_says_so(tmp_path, tiny_cfg):
    """A real run: the tiny model's random answers run on to the limit (6 tokens) and
    never hold the right number, so every prompt's answers score 0 alike; that every
    answer was cut is said first (it is the fix: a reward for how an answer ends cannot
    be earned), while the run trains, at its end and once in its log."""
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "stage": "grpo", "dataset_name": "demo-grpo",
                            "num_generations": 2, "max_completion_length": 6,
                            "rewards": ["exact_match"], "max_steps": 3})
    run = wait_for(lambda: manager.get(run_id) if manager.get(run_id).state
                   not in ("queued", "running", "stopping") else None)
    assert run.state == "done", run.error
    shares = [m["frac_reward_zero_std"] for m in run.metrics if "frac_reward_zero_std" in m]
    assert shares == [1.0, 1.0, 1.0], run.metrics
    cut = [m["completions/clipped_ratio"] for m in run.metrics
           if "completions/clipped_ratio" in m]
    assert cut == [1.0, 1.0, 1.0], run.metrics
    assert run.stalled.startswith("Answers cut at the length limit: over the last 3 logged "
                                  "steps, 100% of the answers reached Max completion length")
    assert "Raise Max completion length" in run.stalled
    assert len(_log_warnings(run)) == 1, _log_warnings(run)
    assert " WARNING step 3: Answers cut at the length limit: " in _log_warnings(run)[0]
    assert manager.history()[0]["stalled"] == run.stalled
