"""The page in Japanese in a real browser: a Japanese locale gets Japanese labels and
help, the glyphs really render (not as empty boxes), an error made in Python comes
out in Japanese, and the selector switches the page and its messages to English.
A short run in the Japanese page draws its plot legend, tables, durations and model
card in Japanese. The API answers in the client's Accept-Language."""
import re
from pathlib import Path

import pytest

from sft_ui.i18n.scan import english_left
from tests.app_fixtures import japanese_page
from tests.browser.test_browser import _field, _set
from tests.conftest import HANG_MS, set_field, wait_for

# Draw each character alone on a canvas in the label's font: real glyphs differ from
# one another, while a missing font draws every character as the same empty box.
DISTINCT_GLYPHS = """([chars, font]) => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const seen = new Set();
  for (const ch of chars) {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = font;
    ctx.textBaseline = 'top';
    ctx.fillText(ch, 4, 4);
    const alpha = ctx.getImageData(0, 0, 64, 64).data.filter((_, i) => i % 4 === 3);
    seen.add(alpha.some((a) => a > 0) ? alpha.join(',') : 'blank');
  }
  return seen.size;
}"""
FONT = "(el) => getComputedStyle(el).font"


@pytest.fixture(scope="module")
def ja_page(live_app):
    with japanese_page(live_app[0], 1400, 1600) as page:
        yield page


def test_a_japanese_browser_gets_a_japanese_page_that_renders(ja_page, tmp_path):
    from playwright.sync_api import expect
    page = ja_page
    batch = page.locator("#cfg-per_device_train_batch_size")
    expect(_field(page, "デバイスあたりのバッチサイズ")).to_be_visible()
    expect(batch).to_contain_text("勾配累積を 2 倍にしましょう")
    expect(page.get_by_role("tab", name="学習")).to_be_visible()
    expect(page.get_by_role("button", name="開始")).to_be_visible()
    expect(page.locator("#language input")).to_have_value("日本語")
    # Text made in Python at page load (the plan) follows the browser's language too.
    expect(page.locator("#plan")).to_contain_text("ピーク時のメモリ")
    expect(page.locator("#plan-summary")).to_contain_text("実効バッチサイズ")  # the one line too

    label = batch.get_by_text("デバイスあたりのバッチサイズ", exact=True)
    font = label.evaluate(FONT)
    assert page.evaluate(DISTINCT_GLYPHS, ["デバイスあたりのバッチサイズ", font]) == \
        len(set("デバイスあたりのバッチサイズ"))
    # The check can fail: characters no font has come out as identical boxes.
    assert page.evaluate(DISTINCT_GLYPHS, ["\ue000\ue001\ue002\ue003", font]) == 1
    shot = tmp_path / "label.png"
    label.screenshot(path=str(shot))
    from PIL import Image
    ink = sum(1 for p in Image.open(shot).convert("L").tobytes() if p < 128)
    assert ink > 50, "the Japanese label drew (almost) nothing"
    page.screenshot(path=str(tmp_path / "train-ja.png"), full_page=True)


def test_errors_come_out_in_japanese_then_english_after_switching(ja_page):
    from playwright.sync_api import expect
    page = ja_page
    _set(page, "学習率", -1)
    page.get_by_role("button", name="開始").click()
    notice = page.locator("#start-notice")
    expect(notice).to_contain_text("開始できません")
    # One line for a negative learning rate, naming the field as the page does.
    expect(notice).to_contain_text("学習率 (learning_rate) は 0 より大きくしてください")
    expect(notice.get_by_role("listitem")).to_have_count(1)
    _set(page, "学習率", 0.0001)
    # Batch size 0: its range, and nothing untrue (SFT compares no answers in a batch).
    _set(page, "デバイスあたりのバッチサイズ", 0)
    page.get_by_role("button", name="開始").click()
    expect(notice).to_contain_text("デバイスあたりのバッチサイズ (per_device_train_batch_size) "
                                   "は 1 以上にしてください")
    expect(notice.get_by_role("listitem")).to_have_count(1)
    expect(notice).not_to_contain_text("比べます")
    _set(page, "デバイスあたりのバッチサイズ", 3)
    expect(page.locator("#effective-batch")).to_contain_text("実効バッチサイズ: 6")

    page.locator("#language input").click()
    page.get_by_role("option", name="English").click()
    expect(_field(page, "Batch size per device")).to_be_visible()
    expect(page.get_by_role("tab", name="Train")).to_be_visible()
    # Every tab's label follows the switch, not only the tab shown.
    tabs = page.get_by_role("tab")
    expect(tabs).to_have_text(["Train", "Chat", "Compare", "Evaluate", "Runs", "Export"])
    # Python's text follows the switch: redrawn at once, and in every later answer.
    expect(page.locator("#effective-batch")).to_contain_text("Effective batch: 6")
    expect(page.locator("#plan")).to_contain_text("Peak memory")
    _set(page, "Learning rate", -1)
    page.get_by_role("button", name="Start").click()
    expect(notice).to_contain_text("Cannot start")
    expect(notice).to_contain_text("Learning rate (learning_rate) must be greater than 0")

    page.locator("#language input").click()
    page.get_by_role("option", name="日本語").click()
    expect(_field(page, "デバイスあたりのバッチサイズ")).to_be_visible()
    expect(page.locator("#effective-batch")).to_contain_text("実効バッチサイズ: 6")
    expect(tabs).to_have_text(["学習", "チャット", "比較", "評価", "実行履歴", "エクスポート"])


def test_the_api_answers_in_the_clients_language(live_app, connect):
    url = live_app[0]
    for headers, needle in (({"Accept-Language": "ja-JP,ja;q=0.9"}, "学習率 (learning_rate) は"),
                            ({}, "Learning rate (learning_rate) must be")):
        client = connect(url, headers=headers)
        with pytest.raises(Exception, match=re.escape(needle)):
            client.predict({"learning_rate": -1}, api_name="/start_run")


def test_a_run_in_the_japanese_page_is_drawn_in_japanese(ja_page, live_app, tiny_model_dir,
                                                         tiny_cfg, tmp_path):
    """After a short run: the loss plot's legend (in its colours), the Continue buttons,
    the samples table's headers, the progress's durations, the Runs table and the model
    card are Japanese. On a phone (390x844) the pinned bar takes little of the screen and
    the samples' headers are whole. The Export tab opens on this run, not on the one
    finished before it, and says that a chat Space needs the model pushed first."""
    from playwright.sync_api import expect
    page, manager = ja_page, live_app[1]
    page.locator("#language input").click()  # whatever the tests before left it at
    page.get_by_role("option", name="日本語").click()
    # A run finished before this page's: the Export tab's choice while it is the newest.
    older = manager.start({**tiny_cfg, "sample_steps": 0})
    wait_for(lambda: manager.get(older).state in ("done", "stopped", "failed"))
    assert manager.get(older).state == "done", manager.get(older).error
    manager.rename(older, "前の実行")
    page.get_by_role("tab", name="エクスポート").click()
    expect(page.locator("#export-run input")).to_have_value(re.compile("前の実行"))
    page.get_by_role("tab", name="学習").click()
    samples = page.locator("#samples")
    expect(samples.locator("thead")).to_contain_text("プロンプト")  # before any run too
    for label, value in (("モデル", tiny_model_dir), ("最大ステップ数", 4), ("学習率", 0.001),
                         ("デバイスあたりのバッチサイズ", 2), ("勾配累積ステップ数", 1),
                         ("最大長（トークン）", 64), ("サンプル生成の間隔（ステップ）", 2),
                         ("サンプルの長さ（トークン）", 8)):
        set_field(page, label, value)
    page.get_by_role("button", name="開始").click()
    status = page.locator("#run-status")
    expect(status).to_contain_text("実行", timeout=HANG_MS)
    expect(status).to_contain_text("完了", timeout=HANG_MS)
    # Continue offers the stages that follow SFT, each in its own words (continue_label)
    for name in ("選好チューニングに進む", "GRPO（報酬による学習）に進む"):
        expect(page.get_by_role("button", name=name)).to_be_visible(timeout=HANG_MS)
    legend = page.locator("#loss-plot .role-legend-label")
    expect(legend).to_have_text(["学習", "学習（平滑化）"])
    strokes = page.locator("#loss-plot").evaluate(
        "(p) => Array.from(p.querySelectorAll('.mark-line path'), (e) => e.getAttribute('stroke'))")
    assert strokes == ["#93c5fd", "#1d4ed8"], strokes  # each series in its own colour
    headers = samples.locator("thead th")
    expect(headers).to_have_text([re.compile(rf"^\s*{h}\s*⋮?\s*$")  # ⋮: the column menu
                                  for h in ("ステップ", "プロンプト", "回答")])
    lines = headers.evaluate_all("""(ths) => ths.map((th) => {
      const walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      let node, tops = new Set();
      while ((node = walk.nextNode())) if (node.textContent.trim().length > 1) {
        const r = document.createRange(); r.selectNodeContents(node);
        for (const box of r.getClientRects()) tops.add(Math.round(box.top));
      }
      return tops.size; })""")
    assert lines == [1, 1, 1], lines  # "ステップ" broke in two in its narrow column
    expect(samples).to_contain_text("What is the capital of Italy?")  # the data as it is
    expect(page.locator("#run-progress")).to_contain_text(re.compile(r"経過 \d+秒"))
    page.screenshot(path=str(tmp_path / "run-ja.png"), full_page=True)

    # On a phone: the bar pinned to the bottom (Start, Stop, Resume, the progress) takes
    # little of the screen (about a quarter, with both Continue buttons in it), Continue
    # is in the page above the live view, and the samples' headers are whole (not "ステ").
    page.set_viewport_size({"width": 390, "height": 844})
    pinned = page.get_by_role("button", name="開始").evaluate(PINNED_HEIGHT)
    assert pinned is not None and pinned <= 844 * 0.15, pinned
    for name in ("選好チューニングに進む", "GRPO（報酬による学習）に進む"):
        button = page.get_by_role("button", name=name)
        expect(button).to_be_visible()
        assert button.evaluate(PINNED_HEIGHT) is None, name  # not in the pinned bar
    page.wait_for_function(PHONE_COLUMNS)  # the table's columns laid out for the phone
    cut = headers.evaluate_all(CUT_HEADERS)
    assert not any(cut), cut
    page.screenshot(path=str(tmp_path / "run-ja-phone.png"))
    page.set_viewport_size({"width": 1400, "height": 1600})

    page.get_by_role("tab", name="実行履歴").click()
    table = page.locator("#runs-table")
    expect(table.locator("thead")).to_contain_text("所要時間")
    expect(table).to_contain_text("完了")
    expect(table).to_contain_text(re.compile(r"\d+秒"))

    page.get_by_role("tab", name="エクスポート").click()
    newest = manager.all_runs()[0]  # this page's run, without a pick or Refresh
    assert newest.id != older and newest.name == newest.id  # named by what it is
    model = Path(tiny_model_dir).name  # as its label names it ("SFT · <model> · demo · ...")
    expect(page.locator("#export-run input")).to_have_value(
        re.compile(rf"^(?!.*前の実行).*{re.escape(model)}"))
    page.get_by_role("button", name="エクスポート", exact=True).click()
    expect(page.locator("#export-notice")).to_contain_text("にエクスポートしました",
                                                           timeout=HANG_MS)
    page.get_by_role("button", name=re.compile("^モデルカード")).click()
    card = page.locator("#export-card")
    expect(card).to_contain_text("読み込み方")
    expect(card).to_contain_text("フルファインチューニングです")
    expect(card.locator("th").first).to_have_text("項目")
    expect(card).not_to_contain_text("How to load it")
    # A chat Space loads a pushed model: said before the button, and refused without one.
    expect(page.locator("#publish-help")).to_contain_text("先にエクスポートをプッシュしてください")
    page.get_by_role("button", name="チャット Space として公開").click()
    hub = page.locator("#hub-notice")
    expect(hub).to_contain_text("公開できません")
    expect(hub).to_contain_text("Hub にプッシュしたモデルを読み込みます")


# The height of the element pinned to the window (position: fixed) that holds the element
# it is called on; null when none does.
PINNED_HEIGHT = """(element) => {
  for (let e = element; e; e = e.parentElement)
    if (getComputedStyle(e).position === 'fixed') return e.getBoundingClientRect().height;
  return null;
}"""
# The samples table no wider than its block: its columns laid out for the window's width.
PHONE_COLUMNS = """() => document.querySelector('#samples table').getBoundingClientRect().width
  <= document.querySelector('#samples').getBoundingClientRect().width"""
# The headers whose text runs past their cell (cut off there), by their text.
CUT_HEADERS = """(ths) => ths.map((th) => {
  const range = document.createRange();
  range.selectNodeContents(th.querySelector('.header') || th);
  const text = range.getBoundingClientRect(), box = th.getBoundingClientRect();
  return text.left >= box.left - 0.5 && text.right <= box.right + 0.5 ? ''
    : th.textContent.trim();
})"""


# What the page shows of a tab in its own words: its text as a person sees it, without
# Gradio's status trackers (drawn transparent while an event runs), nor what the model and
# the data wrote (the samples' table of prompts and answers, the run's log file; their
# headers are checked in test_a_run_in_the_japanese_page_is_drawn_in_japanese).
SHOWN_TEXT = """(tab) => {
  for (const t of tab.querySelectorAll('.wrap.hide, .wrap.hidden, #samples, #run-log'))
    t.style.display = 'none';
  return tab.innerText;
}"""


def _code_words() -> set[str]:
    """Words that are values a person types or picks, kept as they are in any language:
    each setting's choices (stage names, optimizers, loss types...) and field names."""
    from sft_ui.config import registry
    words = set()
    for f in registry.fields():
        choices = f.metadata.get("choices")
        values = choices() if callable(choices) else choices or []
        words |= {str(v) for v in values} | {f.name}
    return words


def test_switching_to_japanese_leaves_no_english_on_any_tab(ja_page, live_app):
    """Right after the selector switches the page (English at load), every tab, its panels
    opened, reads in Japanese: no English word left but names, paths, numbers, units and
    code (sft_ui/i18n/scan.py's english_left, and the settings' own values)."""
    from playwright.sync_api import expect

    # (a browser of its own in this module: the English page, beside the Japanese one)
    context = ja_page.context.browser.new_context(locale="en-US",
                                                  viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(HANG_MS)
    page.goto(live_app[0])
    expect(page.get_by_role("tab", name="Train")).to_be_visible()
    page.locator("#language input").click()
    page.get_by_role("option", name="日本語").click()
    expect(page.get_by_role("tab", name="学習")).to_be_visible()
    code, left = _code_words(), {}
    for tab in ("学習", "チャット", "比較", "評価", "実行履歴", "エクスポート"):
        page.get_by_role("tab", name=tab).click()
        panel = page.locator(".tabitem:visible").first
        expect(panel).to_be_visible()
        for closed in panel.locator("button.label-wrap:not(.open)").all():
            if closed.is_visible():
                closed.click()
        expect(page.locator("#plan-summary")).to_contain_text("実効バッチサイズ")
        text = re.sub(r"\b\w+:<[^>]*>", " ", panel.evaluate(SHOWN_TEXT))  # run:<run id>
        words = {w for w in english_left(text) if w not in code}
        if words:
            left[tab] = sorted(words)
    assert not left, left
    # Gradio's own words in the upload box (drawn once) follow the switch, both ways.
    page.get_by_role("tab", name="学習").click()
    expect(page.locator("#data-upload")).to_contain_text("ファイルをここにドロップ")
    page.locator("#language input").click()
    page.get_by_role("option", name="English").click()
    expect(page.locator("#data-upload")).to_contain_text("Drop File Here")
    expect(page.locator("#data-upload")).to_contain_text("Click to Upload")
    context.close()


def test_japanese_data_shows_whole_characters_and_the_files_name(ja_page, tmp_path):
    """An uploaded Japanese file: the token view shows whole characters (a letter the
    byte-level tokenizer splits over tokens was 「������」), the loss mask on the answer's;
    the dataset box shows the file's name, not the server's upload path."""
    from playwright.sync_api import expect
    page = ja_page
    page.get_by_role("tab", name="学習").click()
    data = tmp_path / "support.csv"
    data.write_text("質問,回答\n日本の首都はどこですか？,東京です。\n"
                    "富士山の高さは？,3776 メートルです。\n", encoding="utf-8")
    page.locator("#data-upload input[type=file]").set_input_files(str(data))
    example = page.locator("#data-preview .example").first
    expect(example.locator(".tok.loss").first).to_be_visible()
    shown = example.locator(".tok").all_text_contents()
    assert "\ufffd" not in "".join(shown), shown
    assert "東京です。" in "".join(example.locator(".tok.loss").all_text_contents())
    assert "日本の首都はどこですか？" in "".join(example.locator(".tok.masked").all_text_contents())
    expect(page.locator("#cfg-dataset_name input")).to_have_value("support.csv")
    page.locator("#data-examples").screenshot(path=str(tmp_path / "tokens-ja.png"))
