"""English and Japanese: the translator, real errors said in Japanese, the language a
request is answered in, and what the page draws at run time in that language."""
import io
import re

import pytest

from sft_ui import i18n
from sft_ui.config import ConfigError, RunConfig
from sft_ui.i18n.scan import (
    AS_WRITTEN,  # noqa: F401 (tests/i18n/test_notices.py imports it from here)
    JAPANESE,
    english_left,
)


# ---- the translator -------------------------------------------------------------------
def test_language_tags_and_accept_language():
    assert i18n.language("ja-JP") == "ja" and i18n.language("EN_us") == "en"
    assert i18n.language("fr") is None and i18n.language(None) is None
    assert i18n.accepted_language("ja-JP") == "ja"
    assert i18n.accepted_language("fr-FR,fr;q=0.9,ja;q=0.8,en;q=0.7") == "ja"
    assert i18n.accepted_language("en-US,en;q=0.9,ja;q=0.95") == "en"
    assert i18n.accepted_language("ja;q=0,de") == "en"
    assert i18n.accepted_language("") == i18n.accepted_language(None) == "en"


def test_translate_renders_messages_and_parses_no_english_back():
    from sft_ui.i18n.message import Message as Said
    from sft_ui.i18n.message import as_message
    assert i18n.translate("Start", "en") == "Start"
    assert i18n.translate("Start", "ja") == "開始"
    assert i18n.translate("  Start\n", "ja") == "  開始\n"  # the space around it kept
    said = Said("Run {run_id} is {state}: stop it before deleting it.", run_id="r1",
                state=as_message("done"))
    assert i18n.translate(said, "ja") == "実行 r1 は完了です。削除する前に停止してください。"
    assert i18n.translate(said, "en") == said == "Run r1 is done: stop it before deleting it."
    # A value that is a Message of its own is rendered too; any other value is kept.
    oom = Said("Out of memory at step {step}. {advice}", step=3,
               advice=Said("No run with id {run_id}.", run_id="x"))
    assert i18n.translate(oom, "ja") == \
        "ステップ 3 でメモリが足りなくなりました。ID が x の実行はありません。"
    # Finished English is never read back into a template: it stays English.
    assert i18n.translate(str(said), "ja") == str(said)
    assert i18n.translate("**Cannot start:**\n\n- No run with id x.", "ja") == \
        "**Cannot start:**\n\n- No run with id x."
    assert i18n.has_entry("Start", "ja") and i18n.has_entry(said, "ja")
    assert not i18n.has_entry(str(said), "ja")


def test_every_entry_keeps_the_placeholders_of_its_english():
    for english, japanese in {**i18n.entries("ja"), **i18n.formats("ja")}.items():
        assert i18n.placeholders(english) == i18n.placeholders(japanese), english
        assert not english_left(japanese), (english, english_left(japanese))


def test_durations_are_written_in_each_languages_form():
    assert i18n.formatted("{minutes}m {seconds}s", "ja", minutes=1, seconds="05") == "1分05秒"
    assert i18n.formatted("{hours}h {minutes}m", "en", hours=2, minutes="03") == "2h 03m"


def test_each_language_has_one_catalogue_in_gettexts_format():
    """One messages.po per language, as Poedit, Weblate or Crowdin read it: valid, each
    English text once, and the figures' forms apart (msgctxt "format")."""
    from babel.messages.pofile import read_po
    for code in sorted(set(i18n.LANGUAGES) - {i18n.DEFAULT}):
        path = i18n.catalogue_file(code)
        text = path.read_text(encoding="utf-8")
        book = read_po(io.StringIO(text), abort_invalid=True)
        assert len(re.findall(r"^msgid ", text, re.M)) == len(book) + 1, \
            f"{path}: an English text has two entries"
    assert set(i18n.formats("ja")) == {"{seconds}s", "{minutes}m {seconds}s", "{hours}h {minutes}m"}
    assert not set(i18n.formats("ja")) & set(i18n.entries("ja"))


def test_real_errors_come_out_in_japanese(tmp_path):
    from sft_ui.data import DataError, load_data
    problems = RunConfig.from_dict({
        "learning_rate": -1, "per_device_train_batch_size": 0, "lr_scheduler_type": "zigzag",
        "dataset_format": "template", "sample_prompts": [], "warmup_steps": 2.5,
        "save_total_limit": 2, "save_steps": 0, "use_peft": True, "lora_target_modules": " ",
        "eval_fraction": 0.9}).validate()
    with pytest.raises(ConfigError) as coerced:
        RunConfig.from_dict({"max_steps": "ten", "batch": 3, "learning_rate": "nan"})
    problems += coerced.value.messages
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "fine"}\n{"text": oops}\n')
    wrong = tmp_path / "qa.jsonl"
    wrong.write_text('{"field1": "a", "field2": "b"}\n')
    for values in ({"dataset_name": str(broken)}, {"dataset_name": str(wrong)},
                   {"dataset_name": str(tmp_path / "missing.jsonl")},
                   {"dataset_name": str(wrong), "dataset_format": "template",
                    "dataset_template": "Q: {query}"},
                   {"dataset_name": str(tmp_path / "data.xlsx")}):
        with pytest.raises(DataError) as e:
            load_data(RunConfig.from_dict(values))
        problems += e.value.messages
    assert len(problems) > 15
    for problem in problems:
        japanese = i18n.translate(problem, "ja")
        # The JSON parser's own words, and the test data's column names, stay as they are.
        japanese_only = re.sub(r"Expecting value|question|answer|query", "", japanese)
        assert JAPANESE.search(japanese) and not english_left(japanese_only), japanese


class FakeRequest:
    def __init__(self, session="", accept=""):
        self.session_hash = session
        self.headers = {"accept-language": accept} if accept else {}


def test_a_request_is_answered_in_its_language():
    from gradio.context import LocalContext

    from sft_ui.i18n.message import Message as Said
    from sft_ui.ui import lang
    error = ConfigError([Said("No run with id {run_id}.", run_id="x"),
                         Said("Model is empty: enter a Hub id or a local folder.")])
    assert lang.messages(error) == error.messages  # outside a request: English
    for request, japanese in ((FakeRequest(accept="ja-JP,ja;q=0.9"), True),
                              (FakeRequest(accept="en-US"), False), (FakeRequest(), False)):
        token = LocalContext.request.set(request)
        try:
            assert bool(JAPANESE.search(" ".join(lang.messages(error)))) is japanese
        finally:
            LocalContext.request.reset(token)
    # The selector's choice for a session wins over the browser's header.
    chosen = FakeRequest(session="s1", accept="ja")
    assert lang._remember("en", chosen) == "en"
    token = LocalContext.request.set(chosen)
    try:
        assert lang.say("No run is training.") == "No run is training."
        lang._remember("ja-JP", chosen)
        assert lang.say("No run is training.") == "学習中の実行はありません。"
        heading = lang.problems("Cannot start:", error)
        assert heading.startswith("**開始できません:**\n\n- ID が x の実行はありません。")
    finally:
        LocalContext.request.reset(token)
    assert lang._remember("xx", FakeRequest(session="s2", accept="ja")) == "ja"


# ---- what the page draws at run time -------------------------------------------------
TAG = re.compile(r"<[^>]+>")


def _in_japanese(fn):
    from gradio.context import LocalContext
    token = LocalContext.request.set(FakeRequest(accept="ja-JP,ja;q=0.9"))
    try:
        return fn()
    finally:
        LocalContext.request.reset(token)


def test_settings_in_a_table_say_their_switches_in_japanese():
    """A queued run's or a trial's settings, as the tables write them: each setting's label,
    a switch as on, off or auto in the page's language (not Python's True)."""
    from sft_ui.ui.widgets import settings_said
    said = _in_japanese(lambda: settings_said({"completion_only_loss": True, "use_peft": False,
                                                "bf16": None, "learning_rate": 0.001}))
    assert "True" not in said and "0.001" in said and not english_left(said), said


def test_the_live_view_and_the_tables_come_out_in_japanese():
    """Status, progress (durations too), the loss plot's series and colours, and the
    headers and cells of the samples, Compare and Runs tables, made for a Japanese
    request: no English word left."""
    from sft_ui.ui import chat_tab, lang, live_view, runs_tab
    snap = {"run_id": "r1", "state": "running", "message": "Training...", "error": "",
            "step": 3, "max_steps": 10, "elapsed_seconds": 65, "eta_seconds": 200, "log": "",
            "metrics": [{"step": 1, "loss": 2.0, "epoch": 0.1, "tokens_per_second": 1234.0,
                         "memory_bytes": 2**31, "learning_rate": 1e-4, "grad_norm": 1.0},
                        {"step": 2, "loss": 1.5, "eval_loss": 1.7}],
            "samples": [{"step": 2, "prompt": "p", "completion": "c"}]}
    row = {"name": "r1", "run_id": "r1", "model": "m", "dataset": "demo", "state": "done",
           "step": 10, "max_steps": 10, "final_loss": 1.25, "duration_seconds": 7380,
           "created": 0}

    def made():
        frame = live_view.loss_frame(snap)
        series = list(dict.fromkeys(frame["series"]))
        runs = runs_tab.table_frame([row])
        return {"status": live_view.status_markdown(snap),
                "progress": TAG.sub(" ", live_view.progress_html(snap)),
                "series": series, "coloured": list(live_view.loss_colours(set(series))),
                "samples": list(live_view.samples_frame(snap).columns),
                "empty samples": list(live_view.samples_frame(None).columns),
                "compare": list(chat_tab.compare_frame([("p", "a", "b")]).columns),
                "runs": list(runs.columns) + [str(c) for c in runs.iloc[0]],
                "durations": [lang.compact_duration(s) for s in (5, 65, 7380)]}
    shown = _in_japanese(made)
    left = {what: english_left(" ".join(texts) if isinstance(texts, list) else texts)
            for what, texts in shown.items()}
    assert not any(left.values()), (left, shown)
    assert shown["series"] == ["学習", "学習（平滑化）", "評価"]
    assert shown["coloured"] == shown["series"]  # every series shown has its colour
    assert "経過 1分05秒" in shown["progress"] and "残り 3分20秒" in shown["progress"]
    assert shown["durations"] == ["5秒", "1分05秒", "2時間03分"]
    assert shown["samples"] == ["ステップ", "プロンプト", "回答"]
    assert "完了" in shown["runs"]
    # Outside a request (and for an English one) all of it stays English.
    assert list(live_view.loss_colours()) == ["train", "train (smoothed)", "eval"]
    assert lang.compact_duration(65) == "1m 05s"
    assert "elapsed 1m 05s" in live_view.progress_html(snap)


def test_the_model_card_in_the_page_is_japanese_and_the_file_english(tmp_path):
    """The Export tab shows the card's headings, sentences, figure names and table
    headers in Japanese, from its lines kept as made beside the export folder (so after a
    restart too); the run's name, setting names and values, the samples and the code stay
    as they are, and README.md (for the Hub) stays English."""
    from sft_ui.runs.run import create_run
    from sft_ui.share.card import write_card
    from sft_ui.ui import export_tab
    run = create_run(tmp_path / "runs", RunConfig(use_peft=True))
    for step, loss in enumerate((2.5, 2.1, 1.8), start=1):
        run.add_metrics({"step": step, "loss": loss})
    run.add_metrics({"step": 3, "eval_loss": 2.0})
    run.add_samples([{"step": 3, "prompt": "Start", "completion": "Stop"}])
    run.step = 3
    out = tmp_path / "export"
    out.mkdir()
    english = write_card(run, out, "adapter", "checkpoint-3").read_text(encoding="utf-8")
    shown = _in_japanese(lambda: export_tab.card_view(str(out)))
    assert (out / "README.md").read_text(encoding="utf-8") == english  # the file is kept
    assert "![損失曲線](data:image/png;base64," in shown  # the curve, inlined
    page = shown.split("---", 2)[-1] if shown.startswith("---") else shown
    assert "## Results" in english and "## 結果" in page and "## 設定" in page
    assert "LoRA アダプタです" in page and "（3 ステップ、checkpoint-3）" in page
    kept, lines, section, code = [], [], "", False
    for line in page.split("\n"):
        code = code != line.startswith("```")
        section = line if line.startswith("## ") else section
        if (code and not line.startswith("# ")) or line.startswith(("```", "![")) or (
                section.startswith(("## 設定", "## サンプル")) and not line.startswith("## ")
                and not line.startswith("| 設定 |")):
            kept.append(line)  # setting names and values, the samples, the code
        else:
            lines.append(line)
    assert not english_left("\n".join(lines).replace(f"# {run.name}", "")), lines
    assert "**Start**" in kept and "> Stop" in kept  # a sample is not translated
    assert _in_japanese(lambda: export_tab.card_in_language(["# Start"])) == "# Start"


def test_the_data_preview_comes_out_in_japanese():
    """The preview's summary (the demo set's name too) and its legend and headings."""
    from sft_ui.data.preview import preview
    from sft_ui.ui.data_panel import examples_html, summary_markdown
    shown = preview(RunConfig.from_dict({"dataset_name": "demo", "max_length": 32}))
    summary = _in_japanese(lambda: summary_markdown(shown))
    page = _in_japanese(lambda: examples_html(shown))
    legend = TAG.sub(" ", page.split("</style>")[1].split("<pre")[0])
    assert "デモデータ" in summary and not english_left(summary), summary
    assert not english_left(legend), legend


def test_ids_and_paths_are_names_not_english():
    """A run id's random hex can spell letters ("d8adcf": "adcf"); an id, a path or a
    number is a name by rule, and English around it is still found."""
    assert english_left("実行 20261125-060830-d8adcf は完了") == []
    assert english_left("/tmp/runs/20261125-060830-beefed/model を開きます") == []
    assert english_left("実行 20261125-060830-d8adcf is done") == ["done"]
