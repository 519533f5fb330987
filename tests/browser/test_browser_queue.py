"""The run queue and a sweep in a real browser: while a run trains, Add to queue twice; the
queue shows both in order with what differs; the second moved sooner starts first when the
training run is stopped, then the other, each to its end. A small sweep of two trials, its
eval file uploaded in the page, is ranked on held-out rows, and Use the best puts its
settings in the page."""
import re

from tests.conftest import HANG, HANG_MS, field, wait_for
from tests.conftest import set_field as _set


def test_queue_two_runs_while_one_trains(page, live_app, tiny_model_dir, tmp_path):
    from playwright.sync_api import expect
    _set(page, "Model", tiny_model_dir)
    _set(page, "Max length (tokens)", 64)
    _set(page, "Sample every N steps", 0)
    _set(page, "Max steps", 100000)
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#run-status")).to_contain_text("running", timeout=HANG_MS)
    queue = page.locator("#queue-panel")
    expect(queue).to_be_hidden()
    _set(page, "Max steps", 3)
    for rate in ("0.0002", "0.0003"):
        _set(page, "Learning rate", rate)
        page.get_by_role("button", name="Add to queue").click()
        expect(page.locator("#start-notice")).to_contain_text(
            re.compile(r"Queued as q\d+, place \d"))
    table = page.locator("#queue-table")
    expect(queue).to_be_visible()
    expect(table).to_contain_text("Learning rate 0.0003")  # (settings by their labels)
    expect(table).to_contain_text("Max steps 3")

    def places():  # where each queued run's row is in the table
        text = table.inner_text()
        return text.find("Learning rate 0.0002"), text.find("Learning rate 0.0003")
    assert 0 <= places()[0] < places()[1]
    page.locator("#queue-chosen input").click()
    page.get_by_role("option", name="q2").click()
    page.get_by_role("button", name="Sooner").click()
    wait_for(lambda: 0 <= places()[1] < places()[0], timeout=HANG)
    page.screenshot(path=str(tmp_path / "queue.png"), full_page=True)
    page.get_by_role("button", name="Stop").click()
    # the queue goes on by itself: q2, then q1, each to its end
    wait_for(lambda: table.inner_text().count("done") == 2, timeout=HANG)
    manager = live_app[1]
    finished = [r for r in manager.all_runs() if r.state == "done"]
    assert sorted(r.config.learning_rate for r in finished) == [0.0002, 0.0003]
    first, second = sorted(finished, key=lambda r: r.created)
    assert first.config.learning_rate == 0.0003 and second.step == 3


def test_a_small_sweep_ranks_its_trials_and_uses_the_best(page, live_app, tiny_model_dir,
                                                          tmp_path):
    from playwright.sync_api import expect
    _set(page, "Model", tiny_model_dir)
    _set(page, "Max length (tokens)", 64)
    _set(page, "Sample every N steps", 0)
    _set(page, "Max steps", 3)
    _set(page, "Learning rate", "0.0005")
    page.get_by_text("Sweep: try several settings, keep the best").click()
    page.get_by_label("Settings to vary").fill("learning_rate: 0.001, 0.01")
    _set(page, "Time for the whole sweep (minutes)", 4)
    # an eval file uploaded in the page (no one on a Space can type a server's path) is
    # kept in the uploads folder, its path in the box; the sweep is then judged on it
    held = tmp_path / "held-out.jsonl"
    held.write_text("".join('{"prompt": "Say %d.", "completion": "%d"}\n' % (i, i)
                            for i in range(6)))
    with page.expect_file_chooser() as chooser:
        page.locator("#sweep-eval-upload").click()
    chooser.value.set_files(str(held))
    box = page.locator("#sweep-eval-file").locator("input, textarea").first
    wait_for(lambda: box.input_value().endswith("held-out.jsonl"), timeout=HANG)
    assert "uploads" in box.input_value() and box.input_value() != str(held)
    box.fill("")  # (judged by eval loss here: the file is not needed)
    page.locator("#sweep-start").click()
    notice, table = page.locator("#sweep-notice"), page.locator("#sweep-table")
    expect(notice).to_contain_text(re.compile(r"Sweep sweep-\S+: done, 2 of 2 trials"),
                                   timeout=HANG_MS)
    expect(notice).to_contain_text("Best: trial")
    manager = live_app[1]
    found = manager.root / "sweeps"
    sweep = sorted(found.glob("sweep-*.json"))[-1].read_text()
    assert '"score": null' not in sweep  # both trials were judged on held-out rows
    expect(table).to_contain_text("Learning rate 0.01")
    expect(table).to_contain_text("Learning rate 0.001")
    page.screenshot(path=str(tmp_path / "sweep.png"), full_page=True)
    ranked = re.findall(r"Learning rate\s+([\d.e-]+)", table.inner_text())
    assert len(ranked) == 2  # the best first
    page.locator("#sweep-best").click()
    expect(notice).to_contain_text("The page holds the best trial's settings")
    best = ranked[0]
    box = field(page, "Learning rate").first
    wait_for(lambda: float(box.input_value()) == float(best), timeout=HANG)
