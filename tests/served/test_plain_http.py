"""The API called over plain HTTP, as curl and scripts call it (Gradio's
/gradio_api/call/<name> and its event stream), where no client fills in what the caller
left out: a value left out takes its default, a value the endpoint needs is named, and
neither prints a traceback into the server's log."""
import httpx
from gradio import state_holder

from scripts.served import gradio_events
from sft_ui.ui.studio import LightSession


def called(url: str, name: str, data: list) -> tuple[str, object]:
    """(the last event, its data) of endpoint `name` asked with `data` over plain HTTP."""
    with httpx.Client(timeout=120) as web:
        return list(gradio_events(web, url, name, data))[-1]


def test_values_left_out_take_their_defaults_or_are_named(live_app, capfd):
    url = live_app[0]
    capfd.readouterr()  # (what came before)
    event, plan = called(url, "plan", [{"max_steps": 3}])  # target left out: this machine
    assert event == "complete" and plan[0]["effective_batch"] == 8
    assert called(url, "sweep", []) == ("complete", [None])  # sweep_id: your latest
    event, said = called(url, "stop_run", [])
    assert event == "error" and said["error"] == "run_id is missing: send it, as text."
    event, said = called(url, "rename_run", ["some-run"])
    assert event == "error" and said["error"] == "name is missing: send it, as text."
    assert "Traceback" not in capfd.readouterr().err  # (answers, not faults)
    # each call above was a session of its own: the served app's are light (ui/studio.py)
    assert state_holder.SessionState is LightSession
