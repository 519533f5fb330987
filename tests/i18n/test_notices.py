"""No English left in the Japanese page (the parts that need no browser;
tests/browser/test_browser_languages.py drives the page): a notice keeps the English it was
made from and is drawn again in the page's new language; run labels, the model list's gated
note, the GRPO data preview and Gradio's own words in Japanese. Messages that go when their
cause goes: tests/ui/test_refusals_go.py."""
import re
from pathlib import Path

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
