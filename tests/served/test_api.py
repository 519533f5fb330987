"""The HTTP API through gradio_client against the live app on loopback."""
import os

import pytest
from gradio_client import Client

from tests.conftest import wait_for


@pytest.fixture(scope="module")
def client(live_app):
    c = Client(live_app[0], verbose=False)
    yield c
    c.close()


def _status(client, run_id):
    return client.predict(run_id, api_name="/run_status")


def _finished(client, run_id):
    snap = _status(client, run_id)
    return snap if snap["state"] in ("done", "stopped", "failed") else None


def test_start_poll_and_chat(client, tiny_cfg):
    run_id = client.predict({**tiny_cfg, "max_steps": 3}, api_name="/start_run")["run_id"]
    live = wait_for(lambda: (lambda s: s if [m for m in s["metrics"] if "loss" in m]
                             and s["samples"] else None)(_status(client, run_id)))
    assert live["max_steps"] == 3
    assert {"step", "prompt", "completion"} <= set(live["samples"][0])
    snap = wait_for(lambda: _finished(client, run_id))
    assert snap["state"] == "done" and snap["step"] == 3 and snap["error"] == ""
    assert len([m for m in snap["metrics"] if "loss" in m]) == 3
    assert run_id in [r["run_id"] for r in client.predict(api_name="/list_runs")]
    job = client.submit("Hello there", [], "", api_name="/chat")
    replies = list(job)
    assert replies and isinstance(replies[-1], str)
    # Streaming: the reply grows piece by piece.
    assert all(replies[-1].startswith(r) for r in replies)


def test_stop_a_longer_run(client, tiny_cfg):
    run_id = client.predict({**tiny_cfg, "max_steps": 5000, "sample_steps": 0},
                            api_name="/start_run")["run_id"]
    wait_for(lambda: _status(client, run_id)["step"] >= 2)
    with pytest.raises(Exception, match="still training"):
        client.predict(tiny_cfg, api_name="/start_run")
    assert client.predict(run_id, api_name="/stop_run")["state"] == "stopping"
    snap = wait_for(lambda: _finished(client, run_id))
    assert snap["state"] == "stopped" and snap["step"] < 5000
    assert "saved" in snap["message"]
    # Resume continues the same run (same id, one loss series) from its checkpoint.
    assert client.predict(run_id, api_name="/resume_run") == {"run_id": run_id}
    wait_for(lambda: _status(client, run_id)["step"] > snap["step"] + 1)
    client.predict(run_id, api_name="/stop_run")
    again = wait_for(lambda: _finished(client, run_id))
    steps = [m["step"] for m in again["metrics"] if "loss" in m]
    assert steps == list(range(1, again["step"] + 1))
    with pytest.raises(Exception, match="No run with id"):
        client.predict("nope", api_name="/resume_run")


@pytest.mark.parametrize("change, needle", [
    ({"model_name_or_path": "no-such-owner/no-such-model"}, "Hub"),
    ({"model_name_or_path": "./missing/model"}, "neither an existing local folder"),
    ({"per_device_train_batch_size": 0}, "per_device_train_batch_size) must be at least 1"),
    ({"max_steps": -1}, "max_steps) must be at least 1"),
    ({"max_steps": "lots"}, "max_steps) must be a whole number"),
])
def test_bad_input_gets_a_clear_message_and_the_server_stays_up(client, tiny_cfg, change,
                                                                 needle):
    with pytest.raises(Exception, match=needle.replace("(", r"\(").replace(")", r"\)")):
        client.predict({**tiny_cfg, **change}, api_name="/start_run")
    assert isinstance(client.predict(api_name="/list_runs"), list)


def test_dataset_without_text_field(client, tiny_cfg, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("title,body\nhi,hello\n")
    with pytest.raises(Exception, match="no 'text' column.*title, body"):
        client.predict({**tiny_cfg, "dataset_name": str(path)}, api_name="/start_run")
    with pytest.raises(Exception, match="No run with id"):
        client.predict("does-not-exist", api_name="/run_status")


def test_preview_data_through_the_api(client, tiny_cfg, tmp_path):
    p = client.predict({**tiny_cfg, "max_length": 256}, api_name="/preview_data")
    assert p["format"] == "messages" and p["rows"] == 248 and len(p["examples"]) == 3
    tokens = p["examples"][0]["tokens"]
    assert "".join(t["text"] for t in tokens) == p["examples"][0]["text"]
    assert all(t["loss"] for t in tokens)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"messages": [{"role": "user"}]}\n')
    with pytest.raises(Exception, match="bad.jsonl line 1: entry 1 of 'messages' has no "
                                        "'content'"):
        client.predict({"dataset_name": str(bad)}, api_name="/preview_data")


def test_chat_settings_compare_and_export_through_the_api(client, live_app, tiny_cfg):
    run_id = client.predict({**tiny_cfg, "max_steps": 2, "sample_steps": 0},
                            api_name="/start_run")["run_id"]
    assert wait_for(lambda: _finished(client, run_id))["state"] == "done"
    replies = list(client.submit("Hi", [], f"{run_id}/base", "Answer briefly.", 6, 0.7, 0.9,
                                 1.1, api_name="/chat"))
    assert replies and all(replies[-1].startswith(r) for r in replies)
    pairs = list(client.submit("Hi", f"{run_id}/base", run_id, 6, 0.0, api_name="/compare"))
    assert pairs and len(pairs[-1]) == 2 and all(isinstance(x, str) for x in pairs[-1])
    rows = client.predict(["Hi", "Bye"], f"{run_id}/base", run_id, 4,
                          api_name="/compare_batch")
    assert [r["prompt"] for r in rows] == ["Hi", "Bye"]
    # Asked as text: the prompt is continued as typed, not through the chat template.
    as_text = client.predict(["Hi", "Bye"], f"{run_id}/base", run_id, 4, "text",
                             api_name="/compare_batch")
    assert [r["a"] for r in as_text] != [r["a"] for r in rows]
    said = list(client.submit("Hi", [], run_id, "", 4, 0.0, 1.0, 1.0, "text",
                              api_name="/chat"))
    alone = client.predict(["Hi"], run_id, run_id, 4, "text", api_name="/compare_batch")
    assert said[-1].strip() == alone[0]["b"]  # (greedy: the same continuation)
    with pytest.raises(Exception, match="Ask as must be chat"):
        client.predict("Hi", [], run_id, "", 4, 0.0, 1.0, 1.0, "poem", api_name="/chat")
    out = client.predict(run_id, "", False, api_name="/export_run")
    assert out["zip"].endswith(".zip") and "README.md" in os.listdir(out["folder"])
    with pytest.raises(Exception, match="not a repo id"):
        client.predict(run_id, "no-owner", "hf_x", True, False, api_name="/push_to_hub")
    with pytest.raises(Exception, match="Max new tokens must be between"):
        client.predict("Hi", [], run_id, "", 0, api_name="/chat")


def test_export_gguf_through_the_api(client, tiny_cfg):
    from pathlib import Path
    run_id = client.predict({**tiny_cfg, "use_peft": True, "lora_r": 4, "lora_alpha": 8,
                             "sample_steps": 0}, api_name="/start_run")["run_id"]
    assert wait_for(lambda: _finished(client, run_id))["state"] == "done"
    out = client.predict(run_id, "", "q8_0", api_name="/export_gguf")
    file, modelfile = Path(out["file"]), Path(out["modelfile"])
    assert file.name.endswith("-q8_0.gguf") and file.read_bytes()[:4] == b"GGUF"
    assert modelfile.read_text().startswith(f"FROM ./{file.name}\n")
    with pytest.raises(Exception, match="Unknown GGUF quantisation 'q3'"):
        client.predict(run_id, "", "q3", api_name="/export_gguf")
