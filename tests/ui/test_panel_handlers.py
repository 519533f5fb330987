"""The Train tab's handlers called as functions, without building the page: the run
controls (ui/run_controls.py RunHandlers: Start's refusal kept with its kind, asked again
as settings change, Stop and Resume with nothing to act on, a page opened on a server with
no runs), the sweep panel (ui/sweep_handlers.py SweepHandlers) and the plan panel
(ui/plan_panel.py PlanHandlers), the Runs tab (ui/runs_tab.py RunsHandlers) and the
Evaluate tab (ui/evaluate_tab.py EvaluateHandlers), the data panel (ui/data_panel.py
DataHandlers) and the queue panel (ui/queue_panel.py QueueHandlers)."""
import gradio as gr

from sft_ui.access import Access, Who
from sft_ui.actions import Actions
from sft_ui.runs import RunManager
from sft_ui.ui import build_app
from sft_ui.ui.api import ENDPOINTS
from sft_ui.ui.data_panel import DataHandlers
from sft_ui.ui.evaluate_tab import EvaluateHandlers
from sft_ui.ui.lang import kept
from sft_ui.ui.plan_panel import FIT_FIELDS, PlanHandlers
from sft_ui.ui.plan_text import NO_PLAN
from sft_ui.ui.queue_panel import QueueHandlers, queued_at
from sft_ui.ui.run_controls import REFUSED, RunHandlers
from sft_ui.ui.runs_tab import RunsHandlers
from sft_ui.ui.sweep_handlers import FORM, SHOWN, SweepHandlers


def handlers(tmp_path):
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    return RunHandlers(actions, ["learning_rate", "max_steps"], rest=7)


def skipped(value) -> bool:
    return isinstance(value, dict) and value.get("__type__") == "update" and len(value) == 1


def test_start_refused_is_kept_by_kind_and_goes_when_its_cause_does(tmp_path):
    h = handlers(tmp_path)
    run_id, notice, timer, plan_line = h.on_start(None, "", "", "-1", "5")
    assert skipped(run_id) and skipped(timer)
    parts = kept(notice)
    assert [p["kind"] for p in parts] == [REFUSED]
    assert "learning rate" in str(parts[0]).lower()
    # the same refusal asked again says nothing new; settings fixed take it away
    assert skipped(h.recheck(None, notice, "", "-1", "5"))
    assert h.recheck(None, notice, "", "0.0002", "5") == ""
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_stop_resume_and_a_page_opened_with_no_run(tmp_path):
    h = handlers(tmp_path)
    assert "No run is training" in str(h.on_stop(None, ""))
    run_id, notice, timer = h.on_resume(None, "")
    assert skipped(run_id) and skipped(timer) and "resume" in str(notice).lower()
    assert all(skipped(v) for v in h.opened(""))
    assert skipped(h.wake())
    timer = h.on_tick("", None, None, None)[4]  # no run: the timer stops
    assert isinstance(timer, gr.Timer) and timer.active is False
    assert len(h.on_pulse("", None, None)) == 7


def test_sweep_handlers_refuse_a_bad_line_and_show_nothing_without_a_sweep(tmp_path):
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    h = SweepHandlers(actions, ["learning_rate", "stage"])
    box, chosen = h.on_add("learning_rate", "lora_r: 8, 16", "0.0003", "sft")
    assert box == "lora_r: 8, 16\nlearning_rate: 0.0001, 0.0003, 0.0009" and chosen is None
    said = h.on_start(None, "learning_rate 1e-4", "grid", 5, 0, "eval_loss", "", "",
                      "0.0003", "sft")
    assert len(said) == 1 + SHOWN and "Cannot start the sweep" in str(said[1])
    assert actions.sweep_ids(Who()) == []  # nothing started
    sweep_id, notice, *rest = h.opened(None, "")
    assert sweep_id == "" and notice == "" and len(rest) == SHOWN - 1 + FORM
    assert "No best trial yet" in str(h.on_best(None, "")[0])


def test_the_api_keeps_its_names_beside_the_pages_private_events(tmp_path):
    """A page's event is private (api_visibility) and takes its function's name; the
    API's endpoints keep theirs exactly (a private `compare` once made /compare
    /compare_1)."""
    app = build_app(RunManager(tmp_path / "runs"))
    public = {f.api_name for f in app.fns.values() if f.api_visibility == "public"}
    assert set(ENDPOINTS) <= public
    assert not {name for name in public if name.rstrip("0123456789").endswith("_")}


def test_plan_handlers_say_why_there_is_no_plan_and_what_fit_and_apply_cannot_do(tmp_path):
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    h = PlanHandlers(actions, ["learning_rate", "max_steps"])
    # a plan that cannot be made says why, with its kind, in both its texts
    details, line, plan = h.on_change(None, "-1", "5", "")
    assert plan is None and [p["kind"] for p in kept(line)] == [NO_PLAN]
    assert "learning rate" in str(details).lower()
    # while it says so, a setting the plan does not read asks again; a plan shown is left
    assert h.on_other(None, line, "-1", "5", "")[2] is None
    assert all(skipped(v) for v in h.on_other(None, "**Plan:** 5 steps", "-1", "5", ""))
    fitted = h.on_fit("-1", "5", "")
    assert len(fitted) == len(FIT_FIELDS) + 1 and all(skipped(v) for v in fitted[:-1])
    assert "Cannot fit" in str(fitted[-1])
    # no run ran out of memory: nothing to apply, every setting left
    applied = h.on_apply()
    assert all(skipped(v) for v in applied[:-1]) and len(applied) == 3
    assert "No suggestion to apply" in str(applied[-1])


def test_runs_handlers_ask_for_a_run_and_keep_only_runs_that_are_there(tmp_path):
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    h = RunsHandlers(actions)
    said, pending, yes, cancel = h.on_delete(None, "")
    assert "Choose a run to delete first" in said and pending == ""
    assert yes["visible"] is False and cancel["visible"] is False
    said, *rest = h.on_rename(None, "", "new name", [])
    assert "Choose a run to rename first" in said and all(skipped(v) for v in rest)
    said, pending, yes, _ = h.on_delete(None, "no-such-run")
    assert "Cannot delete" in said and pending == "" and yes["visible"] is False
    # a refresh drops the compared runs that are gone, and a picked run that is gone
    table, compare, target = h.refreshed(["gone-run"], "gone-run")
    assert compare["value"] == [] and target["value"] is None and table.empty
    assert "Nothing was deleted" in h.on_cancel()[0]


def test_evaluate_handlers_with_nothing_running_or_shown(tmp_path):
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    h = EvaluateHandlers(actions)
    assert "No evaluation is running" in h.on_stop(None)
    polled = h.poll("", "", "")  # no job: nothing drawn, the timer stops
    assert all(skipped(v) for v in polled[:-1]) and polled[-1].active is False
    assert all(skipped(v) for v in h.poll("no-such-job", "", "")[:-1])
    scores, tokens, answers = h.relabel("")  # the tables empty, in the page's language
    assert scores.empty and answers.empty
    test_set, notice = h.on_upload(None, None)  # an upload cleared: nothing changes
    assert skipped(test_set) and notice == ""
    started = h.on_start(None, "base", "base", "", "test", 0, 8)
    assert "Cannot evaluate" in started[1] and all(skipped(v) for v in started[2:])


def test_data_handlers_say_why_a_file_cannot_be_used_and_go_back(tmp_path):
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    h = DataHandlers(actions, ["dataset_name", "stage"])
    bad = tmp_path / "rows.exe"
    bad.write_bytes(b"\x00\x01")
    box, summary, examples, ok, before = h.on_upload(None, str(bad), "demo", "", "sft")
    assert box == before == "demo" and ok is False and examples == ""
    assert "Cannot use this file" in summary and "The dataset is back to demo" in summary
    assert h.on_clear("", "sft")[1:] == ("", "")  # the upload gone: the preview too
    said, shown = h.on_preview(None, str(tmp_path / "missing.jsonl"), "sft")
    assert "Cannot preview" in said and shown == ""
    assert all(skipped(v) for v in h.after_upload(None, False, "demo", "sft"))


def test_queue_handlers_find_add_to_queues_notice_by_its_message_not_its_words(tmp_path):
    from sft_ui.ui.lang import note
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    h = QueueHandlers(actions, ["learning_rate"])
    box, table, chosen = h.shown(None)
    assert box.visible is False and table.empty and chosen.value is None
    # the run the notice names has left the queue (started): the notice goes
    said = note(queued_at("q-1", 2))
    assert h.still_true(None, said) == ""
    # another notice, even one that reads alike, stays
    assert skipped(h.still_true(None, note("Queued as q-1, place 2.")))
    notice, *panel = h.on_add(None, "-1")
    assert "Cannot queue" in notice and len(panel) == 3
