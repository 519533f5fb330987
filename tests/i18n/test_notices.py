"""No English left in the Japanese page, and messages that go when their cause goes (the
parts that need no browser; tests/browser/test_browser_languages.py drives the page): a notice
keeps the English it was made from and is drawn again in the page's new language; run
labels, the model list's gated note, the GRPO data preview and Gradio's own words in
Japanese; a plan of data it cannot read says so instead of "fits";
Start's checks asked again without starting."""
import re
from pathlib import Path

import pytest
from gradio.context import LocalContext

from sft_ui.config import ConfigError, RunConfig
from sft_ui.i18n.message import Message as Said
from sft_ui.i18n.message import as_message
from tests.i18n.test_i18n import JAPANESE, FakeRequest, _in_japanese, english_left


def _in(lang: str, fn):
    token = LocalContext.request.set(FakeRequest(accept=lang))
    try:
        return fn()
    finally:
        LocalContext.request.reset(token)


def test_a_notice_keeps_its_english_and_is_drawn_again_in_another_language():
    from sft_ui.ui import lang
    error = ConfigError([Said("Model is empty: enter a Hub id or a local folder."),
                         Said("Run {run_id} is {state}: stop it before deleting it.",
                              run_id="x", state=as_message("done"))])
    shown = _in_japanese(lambda: lang.problems("Cannot start:", error) + "\n\n" +
                         lang.note("No run is training."))
    assert shown.startswith("**開始できません:**\n\n- ") and "学習中の実行はありません" in shown
    assert [p["text"] for p in lang.kept(shown)] == ["**Cannot start:**", "No run is training."]
    english = _in("en", lambda: lang.redrawn(shown))
    assert english.startswith("**Cannot start:**\n\n- Model is empty") and \
        "No run is training." in english and not JAPANESE.search(english)
    assert _in_japanese(lambda: lang.redrawn(english)) == shown  # and back, the same
    # One line, escaped for HTML: a name typed stays escaped in every language.
    named = ConfigError([Said("Run {run_id} is {state}: stop it before deleting it.",
                              run_id="<b>", state=as_message("done"))])
    line = _in("en", lambda: lang.problem("Cannot delete:", named, escape=True))
    assert line.startswith("**Cannot delete:** Run &lt;b&gt; is done")
    assert _in_japanese(lambda: lang.redrawn(line)).startswith("**削除できません:** 実行 &lt;b&gt;")
    # Text written otherwise keeps nothing: a switch leaves it as it is.
    assert lang.kept("**Plan:** something") == [] and lang.kept(None) == []
    # The English rides in a comment the page does not draw.
    assert re.fullmatch(r"[^<]*", shown.split("<!--sft-en:")[0])


def test_continue_s_notice_follows_a_switch_of_language():
    from sft_ui.config.grpo import whole_groups
    from sft_ui.ui import lang, stage_view
    _, made = whole_groups(RunConfig(stage="grpo", per_device_train_batch_size=2,
                                     gradient_accumulation_steps=1, num_generations=4))
    notes = [made]  # the note as Continue makes it (a Message)
    assert made == ("Gradient accumulation: 2 (was 1): the answers written at once, Batch size "
                    "per device x Gradient accumulation (4), must be a multiple of Answers per "
                    "prompt (4).")
    shown = _in_japanese(lambda: stage_view.follow_up_markdown("r1", "GRPO", notes))
    assert "勾配累積ステップ数: 2（元は 1）" in shown
    english = _in("en", lambda: lang.redrawn(shown))
    assert english.startswith("**Filled in a GRPO run after run r1.**")
    assert "- Gradient accumulation: 2 (was 1)" in english


def test_runs_are_listed_in_the_page_s_language():
    from sft_ui.ui import lang
    # (runs/folder.py's display_name of a GRPO run trained from run 20261127-...'s model)
    named = Said("{stage} · {model} · {data} · {when}", stage="GRPO",
                 model=Said("run {run_id}", run_id="20261127-145411-e50ce4"),
                 data="demo-grpo", when="2026-11-27 14:54")
    label = Said("{name} (final model)", name=named)
    japanese = _in_japanese(lambda: lang.say(label))
    assert japanese.startswith("GRPO · 実行 20261127-145411-e50ce4 · demo-grpo")
    assert not english_left(japanese), japanese
    sft = Said("{stage} · {model} · {data} · {when}", stage="SFT",
               model=Said("run {run_id}", run_id="r-1"), data="demo", when="2026-11-27 14:54")
    latest = _in_japanese(lambda: lang.say(Said("Latest finished run: {name}",
                                                      name=sft)))
    assert "実行 r-1" in latest and not english_left(latest), latest
    assert lang.say(label) == label  # English outside a request


def test_the_model_list_and_the_plan_target_have_japanese_labels():
    """A gated model's note (its licence's name stays as written), and "This machine"."""
    from sft_ui.plan import catalog, targets
    from sft_ui.ui import lang
    from tests.i18n.test_i18n import AS_WRITTEN
    gated = [label for label, _ in catalog.choices() if "gated" in label]
    assert gated
    for label in gated:
        japanese = _in_japanese(lambda: lang.say(label))
        for name in AS_WRITTEN:
            japanese = japanese.replace(name, "")
        assert "ゲート付き" in japanese and not english_left(japanese), japanese
    assert _in_japanese(lambda: lang.say(targets.choices()[0][0])) == "このマシン"


def test_the_grpo_data_preview_comes_out_in_japanese():
    from sft_ui.data.preview import preview
    from sft_ui.ui.data_panel import prompt_summary_markdown, summary_markdown
    shown = preview(RunConfig.from_dict({"stage": "grpo", "dataset_name": "demo-grpo"}))
    summary = _in_japanese(lambda: summary_markdown(shown))
    assert "プロンプトのトークン数" in summary and not english_left(summary), summary
    alone = {**shown, "columns": ["prompt"]}  # no other column for the rewards
    summary = _in_japanese(lambda: prompt_summary_markdown(alone))
    assert "報酬が読めるほかの列はありません" in summary and not english_left(summary), summary


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


def test_gradio_s_own_words_have_japanese():
    """The keys Gradio's page looks its status words up by (its own Japanese has none for
    "common.complete" and the queue's place: the page showed the key and English)."""
    import gradio

    from sft_ui.ui import lang
    assets = Path(gradio.__file__).parent / "templates" / "frontend" / "assets"
    tracker = "".join(p.read_text(encoding="utf-8") for p in assets.glob("statustracker-*.js"))
    tables = lang.translations()
    for key in lang.GRADIO_WORDS:
        assert f"i18n(`{key}`)" in tracker, key  # a key Gradio's page really asks for
        assert JAPANESE.search(tables["ja"][key]) and tables["en"][key] == lang.GRADIO_WORDS[key]
    assert "{position}" in tables["ja"]["status.queue_position"]


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
