"""The other panels' handlers called as functions, without building the page: Chat and
Compare (ui/chat_tab.py ChatHandlers), the code panel (ui/code_panel.py CodeHandlers),
the Export tab (ui/export_source.py SourceHandlers, ui/export_tab.py ExportHandlers), the
stage's view and Continue (ui/stage_view.py StageHandlers, ContinueHandlers), Sign in
(ui/access_panel.py SignInHandlers) and Test rewards (ui/rewards_panel.py
RewardsHandlers)."""
from pathlib import Path
from types import SimpleNamespace

import pytest

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.chat import BASE, LATEST
from sft_ui.runs import RunManager
from sft_ui.ui.access_panel import SignInHandlers, who
from sft_ui.ui.chat_tab import ChatHandlers
from sft_ui.ui.code_panel import CodeHandlers
from sft_ui.ui.export_source import FINAL, NO_RUN_CHOSEN, SourceHandlers
from sft_ui.ui.export_tab import ExportHandlers
from sft_ui.ui.rewards_panel import RewardsHandlers
from sft_ui.ui.stage_view import ContinueHandlers, StageHandlers
from tests.ui.test_panel_handlers import skipped


@pytest.fixture
def actions(tmp_path):
    return Actions(RunManager(tmp_path / "runs"), Access())


def test_chat_says_what_is_missing_and_why_it_cannot_answer(actions):
    h = ChatHandlers(actions)
    assert h.add_user("Hi", None) == ("", [{"role": "user", "content": "Hi"}])
    history = [{"role": "user", "content": "  "}]
    (shown, said), = list(h.reply(None, history, BASE))
    assert shown == history and "Type a message first." in said
    asked = [{"role": "user", "content": "Hi"}]  # (no run has finished: latest is none)
    (shown, said), = list(h.reply(None, asked, LATEST, "", 4, 0, 1, 1.0, "", "chat"))
    assert shown == asked and "Cannot answer" in said
    choices, latest = h.listed()
    assert [v for _, v in choices["choices"]] == [LATEST, BASE] and latest


def test_compare_refuses_in_the_notice_and_keeps_the_answers(actions):
    h = ChatHandlers(actions)
    a, b, said = next(h.compare_two(None, "Hi", BASE, LATEST, "", 4, 0, 1, 1.0, "", "chat"))
    assert skipped(a) and skipped(b) and "Cannot answer" in said
    (table, said), = list(h.compare_all(" \n ", BASE, LATEST, 4, "", "chat", None))
    assert skipped(table) and "Add at least one prompt" in said  # (nothing said before)
    first, second = h.both_listed()
    assert first["choices"] == second["choices"] == h.listed()[0]["choices"]


def test_the_code_panel_shows_saves_and_loads_the_settings(tmp_path):
    names = ["learning_rate", "max_steps"]
    h = CodeHandlers(names)
    notice, yaml_text, script, command, launch = h.on_show(2, "0.0003", 7)
    assert notice == "" and "max_steps: 7" in yaml_text and "SFTTrainer" in script
    assert "trl sft" in command and "accelerate" in launch
    said, *rest = h.on_show(1, "fast", 7)
    assert "Fix these settings first" in said and all(map(skipped, rest))
    notice, path = h.on_save("0.0003", 7)
    assert notice == "" and "max_steps: 7" in Path(path).read_text()
    *values, loaded = h.on_load(path)
    assert values == ["0.0003", 7] and "Loaded sft.yaml" in loaded  # (the rate as typed)
    bad = tmp_path / "bad.yaml"
    bad.write_text("[unclosed")
    *values, said = h.on_load(str(bad))
    assert all(map(skipped, values)) and "bad.yaml is not valid YAML" in said
    assert all(map(skipped, h.on_load(None)[:-1]))


def test_the_export_choice_with_no_run_offers_the_final_model_only(actions):
    h = SourceHandlers(actions.manager)
    assert h.runs() == {"__type__": "update", "choices": [], "value": None}
    checkpoint, merge = h.on_run("")
    assert [v for _, v in checkpoint["choices"]] == [FINAL] and merge["visible"] is False
    assert [v for _, v in h.listed("no-such-run")["choices"]] == [FINAL]
    assert h.picked("r1") == "r1"


def test_a_stage_shows_its_settings_and_its_demo_set(actions):
    h = StageHandlers(actions, ["beta", "learning_rate"], [["beta"]], ["preference"])
    beta, rate, row, panel, datasets = h.on_stage(None, "dpo", "demo")
    assert beta["visible"] and rate["visible"] and row["visible"] and panel["visible"]
    assert datasets["value"] == "demo-preference"  # (the SFT examples: not pairs)
    beta, _, row, panel, datasets = h.on_stage(None, "sft", "demo")
    assert not beta["visible"] and not row["visible"] and not panel["visible"]
    assert "value" not in datasets and datasets["choices"] == ["demo"]
    assert h.on_load(None, "dpo", "demo-preference")["choices"] == ["demo-preference"]


def test_continue_with_no_finished_run_says_so(actions):
    h = ContinueHandlers(actions, lambda current: None, ["learning_rate"])
    for answer in (h.on_first(""), h.on_also("")):
        assert skipped(answer[0]) and "No finished SFT run to continue" in answer[-1]


def test_the_export_buttons_say_what_is_missing_in_their_notice(actions):
    h = ExportHandlers(actions)
    folder, said, download, card = h.on_export(None, "", FINAL, False)
    assert NO_RUN_CHOSEN in said and all(map(skipped, (folder, download, card)))
    folder, said, *_ = h.on_export(None, "no-such-run", FINAL, False)
    assert skipped(folder) and "Cannot export" in said and "no-such-run" in said
    said, files = h.on_gguf(None, "", FINAL, "q8_0")
    assert NO_RUN_CHOSEN in said and skipped(files)
    assert "Export first" in h.on_push(None, "", "me/model", "", True)
    assert "Cannot publish" in h.on_publish(None, "", "", "")
    assert "Cannot deploy" in h.on_deploy(None, "", "")
    assert skipped(h.card_again(""))


def test_sign_in_and_out_on_a_login_server(tmp_path):
    h = SignInHandlers(Actions(RunManager(tmp_path / "runs"),
                               Access(users={"ann": "a long secret"})))
    request = SimpleNamespace(session_hash="one-browser", username=None)
    said, password = h.on_sign_in(request, "ann", "wrong")
    assert "Cannot sign in" in said and skipped(password)
    said, password = h.on_sign_in(request, "ann", "a long secret")
    assert "Signed in as **ann**" in said and password == ""
    visitor = who(request)
    assert h.actions.access.user(visitor) == "ann"
    assert "Signed out." in h.on_sign_out(request)
    assert h.actions.access.user(visitor) is None


def test_test_rewards_refuses_a_stage_without_rewards(actions):
    said, table = RewardsHandlers(actions, ["stage"]).on_test(None, "sft")
    assert "Cannot test the rewards" in said and table["visible"] is False
