"""After training: chat with runs, checkpoints and base models; compare two models;
export (adapter and merged) with a model card; push and publish a Space to a
recording stand-in of the Hub; the generated Space app answers."""
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch

from sft_ui.chat import ChatService, GenSettings
from sft_ui.runs import RunError, RunManager
from sft_ui.share.export import export_run, zip_export
from sft_ui.share.hub import HubError, publish_space, push_folder, write_space
from tests.conftest import HANG, free_port, wait_for

# Its own in each test process (see tests/served/test_access.py's FAKE_TOKEN).
FAKE_TOKEN = f"hf_FakeToken{os.getpid()}x0123456789abcdefXYZ"


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tiny_model_dir):
    """A finished LoRA run and a full fine-tune with checkpoints."""
    manager = RunManager(tmp_path_factory.mktemp("runs"))
    base = {"model_name_or_path": tiny_model_dir, "max_steps": 3,
            "per_device_train_batch_size": 2, "gradient_accumulation_steps": 1,
            "max_length": 64, "sample_steps": 3, "sample_max_new_tokens": 6,
            "learning_rate": 5e-3}
    ids = {}
    for kind, extra in (("lora", {"use_peft": True, "lora_r": 4, "lora_alpha": 8}),
                        ("full", {"save_steps": 1})):
        run_id = manager.start({**base, **extra})
        snap = wait_for(lambda: (lambda s: s if s["state"] not in ("queued", "running")
                                 else None)(manager.get(run_id).snapshot()))
        assert snap["state"] == "done", snap["error"]
        ids[kind] = run_id
    return manager, ids


def _logits(model, tokenizer):
    enc = tokenizer("Hello there, how are you?", return_tensors="pt")
    with torch.no_grad():
        return model(**enc).logits


def test_export_adapter_and_merged_reload_with_the_same_logits(runs):
    from peft import AutoPeftModelForCausalLM
    from transformers import AutoModelForCausalLM, AutoTokenizer
    manager, ids = runs
    run = manager.get(ids["lora"])
    chat = ChatService(manager)
    in_memory, tokenizer = chat.load(ids["lora"])
    reference = _logits(in_memory, tokenizer)
    adapter = export_run(run)
    assert (adapter / "adapter_model.safetensors").exists()
    assert not (adapter / "model.safetensors").exists()
    reloaded = AutoPeftModelForCausalLM.from_pretrained(str(adapter)).eval()
    assert torch.allclose(_logits(reloaded, AutoTokenizer.from_pretrained(str(adapter))),
                          reference, atol=1e-5)
    merged = export_run(run, merged=True)
    assert (merged / "model.safetensors").exists()
    assert not (merged / "adapter_config.json").exists()
    plain = AutoModelForCausalLM.from_pretrained(str(merged)).eval()
    assert torch.allclose(_logits(plain, AutoTokenizer.from_pretrained(str(merged))),
                          reference, atol=1e-4)
    zipped = zip_export(merged)
    assert zipped.suffix == ".zip" and zipped.stat().st_size > 1000


def test_model_card_holds_the_runs_real_figures(runs):
    manager, ids = runs
    run = manager.get(ids["lora"])
    card = (export_run(run) / "README.md").read_text()
    losses = [m["loss"] for m in run.metrics if "loss" in m]
    assert f"| final loss | {losses[-1]:.4f} |" in card
    assert f"| best loss | {min(losses):.4f} |" in card
    assert "![loss curve](loss.png)" in card and "library_name: peft" in card
    assert f"base_model: {run.config.model_name_or_path}" in card
    last = [s for s in run.samples if s["step"] == 3]
    assert last and all(s["prompt"] in card and s["completion"] in card for s in last)
    assert "AutoPeftModelForCausalLM.from_pretrained" in card
    assert (export_run(run) / "loss.png").read_bytes()[:4] == b"\x89PNG"


def test_chat_with_checkpoints_base_and_settings(runs):
    manager, ids = runs
    chat = ChatService(manager, max_loaded=2)
    refs = [ref for _, ref in chat.choices()]
    full = ids["full"]
    assert {f"{full}/checkpoint-3", f"{full}/checkpoint-1", f"{full}/base", full} <= set(refs)
    replies = list(chat.stream("Hello", [], f"{full}/checkpoint-1",
                               GenSettings(system_prompt="Be brief.", max_new_tokens=5)))
    assert replies and all(replies[-1].startswith(r) for r in replies)
    sampled = list(chat.stream("Hello", [], full, GenSettings(max_new_tokens=5,
                                                               temperature=0.9, top_p=0.8)))
    assert sampled
    list(chat.stream("Hello", [], f"{full}/base", GenSettings(max_new_tokens=3)))
    assert len(chat.loaded()) == 2  # the oldest model was released
    with pytest.raises(RunError, match="no checkpoint 'checkpoint-99'"):
        list(chat.stream("Hi", [], f"{full}/checkpoint-99"))
    with pytest.raises(RunError, match="Temperature must be between"):
        list(chat.stream("Hi", [], full, GenSettings(temperature=9)))


def test_stop_ends_the_generation(runs):
    """Closing the stream (a Stop in the page) ends the model's generation early: fewer
    new tokens than asked, where the same reply left alone runs to the limit."""
    manager, ids = runs
    chat = ChatService(manager)
    model = chat.load(ids["full"])[0]
    generate, made, ended = model.generate, [], threading.Event()

    def counted(*args, **kwargs):  # runs in the service's generation thread
        try:
            out = generate(*args, **kwargs)
            made.append(out.shape[1] - kwargs["input_ids"].shape[1])
            return out
        finally:
            ended.set()

    model.generate = counted
    limit = GenSettings(max_new_tokens=400)
    try:
        assert list(chat.stream("Tell me a story", [], ids["full"], limit))
        assert ended.wait(120) and made == [400]  # greedy: no end-of-turn before the limit
        ended.clear()
        stream = chat.stream("Tell me a story", [], ids["full"], limit)
        next(stream)
        stream.close()  # what a Stop in the page does
        assert ended.wait(120)
        assert len(made) == 2 and made[1] < 400
    finally:
        del model.generate
    assert list(chat.stream("Hi", [], ids["full"], GenSettings(max_new_tokens=3)))


def test_compare_streams_both_and_batches(runs):
    """Compare gives each model's own answer: a LoRA run and its base in one batch of one
    loaded model (the base rows with the adapter off), a full fine-tune after its base."""
    manager, ids = runs
    chat = ChatService(manager, max_loaded=4)
    greedy = GenSettings(max_new_tokens=6)

    def alone(ref):
        return list(chat.stream("Hello", [], ref, greedy))[-1]

    torch.manual_seed(0)  # an adapter that surely changes the answers (3 steps may not)
    for name, weight in chat.load(ids["lora"])[0].named_parameters():
        if "lora_B" in name:
            weight.data.normal_(std=1.0)

    for kind in ("lora", "full"):
        pairs = list(chat.compare("Hello", f"{ids[kind]}/base", ids[kind], greedy))
        assert pairs and all(isinstance(a, str) and isinstance(b, str) for a, b in pairs)
        assert pairs[-1] == (alone(f"{ids[kind]}/base"), alone(ids[kind]))
        assert kind == "full" or pairs[-1][0] != pairs[-1][1]  # the adapter in use
        assert all(a.startswith(b) for (a, _), (b, _) in zip(pairs[1:], pairs))
    chat = ChatService(manager, max_loaded=4)
    assert list(chat.compare("Hello", ids["lora"], f"{ids['lora']}/base", greedy))
    assert chat.loaded() == [str(chat.model_path(ids["lora"]))]  # one model for both
    list(chat.compare("Hello", f"{ids['full']}/base", ids["full"], greedy))
    assert len(chat.loaded()) == 3  # a full fine-tune and its base: two models
    rows = chat.compare_batch(["Hi", "", "Name a colour."], f"{ids['full']}/base",
                              ids["full"], 5)
    assert [r["prompt"] for r in rows] == ["Hi", "Name a colour."]
    with pytest.raises(RunError, match="at least one prompt"):
        chat.compare_batch(["  "], "base", ids["full"])


def RecordingHub(fail_status=None):
    """Stands in for a huggingface_hub.HfApi: built from HfApi itself (create_autospec),
    so a call whose arguments HfApi would not take fails the test as it would fail on the
    Hub. Records the calls (`calls`) and the uploaded files (`files`)."""
    from unittest.mock import create_autospec

    from huggingface_hub import HfApi
    from huggingface_hub.utils import filter_repo_objects
    api = create_autospec(HfApi, instance=True)
    api.calls, api.files = [], {}

    def create_repo(*args, **kwargs):
        if fail_status:
            error = RuntimeError("refused")
            error.response = type("R", (), {"status_code": fail_status})()
            raise error
        api.calls.append(("create_repo", kwargs))

    def upload_folder(*, folder_path, allow_patterns=None, ignore_patterns=None, **kwargs):
        api.calls.append(("upload_folder", {**kwargs, "allow_patterns": allow_patterns,
                                            "ignore_patterns": ignore_patterns}))
        names = [str(p.relative_to(folder_path)) for p in Path(folder_path).rglob("*")
                 if p.is_file() and ".git" not in p.parts]
        for name in filter_repo_objects(names, allow_patterns=allow_patterns,
                                        ignore_patterns=ignore_patterns):
            api.files[name] = (Path(folder_path) / name).read_bytes()

    api.create_repo.side_effect = create_repo
    api.upload_folder.side_effect = upload_folder
    return api


def test_the_hub_stand_in_refuses_what_hfapi_would():
    hub = RecordingHub()
    with pytest.raises(TypeError):
        hub.create_repo(repo_id="me/m", no_such_argument=True)
    with pytest.raises(AttributeError):
        hub.push_everything("me/m")


def test_push_and_space_go_to_the_hub_without_writing_the_token(runs, tmp_path):
    from huggingface_hub import RepoCard
    manager, ids = runs
    folder = export_run(manager.get(ids["lora"]), merged=True)
    hub = RecordingHub()
    url = push_folder(folder, "me/tiny-chat", FAKE_TOKEN, private=True, api=hub)
    assert url == "https://huggingface.co/me/tiny-chat"
    (_, create), (_, upload) = hub.calls
    assert create == {"repo_id": "me/tiny-chat", "repo_type": "model", "private": True,
                      "exist_ok": True}
    assert upload["repo_type"] == "model" and upload["repo_id"] == "me/tiny-chat"
    assert {"model.safetensors", "README.md", "loss.png", "config.json"} <= set(hub.files)
    space = RecordingHub()
    assert publish_space("me/tiny-chat", "me/tiny-chat-space", FAKE_TOKEN, api=space) == \
        "https://huggingface.co/spaces/me/tiny-chat-space"
    assert space.calls[0][1]["repo_type"] == "space" and \
        space.calls[0][1]["space_sdk"] == "gradio"
    assert set(space.files) == {"app.py", "requirements.txt", "README.md"}
    meta = RepoCard(space.files["README.md"].decode()).data
    assert (meta.sdk, meta.app_file, meta.sdk_version) == ("gradio", "app.py", "6.31.0")
    assert b'"me/tiny-chat"' in space.files["app.py"]
    # The token is in no file the app wrote, nor in anything uploaded.
    for data in list(hub.files.values()) + list(space.files.values()):
        assert FAKE_TOKEN.encode() not in data
    for path in manager.root.rglob("*"):
        if path.is_file():
            assert FAKE_TOKEN.encode() not in path.read_bytes(), path


def test_a_chat_space_needs_a_pushed_model():
    """Publish refuses, saying to push first, when no model repo is named or the Hub has
    none by that id; nothing is created then."""
    for model, exists, needle in (("", True, "push the export first"),
                                  ("  ", True, "push the export first"),
                                  ("me/never-pushed", False, "The Hub has no model "
                                                             "me/never-pushed")):
        hub = RecordingHub()
        hub.repo_exists.return_value = exists
        with pytest.raises(HubError, match=needle):
            publish_space(model, "me/chat", FAKE_TOKEN, api=hub)
        assert hub.calls == []  # no Space made for a model the Hub does not have
    hub = RecordingHub()
    hub.repo_exists.return_value = True
    assert publish_space("me/pushed", "me/chat", FAKE_TOKEN, api=hub).endswith("me/chat")
    hub.repo_exists.assert_called_once_with("me/pushed", repo_type="model")


@pytest.mark.parametrize("repo, token, hub, needle", [
    ("no-owner", FAKE_TOKEN, RecordingHub(), "not a repo id"),
    ("me/bad name!", FAKE_TOKEN, RecordingHub(), "not a valid repo id"),
    ("me/model", "", RecordingHub(), "Enter a Hugging Face token"),
    ("me/model", FAKE_TOKEN, RecordingHub(fail_status=401), "token was refused"),
    ("me/model", FAKE_TOKEN, None, "offline"),
])
def test_push_problems_get_clear_messages(tmp_path, repo, token, hub, needle):
    from sft_ui.models import hub_reachable
    if hub is None and hub_reachable():
        pytest.skip("the Hub is reachable here")
    with pytest.raises(HubError, match=needle) as e:
        push_folder(tmp_path, repo, token, api=hub)
    assert FAKE_TOKEN not in str(e.value)


def test_generated_space_app_answers_through_gradio_client(runs, tmp_path):
    from gradio_client import Client
    manager, ids = runs
    model = export_run(manager.get(ids["lora"]), merged=True)
    app_dir = write_space(tmp_path / "space", str(model), "Chat test")
    port = free_port()
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_SERVER_NAME": "127.0.0.1",
           "GRADIO_ANALYTICS_ENABLED": "False"}
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=app_dir, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        client = wait_for(lambda: _connect(Client, port), timeout=HANG, interval=1)
        reply = client.predict("Hello", 16, 0, api_name="/chat")
        assert isinstance(reply, str) and reply  # a tiny random model: any 16 tokens
    finally:
        proc.kill()
        proc.wait()


def _connect(client_cls, port):
    try:
        return client_cls(f"http://127.0.0.1:{port}/", verbose=False)
    except Exception:
        return None


def test_picking_another_chat_model_starts_a_conversation_named_after_it(tmp_path):
    """A conversation is with one model: the person's pick of another empties the chat box
    and names the model its replies come from, in the page's language."""
    from sft_ui.ui import build_app
    from sft_ui.ui.chat_tab import new_conversation
    from tests.i18n.test_i18n import _in_japanese
    chat = ChatService(RunManager(tmp_path / "runs"))
    box, error = new_conversation(chat, "latest")
    assert box["value"] == [] and box["label"] == "Chat with latest finished run" and not error
    box, _ = _in_japanese(lambda: new_conversation(chat, "base"))
    assert box["label"] == "ベース: HuggingFaceTB/SmolLM2-135M-Instruct とのチャット"
    app = build_app(RunManager(tmp_path / "page"))
    model = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "chat-model")
    fn = next(f for f in app.fns.values() if (model._id, "input") in
              [tuple(t) for t in f.targets])
    # (and Ask as set to the model's: text for a model trained on plain text)
    assert [type(o).__name__ for o in fn.outputs] == ["Chatbot", "Markdown", "Radio"]
    # Chat and Compare start with a repetition penalty that keeps a small model from
    # looping (shown, and changeable: the API's own default stays 1, off); Evaluate's is
    # off (a penalty alters exact answers such as JSON).
    from sft_ui.ui.lang import T
    label = str(T("Repetition penalty"))
    penalties = [b.value for b in app.blocks.values() if str(getattr(b, "label", "")) == label]
    assert sorted(penalties) == [1.0, 1.15, 1.15]
    assert GenSettings().repetition_penalty == 1.0
