"""The live view's plots, without a browser: rewards plotted only for a run that has them,
with series in the page's language, axes that say what they show on whole steps, and
updates that send only what changed."""
from __future__ import annotations

import dataclasses

import gradio as gr

from sft_ui.ui import live_view
from tests.i18n.test_i18n import _in_japanese


# ---- the live view's reward plots --------------------------------------------------------
def _snap(metrics):
    return {"run_id": "r1", "name": "r1", "state": "running", "step": 2, "max_steps": 3,
            "metrics": metrics, "samples": [], "error": "", "message": "",
            "eta_seconds": None, "elapsed_seconds": 3.0, "log": "", "config": {}}


def test_the_live_view_plots_rewards_only_for_a_run_that_has_them():
    dpo = _snap([{"step": 1, "loss": 0.69, "rewards/chosen": 0.01, "rewards/rejected": -0.02,
                  "rewards/margins": 0.03, "rewards/accuracies": 0.5, "logps/chosen": -40.0},
                 {"step": 2, "loss": 0.6, "rewards/chosen": 0.05, "rewards/rejected": -0.1,
                  "rewards/margins": 0.15, "rewards/accuracies": 1.0}])
    frame = live_view.reward_frame(dpo)
    assert set(frame["series"]) == {"chosen", "rejected", "margin"} and len(frame) == 6
    assert list(live_view.accuracy_frame(dpo)["value"]) == [0.5, 1.0]
    outputs = ["status", "progress", "loss", "rewards", "accuracy", "lr", "grad", "samples",
               "log", "series", "reward_series", "plot_notes"]
    dpo["config"] = {"stage": "dpo"}
    values, key = live_view.update(dpo, None)
    assert len(values) == len(outputs)
    got = dict(zip(outputs, values))
    assert got["rewards"]["visible"] and got["accuracy"]["visible"]
    assert got["reward_series"] == ("accuracy", "chosen", "margin", "rejected")
    assert got["accuracy"]["label"] == "Reward accuracy"
    assert got["plot_notes"]["visible"] and "jumps to 1 within a few steps" in \
        got["plot_notes"]["value"]
    # ORPO's "rewards" are its own: named and explained as what they are.
    orpo = dict(zip(outputs, live_view.update({**dpo, "config": {"stage": "orpo"}}, None)[0]))
    assert orpo["accuracy"]["label"] == "Chosen answer more likely (share of pairs)"
    assert orpo["rewards"]["label"].startswith("Answer log-probabilities x beta")
    assert "Not rewards against a reference" in orpo["plot_notes"]["value"]
    assert "Reward accuracy" not in orpo["plot_notes"]["value"]
    # An SFT run after it hides them; one before any reward, with nothing shown, sends none.
    sft = {**_snap([{"step": 1, "loss": 2.0}]), "run_id": "r2"}
    got = dict(zip(outputs, live_view.update(sft, key)[0]))
    assert got["rewards"]["visible"] is False and got["reward_series"] == ()
    got = dict(zip(outputs, live_view.update(sft, None)[0]))
    assert got["rewards"]["visible"] is False
    _, shown = live_view.update(sft, None)
    again = dict(zip(outputs, live_view.update({**sft, "log": "x"}, shown)[0]))
    assert not isinstance(again["rewards"], dict) or "visible" not in again["rewards"]
    # Series in the page's language, with colours that follow them.
    names = _in_japanese(lambda: set(live_view.reward_frame(dpo)["series"]))
    assert names == {"選ばれた回答", "退けられた回答", "差"}
    colours = _in_japanese(lambda: live_view.loss_colours(names, live_view.REWARD_COLOURS))
    assert set(colours) == names
    assert set(_in_japanese(lambda: live_view.accuracy_frame(dpo)["series"])) == {"正解率"}


def test_the_plots_axes_say_what_they_show_on_whole_steps():
    """GRPO's no-spread / cut plot: its value axis says shares (of prompts, of answers),
    not "accuracy" (「正解率」); a preference run's says accuracy. Every plot's step axis
    spans 3 steps at least, so that its whole-step ticks come once each ("1 2 3 4": over
    steps 1 to 3 they were "1 2 2 3 3")."""
    outputs = ["status", "progress", "loss", "rewards", "accuracy", "lr", "grad", "samples",
               "log", "series", "reward_series", "plot_notes"]
    grpo = {**_snap([{"step": s, "loss": 0.1, "learning_rate": 1e-5, "grad_norm": 1.0,
                      "reward": 0.5, "frac_reward_zero_std": 0.5,
                      "completions/clipped_ratio": 0.25} for s in (1, 2, 3)]),
            "config": {"stage": "grpo"}}
    got = dict(zip(outputs, live_view.update(grpo, None)[0]))
    assert got["accuracy"]["y_title"] == "share"
    for part in ("loss", "rewards", "accuracy", "lr", "grad"):
        assert got[part]["x_lim"] == [1, 4], (part, got[part])
    assert _in_japanese(lambda: dict(zip(outputs, live_view.update(grpo, None)[0])))[
        "accuracy"]["y_title"] == "割合"
    dpo = {**_snap([{"step": s, "loss": 0.6, "rewards/chosen": 0.1, "rewards/rejected": 0.0,
                     "rewards/margins": 0.1, "rewards/accuracies": 1.0}
                    for s in range(1, 21)]), "config": {"stage": "dpo"}}
    got = dict(zip(outputs, live_view.update(dpo, None)[0]))
    assert got["accuracy"]["y_title"] == "accuracy"
    assert got["loss"]["x_lim"] == got["accuracy"]["x_lim"] == [1, 20]  # long enough


def test_live_view_outputs_match_the_update():
    """LiveView.outputs() and update() agree on the number of outputs."""
    fields = [f.name for f in dataclasses.fields(live_view.LiveView)]
    assert len(fields) == len(live_view.update(_snap([]), None)[0])


def test_the_live_view_sends_only_what_changed():
    """A tick sends a plot only when a step of its own was logged and the log when it
    grew (while the run trains, each at most every PLOT_SECONDS), the samples when one
    came: the page redraws each part it is sent."""
    outputs = [f.name for f in dataclasses.fields(live_view.LiveView)]
    first = _snap([{"step": 1, "loss": 2.0, "learning_rate": 1e-4, "grad_norm": 1.0}])
    _, shown = live_view.update(first, None, now=100.0)
    later = 100.0 + live_view.PLOT_SECONDS

    def sent(snap, now=101.0):
        values, _ = live_view.update(snap, shown, now=now)
        return {name for name, value in zip(outputs, values)
                if not (isinstance(value, type(gr.skip())) and value == gr.skip())}
    assert sent({**first, "elapsed_seconds": 4.0}) == {"progress"}
    assert sent({**first, "log": "a line"}) == set()  # a second after: not yet
    assert sent({**first, "log": "a line"}, later) == {"log"}
    assert live_view.sent_parts({**first, "log": "a line"}, shown, later) == {"log"}
    assert sent({**first, "samples": [{"step": 1, "prompt": "p", "completion": "c"}]}) == {
        "samples"}
    eval_row = {**first, "metrics": [*first["metrics"], {"step": 1, "eval_loss": 2.1}]}
    assert sent(eval_row, later) == {"loss", "series"}  # a new series: "eval"
    step = {**first, "metrics": [*first["metrics"], {"step": 2, "loss": 1.8,
                                                     "learning_rate": 9e-5, "grad_norm": 0.9}]}
    assert sent(step) == set()  # a step a second after the plots were drawn: not yet
    assert sent(step, later) == {"loss", "lr", "grad"}
    assert sent({**step, "state": "done"}) == {"status", "loss", "lr", "grad"}  # its end
    # The step that waited is drawn when the plots are due, with nothing new since.
    values, waited = live_view.update(step, shown, now=101.0)
    again, _ = live_view.update(step, waited, now=later)
    assert sum(not (isinstance(v, type(gr.skip())) and v == gr.skip()) for v in again) == 3
    # Another run: each part drawn again at once, even where its counts are the same.
    assert sent({**step, "run_id": "r2"}) >= {"loss", "lr", "grad", "samples", "log"}
