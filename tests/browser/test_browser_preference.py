"""A real browser (Debian's Chromium through Playwright) takes a model through SFT and then
DPO from the page: a short LoRA run on the demo set, "Continue with preference tuning"
fills in the DPO run (model folder, stage, preference demo set, LoRA, learning rate) and
the panels show DPO's settings only; Start, and the reward plots show the run's rewards."""
import re

from tests.conftest import HANG, HANG_MS, newest_ended, open_panels, start_refused, wait_for
from tests.conftest import field as _field
from tests.conftest import set_field as _set


def test_sft_then_dpo_from_the_page(page, live_app, tiny_model_dir, tmp_path):
    from playwright.sync_api import expect
    manager = live_app[1]
    open_panels(page)
    expect(page.locator("#cfg-packing")).to_be_visible()
    expect(page.locator("#cfg-beta")).to_be_hidden()  # sft: no preference settings
    _set(page, "Model", tiny_model_dir)
    _set(page, "Max steps", 3)
    _set(page, "Batch size per device", 2)
    _set(page, "Gradient accumulation steps", 1)
    _set(page, "Max length (tokens)", 64)
    _set(page, "Sample every N steps", 2)
    _set(page, "Sample length (tokens)", 8)
    _field(page, "Use LoRA").first.check()
    page.get_by_role("button", name="Start").click()
    sft = wait_for(lambda: newest_ended(manager, 1), timeout=HANG)
    assert sft.state == "done", sft.error
    expect(page.locator("#run-status")).to_contain_text(f"Run {sft.id}: done", timeout=HANG_MS)

    follow = page.locator("#continue-preference")
    expect(follow).to_be_visible(timeout=HANG_MS)
    follow.click()
    notice = page.locator("#start-notice")
    expect(notice).to_contain_text(f"Filled in a DPO run after run {sft.id}")
    model_dir = f"{sft.dir}/model"
    expect(page.locator("#cfg-model_name_or_path input")).to_have_value(model_dir)
    expect(page.locator("#cfg-stage input")).to_have_value("dpo")
    expect(page.locator("#cfg-dataset_name input")).to_have_value(
        "demo-preference")
    expect(page.locator("#cfg-learning_rate").get_by_role("textbox")).to_have_value("5e-05")
    expect(page.locator("#cfg-use_peft input[type=checkbox]")).to_be_checked()
    expect(page.locator("#cfg-max_steps input").first).to_have_value("3")  # kept
    # The panels show DPO's settings: the preference panel, not the SFT-only ones.
    open_panels(page)  # the preference panel, shown now
    expect(page.locator("#cfg-beta")).to_be_visible()
    for name in ("packing", "dataset_format", "neftune_noise_alpha"):
        expect(page.locator(f"#cfg-{name}")).to_be_hidden()
    for name in ("time_budget_minutes", "eval_fraction"):  # every stage has them
        expect(page.locator(f"#cfg-{name}")).to_be_visible()
    page.screenshot(path=str(tmp_path / "continue.png"), full_page=True)

    page.get_by_role("button", name="Start").click()
    dpo = wait_for(lambda: newest_ended(manager, 2) or start_refused(notice), timeout=HANG)
    assert not isinstance(dpo, str), dpo  # the page refused to start it: why
    assert dpo.state == "done", dpo.error
    assert dpo.config.stage == "dpo" and dpo.config.model_name_or_path == model_dir
    assert any("rewards/margins" in m for m in dpo.metrics)
    expect(page.locator("#run-status")).to_contain_text(f"Run {dpo.id}: done", timeout=HANG_MS)
    rewards = page.locator("#reward-plot")
    expect(rewards).to_be_visible()
    for series in ("chosen", "rejected", "margin"):  # the legend: drawn with data
        expect(rewards).to_contain_text(series)
    expect(page.locator("#accuracy-plot")).to_be_visible()
    expect(page.locator("#stage-plot-notes")).to_contain_text("jumps to 1")  # what it means
    expect(page.locator("#run-progress")).to_contain_text("Step 3/3")
    expect(follow).to_have_text("Continue with GRPO (rewards)")  # what follows DPO
    assert re.search(r"loss", page.locator("#run-log textarea").input_value())
    page.screenshot(path=str(tmp_path / "dpo.png"), full_page=True)
    expect(page.locator("#samples")).to_contain_text("step")  # the samples of both runs
    assert {row["step"] for row in dpo.samples}, "the DPO run sampled"
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        out = {part: page.evaluate(IN_SIGHT, part) for part in RUN_VIEW}
        page.screenshot(path=str(tmp_path / f"run-view-{width}.png"))
        assert {part: v for part, v in out.items() if v != "ok"} == {}, (width, height)
        # Start and the progress bar stay in view down to the page's end (pinned on a phone).
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        for bar in ("#run-progress", "#run-bar button"):
            box = page.locator(bar).first.bounding_box()
            assert 0 <= box["y"] and box["y"] + box["height"] <= height, (width, bar, box)


# Each part of the run view, found by a person who scrolls the window alone: inside the
# window's width, and the point at its centre is the part's own (not clipped, not under
# another element).
RUN_VIEW = ("#run-progress", "#plan-summary", "#run-status", "#loss-plot", "#reward-plot",
            "#accuracy-plot", "#lr-plot", "#grad-plot", "#stage-plot-notes", "#samples",
            "#run-log")
VIEWPORTS = ((1280, 720), (1366, 768), (1920, 1080), (390, 844))
IN_SIGHT = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return 'missing';
  let box = el.getBoundingClientRect();
  if (!box.width || !box.height) return 'not shown';
  window.scrollBy(0, box.top - window.innerHeight * 0.4);  // the window, no other box
  box = el.getBoundingClientRect();
  if (box.left < 0 || box.right > window.innerWidth + 1)
    return `outside the window's width: x ${Math.round(box.left)}-${Math.round(box.right)}`;
  // The centre of what a window can show of it (a part taller than half the window: of
  // its first half-window).
  const x = box.left + box.width / 2, y = box.top + Math.min(box.height,
    window.innerHeight / 2) / 2;
  const hit = document.elementFromPoint(x, y);
  return hit && (el.contains(hit) || hit.contains(el)) ? 'ok' :
    `at its centre (${Math.round(x)}, ${Math.round(y)}): ` +
    (hit ? hit.outerHTML.slice(0, 80) : 'nothing');
}"""
