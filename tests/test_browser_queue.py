"""The run queue in a real browser: while a run trains, Add to queue twice; the queue shows
both in order with what differs; the second moved sooner starts first when the training
run is stopped, then the other, each to its end."""
import re

from tests.conftest import HANG, HANG_MS, wait_for
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
    expect(table).to_contain_text("learning_rate=0.0003")
    expect(table).to_contain_text("max_steps=3")

    def places():  # where each queued run's row is in the table
        text = table.inner_text()
        return text.find("learning_rate=0.0002"), text.find("learning_rate=0.0003")
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
