"""Planning a real model for a GPU in a real browser: pick Llama-3.1-8B-Instruct from the
model list and plan for a T4 (16 GB); the page says full fine-tuning will not fit and
QLoRA fits at a stated batch and accumulation; Fit applies it (the fields change); a
typed folder is still taken as the model."""
import re

from playwright.sync_api import expect

from sft_ui.config import RunConfig
from sft_ui.plan.planner import fit_to_target
from tests.conftest import HANG_MS, field, open_panels

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"


def _choose(page, label, typed, option):
    box = field(page, label).first
    box.click()
    box.fill(typed)
    page.get_by_role("option", name=re.compile(re.escape(option))).first.click()


def test_plan_llama_8b_for_a_t4_and_fit_it(browser, live_app):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.set_default_timeout(HANG_MS)
    page.goto(live_app[0])
    page.locator("#plan-summary").get_by_text("Plan:").wait_for()
    expected, _ = fit_to_target(RunConfig(model_name_or_path=LLAMA_8B), "t4-small")
    setup = (f"batch {expected.per_device_train_batch_size} x accumulation "
             f"{expected.gradient_accumulation_steps}")

    # The list shows size, licence and gating.
    _choose(page, "Model", "Llama-3.1-8B", "Llama-3.1-8B-Instruct · 8.0B · Llama 3.1 "
                                           "Community License · gated")
    open_panels(page)
    _choose(page, "Plan for", "T4 small", "Nvidia T4 small (16 GB)")
    plan = page.locator("#plan")
    expect(plan).to_contain_text("on Nvidia T4 small (16 GB)")
    full = plan.locator("tr", has_text="full fine-tuning")
    expect(full).to_contain_text("will not fit")
    qlora = plan.locator("tr", has_text="QLoRA (4-bit base)")
    expect(qlora).to_contain_text("fits")
    expect(qlora).to_contain_text(setup)
    expect(plan).to_contain_text(f"Fit applies QLoRA (4-bit base): {setup}")
    expect(plan).to_contain_text("precision: fp16")  # a T4 has no bf16
    expect(plan).to_contain_text("optimizer: paged 8-bit AdamW")
    expect(page.locator("#plan-summary")).to_contain_text("on Nvidia T4 small (16 GB)")
    print(f"\nPlan for a T4: {qlora.inner_text()!r}")

    # Fit applies QLoRA: LoRA and the 4-bit base on, the batch and accumulation set.
    fit = page.get_by_role("button", name="Fit to this GPU")
    fit.click()
    expect(page.locator("#plan-notice")).to_contain_text("QLoRA (4-bit base) on Nvidia T4")
    expect(field(page, "Use LoRA").first).to_be_checked()
    expect(field(page, "Load the base in 4 bits (QLoRA)").first).to_be_checked()
    expect(field(page, "Activation checkpointing").first).to_be_checked(
        checked=expected.activation_checkpointing)
    expect(field(page, "Batch size per device").first).to_have_value(
        str(expected.per_device_train_batch_size))
    expect(field(page, "Gradient accumulation steps").first).to_have_value(
        str(expected.gradient_accumulation_steps))
    # The fitted settings fit the T4: the one-line plan says so.
    expect(page.locator("#plan-summary")).to_contain_text(re.compile(r": (fits|tight)"))

    # Back to this machine: the button says so again.
    _choose(page, "Plan for", "This machine", "This machine")
    expect(page.get_by_role("button", name="Fit to this machine")).to_be_visible()
    expect(page.locator("#plan-summary")).not_to_contain_text("on ")
    page.close()


def test_a_typed_folder_is_still_the_model(browser, live_app, tiny_model_dir):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.set_default_timeout(HANG_MS)
    page.goto(live_app[0])
    page.locator("#plan-summary").get_by_text("Plan:").wait_for()
    box = field(page, "Model").first
    box.fill(tiny_model_dir)
    box.press("Tab")
    expect(box).to_have_value(tiny_model_dir)
    # The plan is the tiny model's, read from the folder's config.json.
    from sft_ui.plan.shape import model_shape
    from sft_ui.ui.plan_text import _count
    size = _count(model_shape(tiny_model_dir).params())
    open_panels(page)
    expect(page.locator("#plan")).to_contain_text(f"of {size} parameters trained")
    page.close()
