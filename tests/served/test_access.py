"""Safety on a shared server: who may train, delete and push; files that belong to one
browser session; tokens that end up in no file and no log."""
import json
import logging
import os
import re
import time
from pathlib import Path

import pytest

from sft_ui.access import LOGIN, OPEN, VIEW_ONLY, Access, AccessError, Who, parse_users
from tests.conftest import HANG_MS, free_port, open_panels, wait_for

USERS = {"ann": "pw-ann", "bob": "pw-bob"}
# Its own in each test process: a suite running beside this one (its browser profile, its
# files under /tmp) never holds this token, so the search below finds this run's only.
FAKE_TOKEN = f"hf_FakeSessionToken{os.getpid()}x0123456789abcdef"


def test_mode_comes_from_the_environment(monkeypatch):
    for name in ("SFT_UI_AUTH", "SPACE_ID", "SFT_UI_OPEN"):
        monkeypatch.delenv(name, raising=False)
    assert Access.from_env().mode == OPEN
    monkeypatch.setenv("SPACE_ID", "me/studio")
    assert Access.from_env().mode == VIEW_ONLY
    monkeypatch.setenv("SFT_UI_OPEN", "1")
    assert Access.from_env().mode == OPEN
    monkeypatch.setenv("SFT_UI_AUTH", "ann:pw-ann, bob:pw:with:colons")
    access = Access.from_env()
    assert access.mode == LOGIN and access.users == {"ann": "pw-ann", "bob": "pw:with:colons"}
    with pytest.raises(ValueError, match="USER:PASSWORD"):
        parse_users("ann")


def test_actions_need_a_signed_in_session():
    access = Access(USERS)
    a, b = Who("session-a"), Who("session-b")
    with pytest.raises(AccessError, match="Sign in to start a run .*Looking at runs stays open"):
        access.require(a, "start a run")
    with pytest.raises(AccessError, match="Wrong user name or password"):
        access.sign_in(a, "ann", "pw-bob")
    with pytest.raises(AccessError, match="Wrong user name or password"):
        access.sign_in(a, "nobody", "")
    assert access.sign_in(a, " ann ", "pw-ann") == "ann"
    access.require(a, "start a run")
    with pytest.raises(AccessError):  # another browser session is not signed in
        access.require(b, "delete a run")
    access.require(Who("session-b", username="bob"), "delete a run")  # gradio's own login
    access.sign_out(a)
    with pytest.raises(AccessError):
        access.require(a, "start a run")


def test_a_public_space_is_view_only_and_says_how_to_duplicate():
    access = Access(space_id="me/studio")
    with pytest.raises(AccessError) as e:
        access.require(Who("s"), "push to the Hub")
    text = str(e.value)
    assert "Cannot push to the Hub" in text
    assert "https://huggingface.co/spaces/me/studio?duplicate=true" in text
    assert "SFT_UI_AUTH" in text
    assert "View only" in access.banner()
    with pytest.raises(AccessError, match="no logins"):
        access.sign_in(Who("s"), "ann", "pw-ann")


def test_local_files_belong_to_one_session(tmp_path):
    access = Access(USERS)
    a, b = Who("session-a"), Who("session-b")
    assert access.owner(a) != access.owner(b)
    access.sign_in(a, "ann", "pw-ann")
    access.sign_in(Who("session-a2"), "ann", "pw-ann")
    assert access.owner(a) == access.owner(Who("session-a2"))  # the user's files, not the tab's
    mine = access.upload_folder(tmp_path, a) / "123-data.jsonl"
    theirs = access.upload_folder(tmp_path, b) / "456-data.jsonl"
    for path in (mine, theirs):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('{"text": "x"}\n')
    run_model = tmp_path / "20260101-000000-abcd" / "model"
    run_model.mkdir(parents=True)
    access.check_config(tmp_path, a, {"dataset_name": str(mine), "model_name_or_path":
                                      str(run_model), "eval_dataset_name": "org/hub-set"})
    access.check_config(tmp_path, a, {"dataset_name": "demo"})
    for path, label in ((theirs, "Dataset"), ("/etc/passwd", "Dataset"),
                        (str(mine.parent / ".." / theirs.parent.name / theirs.name), "Dataset")):
        with pytest.raises(AccessError, match=f"{label}: on a shared server files come from "
                                              "your own uploads"):
            access.check_config(tmp_path, a, {"dataset_name": str(path)})
    with pytest.raises(AccessError, match="Model: "):
        access.check_config(tmp_path, a, {"model_name_or_path": "/usr"})
    with pytest.raises(AccessError, match="Reference model"):
        access.check_config(tmp_path, a, {"stage": "dpo", "ref_model": "/usr"})
    Access().check_config(tmp_path, a, {"dataset_name": "/etc/passwd"})  # open: one person


@pytest.fixture(scope="module")
def login_app(tmp_path_factory, tiny_model_dir):
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    manager = RunManager(tmp_path_factory.mktemp("shared-runs"))
    app = build_app(manager, Access(USERS, shared_paths=[tiny_model_dir]))
    port = free_port()
    app.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                       quiet=True)
    yield f"http://127.0.0.1:{port}/", manager
    app.close()


def _error(client, *args, api_name):
    with pytest.raises(Exception) as e:
        client.predict(*args, api_name=api_name)
    return str(e.value)


def test_api_viewing_is_open_and_actions_need_a_login(login_app, tiny_cfg, connect):
    url, manager = login_app
    ann, visitor = connect(url), connect(url)
    assert visitor.predict(api_name="/list_runs") == []
    assert visitor.predict({"max_steps": 3}, api_name="/plan")["effective_batch"] == 8
    assert "Sign in to start a run" in _error(visitor, tiny_cfg, api_name="/start_run")
    assert "Wrong user name or password" in _error(ann, "ann", "nope", api_name="/sign_in")
    assert ann.predict("ann", "pw-ann", api_name="/sign_in") == {"user": "ann"}
    run_id = ann.predict(tiny_cfg, api_name="/start_run")["run_id"]
    wait_for(lambda: manager.get(run_id).state == "done")
    assert visitor.predict(run_id, api_name="/run_status")["state"] == "done"
    for args, api_name, action in (((run_id, "x"), "/rename_run", "rename a run"),
                                   ((run_id,), "/delete_run", "delete a run"),
                                   ((run_id,), "/resume_run", "resume a run"),
                                   ((run_id, "", False), "/export_run", "export a run"),
                                   ((run_id, "", "q8_0"), "/export_gguf", "export a run"),
                                   ((run_id, "me/m", FAKE_TOKEN, True, False), "/push_to_hub",
                                    "push to the Hub")):
        assert f"Sign in to {action}" in _error(visitor, *args, api_name=api_name)
    assert manager.get(run_id).state == "done"  # nothing happened to it
    assert ann.predict(run_id, "mine", api_name="/rename_run")["name"] == "mine"
    # A signed-in user still reads only their own files.
    stray = manager.root / "uploads" / "someone-else" / "x.jsonl"
    stray.parent.mkdir(parents=True)
    stray.write_text('{"text": "private"}\n')
    assert "your own uploads" in _error(ann, {"dataset_name": str(stray)},
                                        api_name="/preview_data")


def test_view_only_space_refuses_with_the_duplicate_link(tmp_path, tiny_cfg, connect):
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    app = build_app(RunManager(tmp_path), Access(space_id="me/studio"))
    port = free_port()
    app.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                       quiet=True)
    try:
        client = connect(f"http://127.0.0.1:{port}/")
        text = _error(client, tiny_cfg, api_name="/start_run")
        assert "Cannot start a run" in text and "?duplicate=true" in text
        assert client.predict(api_name="/list_runs") == []
    finally:
        app.close()
    assert not any(tmp_path.iterdir())  # no run folder


def _open(browser, url):
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(HANG_MS)
    page.goto(url)
    return page


def _sign_in(page, user, password):
    from playwright.sync_api import expect
    page.get_by_label("User name").fill(user)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator("#sign-in-status")).to_contain_text(f"Signed in as {user}")


def test_uploads_and_tokens_belong_to_one_browser_session(browser, login_app, tmp_path):
    from playwright.sync_api import expect
    url, manager = login_app
    data = tmp_path / "secret.jsonl"
    data.write_text("\n".join(json.dumps({"prompt": f"Q{i}?", "completion": f" A{i}."})
                              for i in range(4)) + "\n")
    ann, visitor = _open(browser, url), _open(browser, url)
    expect(visitor.locator("#access-banner")).to_contain_text("Sign in to train")
    # Not signed in: the upload is refused and nothing is stored.
    visitor.locator("#data-upload input[type=file]").set_input_files(str(data))
    expect(visitor.locator("#data-summary")).to_contain_text("Sign in to upload a dataset")
    assert not list((manager.root / "uploads").rglob("*secret.jsonl"))
    _sign_in(ann, "ann", "pw-ann")
    ann.locator("#data-upload input[type=file]").set_input_files(str(data))
    box = ann.locator("#cfg-dataset_name input")
    expect(box).to_have_value("secret.jsonl")  # its name; the value is the stored path
    expect(ann.locator("#data-summary")).to_contain_text("Format: prompt/completion")
    (stored,) = map(str, (manager.root / "uploads").rglob("*secret.jsonl"))
    assert re.search(r"uploads/\w+/.*secret", stored), stored
    # Bob, signed in elsewhere, cannot read Ann's upload by typing its path.
    _sign_in(visitor, "bob", "pw-bob")
    other = visitor.locator("#cfg-dataset_name input")
    other.fill(stored)
    other.press("Tab")
    visitor.get_by_role("button", name="Preview data").click()
    expect(visitor.locator("#data-summary")).to_contain_text("your own uploads")
    expect(visitor.locator("#data-examples")).not_to_contain_text("Q0?")
    # A token typed in one page is in no other page.
    ann.get_by_role("tab", name="Export").click()
    visitor.get_by_role("tab", name="Export").click()
    ann.get_by_label("Hugging Face token (write access)").fill(FAKE_TOKEN)
    assert visitor.get_by_label("Hugging Face token (write access)").input_value() == ""
    for page in (ann, visitor):
        page.context.close()


def test_a_push_writes_the_token_nowhere(browser, live_app, tiny_cfg, monkeypatch, tmp_path,
                                         capfd, connect):
    """Push through the API and the page with a known fake token (to a recording stand-in
    of the Hub), then search every file written since the start, and the log."""
    from unittest.mock import create_autospec

    import huggingface_hub
    from playwright.sync_api import expect

    from sft_ui.share import hub
    from tests.chat.test_after_training import RecordingHub
    url, manager = live_app
    recorder = RecordingHub()
    # The class as well as the instance built from HfApi's own signatures.
    api_class = create_autospec(huggingface_hub.HfApi, return_value=recorder)
    monkeypatch.setattr(huggingface_hub, "HfApi", api_class)
    monkeypatch.setattr(hub, "hub_reachable", lambda: True)
    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = lambda record: records.append(record.getMessage())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    started = time.time() - 1
    try:
        run_id = manager.start({**tiny_cfg, "max_steps": 2})
        wait_for(lambda: manager.get(run_id).state == "done")
        client = connect(url)
        assert client.predict(run_id, "me/tiny", FAKE_TOKEN, True, False,
                              api_name="/push_to_hub")["url"].endswith("me/tiny")
        page = _open(browser, url)
        page.get_by_role("tab", name="Export").click()
        page.get_by_role("button", name="Refresh").last.click()
        page.locator("#export-run input").click()
        label = next(r["label"] for r in manager.history() if r["run_id"] == run_id)
        page.locator("#export-run").get_by_role("option", name=label).first.click()
        page.get_by_role("button", name="Export", exact=True).click()
        expect(page.locator("#export-notice")).to_contain_text("Exported to")
        page.get_by_label("Model repo id").fill("me/tiny-page")
        page.get_by_label("Hugging Face token (write access)").fill(FAKE_TOKEN)
        page.get_by_role("button", name="Push the export").click()
        expect(page.locator("#hub-notice")).to_contain_text("Pushed")
        page.context.close()
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    assert [c for c, _ in recorder.calls].count("upload_folder") == 2
    assert [c.kwargs for c in api_class.call_args_list] == [{"token": FAKE_TOKEN}] * 2
    needle = FAKE_TOKEN.encode()
    out, err = capfd.readouterr()
    assert FAKE_TOKEN not in out + err and not any(FAKE_TOKEN in r for r in records)
    assert records  # the log was captured
    searched = 0
    roots = {manager.root, Path.cwd(), Path(os.environ.get("GRADIO_TEMP_DIR", "/tmp")),
             Path.home() / ".cache"}
    for top in roots:
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d not in (".venv", ".git", "node_modules")]
            for name in files:
                path = Path(folder, name)
                try:
                    if path.is_symlink() or path.stat().st_mtime < started or \
                            path.stat().st_size > 200_000_000:
                        continue
                    searched += 1
                    assert needle not in path.read_bytes(), path
                except (PermissionError, FileNotFoundError):
                    continue
    assert searched > 10  # the run's files, the export, the zip at least


def test_trust_remote_code_is_off_and_warns_when_turned_on(browser, live_app):
    from playwright.sync_api import expect

    from sft_ui.config import RunConfig
    assert RunConfig().trust_remote_code is False
    page = _open(browser, live_app[0])
    open_panels(page)
    warning = page.locator("#remote-code-warning")
    expect(warning).to_be_hidden()
    page.get_by_label("Trust remote code").check()
    expect(warning).to_contain_text("remote code is on")
    page.get_by_label("Trust remote code").uncheck()
    expect(warning).to_be_hidden()
    page.context.close()
