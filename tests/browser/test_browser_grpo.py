"""A real browser (Debian's Chromium through Playwright) trains GRPO from the page: the
stage grpo switches the data to the built-in arithmetic and shows the Rewards panel, a
reward function written in the page is tested (each answer's scores in a table) and
trained with, and the live view shows the rewards by function and the answers with their
scores. The whole path too: SFT on the demo set, Continue with GRPO, a written reward
tested and trained with, then a chat with the result."""
from tests.conftest import (
    HANG,
    HANG_MS,
    fresh,
    newest_ended,
    open_panels,
    start_refused,
    wait_for,
)
from tests.conftest import field as _field
from tests.conftest import set_field as _set

WRITTEN = ("def short_answer(completions, **kwargs):\n"
           "    texts = [c if isinstance(c, str) else c[0]['content'] for c in completions]\n"
           "    return [float(len(t) < 20) for t in texts]\n")


def _start_and_finish(page, manager, count: int):
    """Start pressed; the run that ends as the manager's `count`th, done."""
    page.get_by_role("button", name="Start").click()
    notice = page.locator("#start-notice")
    run = wait_for(lambda: newest_ended(manager, count) or start_refused(notice),
                   timeout=HANG)
    assert not isinstance(run, str), run
    assert run.state == "done", run.error
    return run


def test_grpo_with_a_written_reward_from_the_page(page, live_app, tiny_model_dir, tmp_path):
    from playwright.sync_api import expect
    manager = live_app[1]
    open_panels(page)
    _set(page, "Model", tiny_model_dir)
    page.locator("#cfg-stage input").click()
    page.get_by_role("option", name="grpo").click()
    dataset = page.locator("#cfg-dataset_name input")
    expect(dataset).to_have_value("demo-grpo")  # the stage's built-in set
    open_panels(page)  # the Rewards panel, shown now
    expect(page.locator("#cfg-num_generations")).to_be_visible()
    expect(page.locator("#cfg-packing")).to_be_hidden()
    _set(page, "Max steps", 2)
    _set(page, "Batch size per device", 2)
    _set(page, "Gradient accumulation steps", 1)
    _set(page, "Answers per prompt", 2)
    _set(page, "Max completion length (tokens)", 6)
    page.locator("#cfg-rewards input").click()
    page.get_by_role("option", name="written").click()
    page.keyboard.press("Escape")
    page.locator("#cfg-reward_code .cm-content").click()
    page.keyboard.insert_text(WRITTEN)

    page.locator("#test-rewards").click()
    table = page.locator("#reward-table")
    expect(table).to_contain_text("short_answer", timeout=HANG_MS)  # a column per function
    expect(table).to_contain_text("json_answer")
    expect(page.locator("#reward-notes")).to_contain_text("answers scored")
    page.screenshot(path=str(tmp_path / "test-rewards.png"), full_page=True)

    page.get_by_role("button", name="Start").click()
    notice = page.locator("#start-notice")
    run = wait_for(lambda: newest_ended(manager, 1) or start_refused(notice), timeout=HANG)
    assert not isinstance(run, str), run
    assert run.state == "done", run.error
    assert run.config.rewards == ["json_answer", "exact_match", "written"]
    assert any("rewards/short_answer/mean" in m for m in run.metrics)
    expect(page.locator("#run-status")).to_contain_text(f"Run {run.id}: done", timeout=HANG_MS)
    rewards = page.locator("#reward-plot")
    expect(rewards).to_be_visible()
    for series in ("reward", "short_answer", "json_answer"):  # the legend: drawn with data
        expect(rewards).to_contain_text(series)
    shares = page.locator("#accuracy-plot")
    expect(shares).to_contain_text("no spread")
    # Its value axis says what the series are (shares, not an accuracy), and its step axis
    # (steps 1 and 2) has whole steps, each once: not "1 2 2".
    title = shares.locator(".role-axis[aria-label^='Y-axis'] .role-axis-title")
    expect(title).to_have_text("share")  # (it was "accuracy")
    ticks = shares.locator(".role-axis[aria-label^='X-axis'] .role-axis-label text")
    expect(ticks.first).to_be_visible()
    steps = ticks.all_text_contents()
    assert all(t.isdigit() for t in steps) and len(set(steps)) == len(steps) > 1, steps
    expect(page.locator("#stage-plot-notes")).to_contain_text("normal in GRPO")
    samples = page.locator("#samples")
    expect(samples).to_contain_text("short_answer")  # the answers with their scores
    header = samples.get_by_role("columnheader", name="reward").first
    box, table = header.bounding_box(), samples.bounding_box()
    assert box["x"] + box["width"] <= table["x"] + table["width"] + 1, (box, table)  # in view
    page.screenshot(path=str(tmp_path / "grpo.png"), full_page=True)


def test_sft_then_continue_with_grpo_then_chat(page, live_app, tiny_model_dir, tmp_path):
    from playwright.sync_api import expect
    manager = live_app[1]
    before = len(manager.all_runs())
    fresh(page)  # the stage and data of the test before are not kept
    open_panels(page)
    page.locator("#cfg-stage input").click()
    page.get_by_role("option", name="sft", exact=True).click()
    expect(page.locator("#cfg-dataset_name input")).to_have_value("demo")
    _set(page, "Model", tiny_model_dir)
    for label, value in {"Max steps": 2, "Batch size per device": 2,
                         "Gradient accumulation steps": 1, "Max length (tokens)": 64,
                         "Sample every N steps": 0}.items():
        _set(page, label, value)
    _field(page, "Use LoRA").first.check()
    notice = page.locator("#start-notice")
    sft = _start_and_finish(page, manager, before + 1)
    expect(page.locator("#run-status")).to_contain_text(f"Run {sft.id}: done", timeout=HANG_MS)

    also = page.get_by_role("button", name="Continue with GRPO (rewards)")
    expect(also).to_be_visible(timeout=HANG_MS)
    also.click()
    expect(notice).to_contain_text(f"Filled in a GRPO run after run {sft.id}")
    expect(page.locator("#cfg-model_name_or_path input")).to_have_value(f"{sft.dir}/model")
    expect(page.locator("#cfg-stage input")).to_have_value("grpo")
    expect(page.locator("#cfg-dataset_name input")).to_have_value("demo-grpo")
    # 4 answers per prompt: the batch of 2 x 1 became 2 x 2, so that the run starts.
    expect(notice).to_contain_text("Gradient accumulation: 2 (was 1)")
    open_panels(page)  # the Rewards panel, shown now
    _set(page, "Max completion length (tokens)", 6)
    page.locator("#cfg-rewards input").click()
    page.get_by_role("option", name="written").click()
    page.keyboard.press("Escape")
    code = page.locator("#cfg-reward_code .cm-content")
    code.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(WRITTEN)
    page.locator("#test-rewards").click()
    expect(page.locator("#reward-table")).to_contain_text("short_answer", timeout=HANG_MS)

    page.get_by_role("button", name="Start").click()
    grpo = wait_for(lambda: newest_ended(manager, before + 2) or start_refused(notice),
                    timeout=HANG)
    assert not isinstance(grpo, str), grpo
    assert grpo.state == "done", grpo.error
    assert grpo.config.model_name_or_path == f"{sft.dir}/model"
    assert "written" in grpo.config.rewards
    assert any("rewards/short_answer/mean" in m for m in grpo.metrics)
    expect(page.locator("#run-status")).to_contain_text(f"Run {grpo.id}: done",
                                                        timeout=HANG_MS)
    expect(page.locator("#reward-plot")).to_contain_text("short_answer")
    expect(page.locator("#samples")).to_contain_text("short_answer")  # scored answers

    page.get_by_role("tab", name="Chat").click()
    expect(page.locator("#chat-latest")).to_contain_text("GRPO", timeout=HANG_MS)
    _field(page, "Message").fill("What is 2 + 3?")
    page.get_by_role("button", name="Send").click()
    bot = page.locator(".message.bot, [data-testid='bot']").last
    expect(bot).to_be_visible(timeout=HANG_MS)
    wait_for(lambda: bot.inner_text().strip(), timeout=HANG)
    assert manager.latest_finished().id == grpo.id  # the chat's model: the GRPO run's
    page.get_by_role("tab", name="Train").click()


def test_grpo_on_a_text_prompt_file_asks_through_the_chat_template(page, live_app,
                                                                   tiny_model_dir, tmp_path):
    """A person's own file of text prompts: the preview shows each prompt in the chat
    template as the user's turn, Test rewards shows that text and the share of groups
    whose rewards differ, and the run trains on the prompts in that form."""
    import json

    from playwright.sync_api import expect
    manager = live_app[1]
    before = len(manager.all_runs())
    fresh(page)
    open_panels(page)
    _set(page, "Model", tiny_model_dir)
    page.locator("#cfg-stage input").click()
    page.get_by_role("option", name="grpo").click()
    own = tmp_path / "own.jsonl"
    own.write_text("".join(json.dumps({"prompt": f"What is {a} plus 2? Reply as ANSWER: <n>.",
                                       "answer": str(a + 2)}) + "\n" for a in range(8)))
    page.locator("#data-upload input[type=file]").set_input_files(str(own))
    summary = page.locator("#data-summary")
    expect(summary).to_contain_text("as the user's turn of its chat template",
                                    timeout=HANG_MS)
    expect(page.locator("#data-preview")).to_contain_text(
        "<|im_start|>user\nWhat is 0 plus 2?")
    open_panels(page)
    for label, value in {"Max steps": 1, "Batch size per device": 2,
                         "Gradient accumulation steps": 1, "Answers per prompt": 2,
                         "Max completion length (tokens)": 6}.items():
        _set(page, label, value)
    page.locator("#cfg-rewards input").click()
    page.get_by_role("option", name="length_near").click()
    page.keyboard.press("Escape")
    page.locator("#test-rewards").click()
    notes = page.locator("#reward-notes")
    expect(notes).to_contain_text("would hold different rewards", timeout=HANG_MS)
    expect(notes).to_contain_text("<|im_start|>user")  # the text the model reads
    expect(notes).to_contain_text("as the user's turn of its chat template")

    run = _start_and_finish(page, manager, before + 1)
    log = (run.dir / "train.log").read_text()
    assert "Rewards tried before training" in log and "conversational form" in log
    expect(page.locator("#samples")).to_contain_text("What is", timeout=HANG_MS)
