"""The page's layout and events as built, without a browser: long names in a row of their
own, one loading status per event with many outputs, and no trigger that sets off two
events waiting for their last; a new session that copies no component's configuration."""
import collections

import pytest


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    return build_app(RunManager(tmp_path_factory.mktemp("runs")))


def test_long_names_get_a_row_of_their_own():
    """The model and the dataset hold long names (a Hub id, a path): each alone in its
    row, so the whole name shows; the other settings stay two to a row, in order."""
    from sft_ui.ui.train_tab import _rows
    assert _rows(["model_name_or_path", "stage", "dataset_name", "time_budget_minutes"]) == \
        [["model_name_or_path"], ["stage", "time_budget_minutes"], ["dataset_name"]]
    assert _rows(["a", "b", "c"]) == [["a", "b"], ["c"]]


def test_events_with_many_outputs_show_their_status_on_one_component(app):
    """Each message of any event has the page redraw the loading status of every component
    an event showed one on since the page opened: an event whose outputs are the settings
    (Continue, a preset, Fit's Apply, a stage, a YAML file) shows it on one component, or
    every look at a training run redraws them all (following a run cost 0.8x its speed)."""
    many = [d for d in app.config["dependencies"] if len(d["outputs"]) > 10]
    assert len(many) >= 7  # preset, stage, Apply, both Continues, YAML load, a language switch
    assert [(d["api_name"], d["targets"]) for d in many if not d["show_progress_on"]] == []
    assert all(len(d["show_progress_on"]) == 1 for d in many)


def test_no_trigger_sets_off_two_events_that_wait_for_their_last(app):
    """Gradio's page runs an "always_last" event again, once it ends, by dispatching the
    trigger it waited on anew: every event of that trigger runs again. Two such events on
    one trigger, one waiting while the other runs, set each other off without end (a page
    whose kept settings were put back sent 8 events a second for minutes). So each
    trigger has at most one; the others run on each trigger ("multiple", in order: one
    at a time per event)."""
    waiting = collections.defaultdict(list)
    for d in app.config["dependencies"]:
        if d["trigger_mode"] == "always_last":
            for target in d["targets"]:
                waiting[tuple(target)].append(d["id"])
    assert len(waiting) > 50  # (the settings' changes)
    assert {t: ids for t, ids in waiting.items() if len(ids) > 1} == {}


def test_a_new_session_copies_no_components_configuration(app):
    """Gradio builds every component's configuration for each new session (58 ms and 0.8 MB
    for this page; a call over plain HTTP is a new session): the studio's sessions
    (ui/studio.py LightSession) start without it, and hold what a session sets."""
    import gradio as gr

    from sft_ui.ui.studio import LightSession
    session = LightSession(app)
    assert session.config_values == {} and len(app.blocks) > 100
    state = next(b for b in app.blocks.values() if isinstance(b, gr.State))
    assert session[state._id] == state.value  # (its default, as Gradio's session gives)
    session[state._id] = "picked"
    assert session[state._id] == "picked" and state._id in session.config_values
