"""The Japanese page in a real browser (Chromium, ja-JP, 1280x720), as a Japanese user
found it: no English left after an SFT run and a GRPO run, on any tab, after switching
language both ways (what was written before the switch is drawn again in the new
language); the Continue notice readable whole, not over the loss chart; Gradio's own
words in Japanese; and messages that go when their cause goes: Start's refusal of a file
it cannot read once a good file replaced it, of an empty template once it is filled, of
a run still training once that run ended, and a plan that says it cannot read the file
instead of "fits". (The parts without a browser: tests/i18n/test_notices.py.)"""
import json
import re

import pytest

from sft_ui.i18n.scan import AS_WRITTEN, english_left
from tests.app_fixtures import japanese_page
from tests.conftest import field, fresh, newest_ended, open_panels, set_field, wait_for

TABS = ("学習", "チャット", "比較", "評価", "実行履歴", "エクスポート")
# What a person reads on a tab: its text (Gradio's status trackers left out, drawn
# transparent while an event runs), without what the model and the data wrote (the samples'
# prompts and answers, the run's log, the data preview's rows) and without code (code
# boxes, and names in code marks: a column's, a file's), which stays as written; and the
# value each list shows (the model, the plan's target, a run...).
SHOWN = """(tab) => {
  const hidden = tab.querySelectorAll('.wrap.hide, .wrap.hidden, #samples, #run-log, ' +
                                      '#data-examples, #reward-table, code, pre, .cm-editor');
  const before = Array.from(hidden, (t) => t.getAttribute('style'));
  for (const t of hidden) t.style.setProperty('display', 'none', 'important');
  const text = tab.innerText;
  hidden.forEach((t, n) => before[n] === null ? t.removeAttribute('style')
                                                : t.setAttribute('style', before[n]));
  const lists = Array.from(tab.querySelectorAll('input[role=combobox]'))
    .filter((i) => i.offsetParent !== null).map((i) => i.value);
  return text + '\\n' + lists.join('\\n');
}"""


def _code_words() -> set[str]:
    """Values a person types or picks, kept as they are in any language: each setting's
    choices and name, and the presets' names."""
    from sft_ui.config import preset_names
    from tests.browser.test_browser_i18n import _code_words as settings_words
    return settings_words() | set(preset_names())


@pytest.fixture(scope="module")
def ja(live_app):
    """A Japanese Chromium at 1280x720 on the module's app."""
    with japanese_page(live_app[0], 1280, 720) as page:
        yield page


def _fresh(page, url):
    """The page opened again, in Japanese, on the Train tab with the plan drawn (as on a
    first visit: no settings kept from the test before)."""
    from playwright.sync_api import expect
    fresh(page, url)
    expect(page.locator("#plan-summary")).to_contain_text("実効バッチサイズ")


def _switch(page, language: str):
    from playwright.sync_api import expect
    page.locator("#language input").click()
    page.get_by_role("option", name=language).click()
    expect(page.get_by_role("tab", name="Train" if language == "English" else "学習")) \
        .to_be_visible()


def _upload(page, path):
    """A file into the upload box (the one it holds cleared first)."""
    box = page.locator("#data-upload")
    if not box.locator("input[type=file]").count():
        box.get_by_role("button", name="クリア").click()
    box.locator("input[type=file]").set_input_files(str(path))


def test_refusals_go_when_their_cause_goes(ja, live_app, tiny_model_dir, tmp_path):
    """A file it cannot read: the plan says so (not "fits", nor "ready"), Start refuses it;
    a good file takes both away. An empty template: the plan and Start say so until it is
    filled in."""
    from playwright.sync_api import expect
    page = ja
    _fresh(page, live_app[0])
    set_field(page, "モデル", tiny_model_dir)
    bad = tmp_path / "support.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": oops}\n')
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps({"text": f"Row {n}: hello."}) + "\n" for n in range(8)))
    line, notice = page.locator("#plan-summary"), page.locator("#start-notice")
    _upload(page, bad)
    expect(line).to_contain_text("データを読めません")
    expect(line).to_contain_text("support.jsonl")
    expect(line).not_to_contain_text("収まります")
    expect(page.locator("#run-status")).not_to_contain_text("準備完了")
    page.get_by_role("button", name="開始").click()
    expect(notice).to_contain_text("開始できません")
    expect(notice).to_contain_text("support.jsonl")
    _upload(page, good)  # the cause goes, and the refusal with it
    expect(page.locator("#data-summary")).to_contain_text("good.jsonl")
    expect(notice).not_to_contain_text("開始できません")
    expect(line).to_contain_text("収まります")

    open_panels(page)
    page.locator("#cfg-dataset_format input").click()
    page.get_by_role("option", name="template", exact=True).click()
    expect(line).to_contain_text("テンプレートが空です")
    page.get_by_role("button", name="開始").click()
    expect(notice).to_contain_text("テンプレートが空です")
    set_field(page, "テンプレート", "Q: {text}")  # filled in, and the box left
    expect(notice).not_to_contain_text("テンプレートが空です")
    expect(line).to_contain_text("収まります")
    assert live_app[1].all_runs() == []  # nothing started


def test_a_refusal_of_a_run_still_training_goes_when_it_ends(ja, live_app, tiny_model_dir):
    from playwright.sync_api import expect
    page, manager = ja, live_app[1]
    _fresh(page, live_app[0])
    before = len(manager.all_runs())
    for label, value in (("モデル", tiny_model_dir), ("最大ステップ数", 100_000),
                         ("デバイスあたりのバッチサイズ", 1), ("勾配累積ステップ数", 1),
                         ("最大長（トークン）", 32), ("サンプル生成の間隔（ステップ）", 0)):
        set_field(page, label, value)
    start, stop = page.get_by_role("button", name="開始"), page.get_by_role("button", name="停止")
    start.click()
    run = wait_for(lambda: len(manager.all_runs()) > before and manager.all_runs()[0])
    expect(stop).to_be_enabled()
    # A second press that reached the server before the page's look at the run disabled
    # Start (a double press): refused, while the run trains.
    start.evaluate("(button) => { button.disabled = false; }")
    start.click()
    notice = page.locator("#start-notice")
    expect(notice).to_contain_text(f"実行 {run.id} がまだ学習中です")
    stop.click()
    assert wait_for(lambda: newest_ended(manager, before + 1)).state == "stopped"
    expect(notice).not_to_contain_text("まだ学習中")  # its cause, the run, ended


def test_after_an_sft_and_a_grpo_run_no_english_is_left(ja, live_app, tiny_model_dir,
                                                       tmp_path):
    """SFT, then Continue with GRPO (its notice whole, not over the chart), GRPO, the data
    preview; the selector switches to English (what was written, in English) and back;
    every tab then reads in Japanese: its text, its lists' values, run labels, Gradio's own
    words."""
    from playwright.sync_api import expect
    page, manager = ja, live_app[1]
    _fresh(page, live_app[0])
    before = len(manager.all_runs())
    for label, value in (("モデル", tiny_model_dir), ("最大ステップ数", 2),
                         ("デバイスあたりのバッチサイズ", 2), ("勾配累積ステップ数", 1),
                         ("最大長（トークン）", 64), ("サンプル生成の間隔（ステップ）", 0)):
        set_field(page, label, value)
    page.get_by_role("button", name="開始").click()
    sft = wait_for(lambda: newest_ended(manager, before + 1))
    assert sft.state == "done", sft.error
    expect(page.locator("#run-status")).to_contain_text(f"実行 {sft.id}: 完了")

    page.get_by_role("button", name="GRPO（報酬による学習）に進む").click()
    notice = page.locator("#start-notice")
    expect(notice).to_contain_text(f"実行 {sft.id} の続きとして GRPO の実行を設定しました")
    items = notice.get_by_role("listitem")
    expect(items.last).to_contain_text("勾配累積ステップ数: 2（元は 1）")
    assert items.count() >= 2
    whole = notice.evaluate("(n) => [n.scrollHeight, n.clientHeight]")
    assert whole[0] <= whole[1] + 1, whole  # all of it, not a box scrolled to its first line
    for item in items.all():
        expect(item).to_be_in_viewport()
    chart = page.locator("#loss-plot").bounding_box()
    box = notice.bounding_box()
    assert box["y"] + box["height"] <= chart["y"], (box, chart)  # above the chart, not over
    page.evaluate("() => window.scrollBy(0, 600)")  # scrolled: not laid over it either
    box = notice.bounding_box()
    chart = page.locator("#loss-plot").bounding_box()
    assert box["y"] + box["height"] <= chart["y"] + 1, (box, chart)
    page.screenshot(path=str(tmp_path / "continue-ja.png"))
    # What was written before a switch is written again in the new language.
    _switch(page, "English")
    expect(notice).to_contain_text(f"Filled in a GRPO run after run {sft.id}")
    expect(items.last).to_contain_text("Gradient accumulation: 2 (was 1)")
    _switch(page, "日本語")
    expect(notice).to_contain_text("GRPO の実行を設定しました")
    expect(items.last).to_contain_text("勾配累積ステップ数: 2（元は 1）")

    set_field(page, "回答の最大長（トークン）", 6)
    page.get_by_role("button", name="開始").click()
    grpo = wait_for(lambda: newest_ended(manager, before + 2))
    assert grpo.state == "done", grpo.error
    expect(page.locator("#run-status")).to_contain_text(f"実行 {grpo.id}: 完了")
    page.get_by_role("button", name="データをプレビュー").click()
    summary = page.locator("#data-summary")
    expect(summary).to_contain_text("プロンプトのトークン数")
    # Gradio's announcement (to a screen reader) of the preview's end: its word for it
    expect(page.locator(".sr-only[role=status]")).to_have_text("完了")

    page.locator("#plan-fit").click()  # Fit's notice, written in Japanese
    fitted = page.locator("#plan-notice")
    expect(fitted).to_contain_text("バッチ")

    _switch(page, "English")
    expect(summary).to_contain_text("Prompt tokens")
    expect(fitted).to_contain_text("batch")
    expect(fitted).not_to_contain_text("バッチ")
    expect(page.locator("#plan-target input")).to_have_value("This machine")
    _switch(page, "日本語")
    expect(summary).to_contain_text("プロンプトのトークン数")
    expect(fitted).to_contain_text("バッチ")
    expect(page.locator("#plan-target input")).to_have_value("このマシン")

    code, left = _code_words(), {}
    for tab in TABS:
        page.get_by_role("tab", name=tab).click()
        panel = page.locator(".tabitem:visible").first
        expect(panel).to_be_visible()
        for closed in panel.locator("button.label-wrap:not(.open)").all():
            if closed.is_visible():
                closed.click()
        if tab == "チャット":  # the GRPO run's final model, by its label
            page.locator("#chat-model input").click()
            page.get_by_role("option", name=re.compile(f"^GRPO · 実行 {sft.id}.*最終モデル")) \
                .first.click()
            expect(page.locator("#chat-latest")).to_contain_text(f"GRPO · 実行 {sft.id}")
        if tab == "エクスポート":
            page.locator("#export-run input").click()
            page.get_by_role("option", name=re.compile("^GRPO · 実行")).first.click()
        text = re.sub(r"\b\w+:<[^>]*>", " ", panel.evaluate(SHOWN))  # run:<run id>
        for name in AS_WRITTEN:  # licences' names (a listed model's), as written
            text = text.replace(name, " ")
        words = {w for w in english_left(text) if w not in code}
        words |= set(re.findall(r"i18n\{[^}]*\}", text))  # a key shown as its raw marker
        if words:
            left[tab] = sorted(words)
    assert not left, left
    # Gradio's own words: no key shown for a word it lacks, its counters not shown.
    announced = page.locator(".sr-only[role=status]").all_inner_texts()
    assert not [t for t in announced if "common." in t or english_left(t)], announced
    hidden = page.evaluate("""() => {
      const tracker = document.querySelector('[data-testid="status-tracker"]');
      const counter = document.createElement('div');
      counter.className = 'progress-text';
      counter.textContent = 'processing | 2.7/20.8s';
      tracker.appendChild(counter);
      const shown = getComputedStyle(counter).display;
      counter.remove();
      return shown;
    }""")
    assert hidden == "none"
    page.get_by_role("tab", name="学習").click()
    field(page, "モデル")  # (the Train tab back, as the other tests expect it)
