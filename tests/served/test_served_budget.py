"""The served app (`python -m sft_ui serve`: runs train in its warm training process) with
a time budget set in a real page: the app resolves the budget once (settings chosen and
written into the run folder), hands the deadline to the training process, and the run
that the person made long ends in time with its model, the page showing its end; a run
whose length is left to the budget sets it on its first steps."""
import json
from contextlib import contextmanager

from sft_ui.config import RunConfig
from tests.conftest import HANG, HANG_MS, serve, set_field, wait_for


@contextmanager
def _budgeted_run(browser, tmp_path, tiny_cfg, minutes: float, fields: dict):
    """Start a run of the tiny model with a time budget from a page of the served app;
    yield (page, run folder, its state.json once ended)."""
    runs = tmp_path / "runs"
    with serve(runs, tmp_path / "app.log") as (proc, client):
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.set_default_timeout(HANG_MS)
        page.goto(client.src)
        set_field(page, "Model", tiny_cfg["model_name_or_path"])
        set_field(page, "Time budget (minutes)", minutes)
        for label, value in {"Batch size per device": 2, "Max length (tokens)": 64,
                             "Sample every N steps": 0, **fields}.items():
            set_field(page, label, value)
        page.get_by_role("button", name="Start").click()
        folder = wait_for(lambda: next(iter(runs.iterdir()), None) if runs.exists() else None,
                          timeout=HANG)

        def ended():  # the folder comes before its first state.json
            if not (folder / "state.json").exists():
                return None
            state = json.loads((folder / "state.json").read_text())
            return state if state["state"] in ("done", "failed", "stopped") else None
        state = wait_for(ended, timeout=HANG)
        assert state["state"] == "done", state["error"]
        yield page, folder, state
        page.close()


def test_a_budgeted_run_from_a_page_of_the_served_app(browser, tmp_path, tiny_cfg):
    from playwright.sync_api import expect
    with _budgeted_run(browser, tmp_path, tiny_cfg, 0.25, {"Max steps": 100_000}) as \
            (page, folder, state):
        assert 1 <= state["step"] < 100_000  # the deadline ended it, not the length
        log = (folder / "train.log").read_text()
        # (or the plateau of the rows the budget held out, whichever came first)
        assert "training ends by" in log and ("Time budget: step" in log or
                                              "Held-out rows show no more gain" in log)
        saved = RunConfig.from_yaml(folder / "config.yaml")
        assert state["budget"] and saved.use_peft  # chosen by the app, kept in the folder
        assert saved.max_steps == 100_000  # the person's length stays theirs
        assert (folder / "model").is_dir()
        expect(page.locator("#run-status")).to_contain_text("done", timeout=HANG_MS)


def test_the_served_app_sets_a_budgeted_length_on_the_first_steps(browser, tmp_path,
                                                                 tiny_cfg):
    """The length left to the budget: the warm training process sets it on its first
    steps (the app hands it that task with the deadline), and the run's settings, bar and
    sentence all say the steps it set. (A minute, of which the model's load takes a part:
    the tiny model's 3 epochs, the most a budget trains, end sooner.)"""
    from playwright.sync_api import expect
    with _budgeted_run(browser, tmp_path, tiny_cfg, 1, {}) as (page, folder, state):
        steps = RunConfig.from_yaml(folder / "config.yaml").max_steps
        assert f"Time budget: {steps} steps fit, at " in (folder / "train.log").read_text()
        # (a run its held-out rows' plateau ended brought its rate down to 0 over a few
        # more steps, and ended there: its length is theirs, and its last sentence says so)
        length = state["max_steps"]
        cooled = "came down to 0" in state["budget"][-1]
        assert length == steps or (cooled and length < steps), (length, steps, state["budget"])
        assert 1 <= state["step"] <= length
        fits = [r for r in state["budget"] if r.startswith(f"{steps:,} steps fit 1 min")]
        assert fits, state["budget"]  # (then, last, how its held-out rows ended it)
        expect(page.locator("#run-status")).to_contain_text("done", timeout=HANG_MS)
        expect(page.locator("#run-progress")).to_contain_text(f"/{length} ", timeout=HANG_MS)
