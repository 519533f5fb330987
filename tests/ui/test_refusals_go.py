"""Messages that go when their cause goes, and say what is wrong: a plan of data it cannot
read says so instead of "fits"; Start's checks asked again without starting; Start's
refusal goes with its cause, and a run's start brings none."""
import pytest

from sft_ui.config import ConfigError, RunConfig
from tests.i18n.test_i18n import FakeRequest, _in_japanese
from tests.i18n.test_notices import _in


def test_a_plan_of_data_it_cannot_read_says_so_not_fits(tmp_path):
    from sft_ui.plan.planner import plan_with_data
    from sft_ui.ui.plan_text import plan_line
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": oops}\n')
    p = plan_with_data(RunConfig(dataset_name=str(bad)))
    assert "line 2 is not valid JSON" in p["data_error"]
    line = _in_japanese(lambda: plan_line(p))
    assert "データを読めません" in line and "broken.jsonl" in line, line
    assert "収まります" not in line and "fits" not in plan_line(p)
    assert plan_with_data(RunConfig())["data_error"] == ""  # the demo set reads


def test_start_s_checks_are_asked_again_without_starting(tmp_path):
    from sft_ui.errors import UserError
    from sft_ui.runs import RunManager
    manager = RunManager(tmp_path / "runs")
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"text": oops}\n')
    for values, needle in (({"learning_rate": -1}, "must be greater than 0"),
                           ({"dataset_name": str(bad)}, "not valid JSON")):
        with pytest.raises(UserError, match=needle):
            manager.check(values)
        with pytest.raises(UserError, match=needle):
            manager.start(values)  # the same refusal
    assert manager.check({}).dataset_name == "demo"
    assert manager.all_runs() == [] and not list((tmp_path / "runs").glob("*/"))


def test_start_s_refusal_goes_with_its_cause_and_no_run_s_start_brings_one(
        tmp_path, tiny_model_dir, monkeypatch):
    """The page's check of a refusal shown (Start's handler's neighbour, called as the page
    calls it): a setting put right takes it away; a run training that the refusal does not
    name (Start may have just started it, the check racing it) brings no "still training"
    in its place; a refusal naming that run stays while it trains and goes after."""
    from gradio.context import LocalContext

    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app, lang
    from sft_ui.ui.widgets import widget_value
    manager = RunManager(tmp_path / "runs")
    app = build_app(manager)
    check = next(f for f in app.fns.values() if getattr(f.fn, "__name__", "") == "recheck")
    names = [c.elem_id[4:] for c in check.inputs[2:]]
    cfg = RunConfig(model_name_or_path=tiny_model_dir)
    good = [widget_value(n, getattr(cfg, n)) for n in names]
    bad = [("-1" if n == "learning_rate" else v) for n, v in zip(names, good)]

    def shown(*messages):  # (a refusal is found by its kind, not its words)
        from sft_ui.ui.run_controls import REFUSED
        return _in("en", lambda: lang.problems("Cannot start:", ConfigError(list(messages)),
                                               REFUSED))

    def asked(notice, values):
        token = LocalContext.request.set(FakeRequest(accept="en"))
        try:
            return check.fn(None, notice, "", *values)
        finally:
            LocalContext.request.reset(token)
    wrong = shown("Learning rate (learning_rate) must be greater than 0 (got -1.0).")
    assert not isinstance(asked(wrong, bad), str)  # still so: left as it is
    assert asked(wrong, good) == ""  # put right: gone
    assert not isinstance(asked(lang.note("Filled in a run."), good), str)  # not a refusal
    busy = "Run r9 is still training: stop it or wait until it ends before starting another."
    monkeypatch.setattr(manager, "busy", lambda: busy)
    assert asked(wrong, good) == ""  # no "still training" brought in by a run just started
    assert not isinstance(asked(wrong, bad), str)
    training = shown(busy)
    assert not isinstance(asked(training, good), str)  # while it trains
    monkeypatch.setattr(manager, "busy", lambda: "")
    assert asked(training, good) == ""  # it ended
