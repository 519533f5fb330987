"""Refusals of every package as Messages (sft_ui/i18n/message.py): a test set, an
evaluation, a sweep's settings, a job, an export, a push, a Space, a GGUF file, an action
this session may not take, the chat's settings and models, and how an evaluation cut the
text; each renders in Japanese whole, its nested values too."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from sft_ui import i18n
from sft_ui.access import Access, AccessError, Who
from sft_ui.chat import ChatService, GenSettings
from sft_ui.chat.generation import checked
from sft_ui.config import ConfigError, RunConfig
from sft_ui.data import DataError
from sft_ui.errors import UserError
from sft_ui.evaluate.job import Evaluator
from sft_ui.evaluate.metrics import tokenisation_lines
from sft_ui.evaluate.testset import load_test_set
from sft_ui.i18n.message import Message
from sft_ui.models import ModelError, resolve_model
from sft_ui.runs import RunError
from sft_ui.share import gguf_export, hub
from sft_ui.share.export import source_folder
from sft_ui.sweeps.space import SweepSpec, parse_vary
from tests.i18n.test_i18n import english_left
from tests.i18n.test_messages_checks import _left


def _said(error: Exception) -> list:
    """The messages an error carries to the page, as they were made."""
    return list(getattr(error, "messages", None) or error.args[:1])


def _refused(kind, fn, *args, **kwargs) -> list:
    with pytest.raises(kind) as e:
        fn(*args, **kwargs)
    return _said(e.value)


def _all_japanese(found: dict) -> None:
    """Each case's messages: Messages, rendered in Japanese with no English left."""
    left = [f"{case}: {why}" for case, said in found.items() for message in said
            for why in _left(message)]
    assert all(found.values()), [case for case, said in found.items() if not said]
    assert not left, "\n".join(left)


# ---- evaluate/ --------------------------------------------------------------------------
def test_each_refused_test_set_is_a_message_in_japanese_whole(tmp_path):
    files = {"no_answer.jsonl": '{"messages": [{"role": "user", "content": "q"}]}\n',
             "odd.jsonl": '{"field1": "a", "field2": "b"}\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    found = {"none": _refused(DataError, load_test_set, " "),
             "limit not whole": _refused(DataError, load_test_set, "x.jsonl", limit="ten"),
             "limit below 0": _refused(DataError, load_test_set, "x.jsonl", limit=-1)}
    for name in files:
        found[name] = _refused(DataError, load_test_set, str(tmp_path / name))
    _all_japanese(found)
    # the row's place in a file is a Message of its own, in Japanese too
    assert "no_answer.jsonl の 1 行目" in i18n.translate(found["no_answer.jsonl"][0], "ja")


def test_each_refused_evaluation_is_a_message_in_japanese_whole():
    evaluator = Evaluator(SimpleNamespace(manager=None))
    _all_japanese({"no model": _refused(RunError, evaluator.start, [], "x.jsonl"),
                   "batch": _refused(RunError, evaluator.start, ["a"], "x.jsonl",
                                     batch_size=0),
                   "unknown id": _refused(RunError, evaluator.get, "nope")})


@pytest.mark.parametrize("language", ["japanese", "latin", None])
@pytest.mark.parametrize("not_valid", [[], ["rouge1", "rouge2", "rougeL", "bleu"]])
def test_how_the_text_was_cut_is_japanese_whole(language, not_valid):
    scores = {"tokens": {"language": language, "rouge": "characters", "bleu": "char",
                         "length": "characters"}, "not_valid": not_valid}
    lines = tokenisation_lines(scores)
    assert len(lines) == 5
    _all_japanese({"lines": lines})


# ---- sweeps/ ----------------------------------------------------------------------------
BAD_SWEEPS = {
    "search": {"method": "zigzag", "vary": {"learning_rate": [1e-4]}},
    "nothing varied": {},
    "budget": {"budget_minutes": 0, "vary": {"learning_rate": [1e-4]}},
    "at once": {"at_once": 99, "vary": {"learning_rate": [1e-4]}},
    "trials": {"trials": 999, "vary": {"learning_rate": [1e-4]}},
    "score": {"score": "zigzag", "vary": {"learning_rate": [1e-4]}},
    "reward for SFT": {"score": "reward", "vary": {"learning_rate": [1e-4]}},
    "eval loss for GRPO": {"base": {"stage": "grpo", "dataset_name": "demo-grpo"},
                           "vary": {"learning_rate": [1e-4]}},
    "reward without prompts": {"base": {"stage": "grpo", "dataset_name": "demo-grpo"},
                               "score": "reward", "vary": {"learning_rate": [1e-4]}},
    "not for the stage": {"vary": {"beta": [0.1]}},
    "unknown key": {"vary": {"learning_rate": [1e-4]}, "colour": "blue"},
    "cannot vary": {"vary": {"seed": [1, 2]}},
    "no values": {"vary": {"learning_rate": []}},
}


@pytest.mark.parametrize("case", sorted(BAD_SWEEPS))
def test_each_refused_sweep_is_a_message_in_japanese_whole(case):
    _all_japanese({case: _refused(ConfigError, SweepSpec.from_dict, BAD_SWEEPS[case])})


def test_a_sweep_file_and_the_page_box_refused_in_japanese_whole(tmp_path):
    listed = tmp_path / "sweep.yaml"
    listed.write_text("- a\n- b\n")
    _all_japanese({"not a mapping": _refused(ConfigError, SweepSpec.from_yaml, listed),
                   "bad line": _refused(ConfigError, parse_vary, "learning_rate"),
                   "cannot vary": _refused(ConfigError, parse_vary, "seed: 1, 2")})


# ---- backends/jobs.py --------------------------------------------------------------------
class _Offline:
    def whoami(self, token):
        raise ConnectionError("Name or service not known")


def test_each_refused_job_is_a_message_in_japanese_whole(tmp_path):
    from sft_ui.backends.jobs import JobError, check
    repo = {"hub_model_id": "me/model"}
    found = {
        "no repo": _refused(JobError, check, RunConfig(), "hf_x"),
        "no token": _refused(JobError, check, RunConfig.from_dict(repo), " "),
        "a local model": _refused(JobError, check, RunConfig.from_dict(
            {**repo, "model_name_or_path": str(tmp_path)}), "hf_x"),
        "a local eval file": _refused(JobError, check, RunConfig.from_dict(
            {**repo, "eval_dataset_name": __file__}), "hf_x"),
        "offline": _refused(JobError, check, RunConfig.from_dict(repo), "hf_x", _Offline()),
    }
    _all_japanese(found)


# ---- share/ -----------------------------------------------------------------------------
class _Refusing:
    """A Hub client whose calls fail with an HTTP status."""

    def __init__(self, status: int):
        self.status = status

    def _fail(self, *args, **kwargs):
        raise _HttpError(self.status)

    create_repo = upload_folder = repo_exists = _fail


class _HttpError(Exception):
    def __init__(self, status: int):
        super().__init__(f"{status}")
        self.response = SimpleNamespace(status_code=status)


def test_each_refused_export_push_and_space_is_a_message_in_japanese_whole(
        tmp_path, monkeypatch):
    running = SimpleNamespace(id="20261128-000000-abcdef", model_dir="", state="running")
    found = {
        "no model yet": _refused(RunError, source_folder, running),
        "no owner/name": _refused(hub.HubError, hub.check_push, "model", "hf_x"),
        "no token": _refused(hub.HubError, hub.check_push, "me/model", " "),
        "no model to publish": _refused(hub.HubError, hub.publish_space, " ", "me/space",
                                        "hf_x"),
        "token refused": _refused(hub.HubError, hub.push_folder, tmp_path, "me/model",
                                  "hf_x", api=_Refusing(401)),
        "no write access": _refused(hub.HubError, hub.publish_space, "me/model", "me/space",
                                    "hf_x", api=_Refusing(403)),
        "ternary": _refused(gguf_export.GgufError, gguf_export.check_quantisation, "tq1_0"),
        "unknown": _refused(gguf_export.GgufError, gguf_export.check_quantisation, "zz"),
    }
    monkeypatch.setattr(hub, "hub_reachable", lambda: False)
    found["offline push"] = _refused(hub.HubError, hub.check_push, "me/model", "hf_x")
    found["offline Space"] = _refused(hub.HubError, hub.deploy_studio, "me/space", "hf_x")
    monkeypatch.setattr(gguf_export, "converter_dir", lambda: tmp_path)
    found["no converter"] = _refused(gguf_export.GgufError, gguf_export.export_gguf, None)
    _all_japanese(found)
    # the run's state is a Message of its own, in Japanese too
    assert "学習中" in i18n.translate(found["no model yet"][0], "ja")


# ---- access.py --------------------------------------------------------------------------
def test_each_access_refusal_is_a_message_in_japanese_whole(tmp_path):
    login = Access(users={"ann": "secret"})
    view_only = Access(space_id="me/studio")
    found = {
        "sign in": _refused(AccessError, login.require, Who("s1"), "start a run"),
        "view only": _refused(AccessError, view_only.require, Who("s1"), "delete a run"),
        "no logins here": _refused(AccessError, Access().sign_in, Who("s1"), "a", "b"),
        "no logins, view only": _refused(AccessError, view_only.sign_in, Who("s1"), "a", "b"),
        "wrong password": _refused(AccessError, login.sign_in, Who("s1"), "ann", "nope"),
        "no session": _refused(AccessError, login.sign_in, Who(""), "ann", "secret"),
        "a server's file": _refused(AccessError, login.check_config, tmp_path, Who("s1"),
                                    {"dataset_name": __file__}),
        "written code": _refused(AccessError, view_only.check_code, "def f(): pass"),
        "banners": [view_only.banner(), login.banner()],
    }
    _all_japanese(found)
    japanese = i18n.translate(found["view only"][0], "ja")
    assert "実行を削除する" in japanese and "共有の公開 Space" in japanese, japanese
    assert not english_left(japanese.replace("SFT_UI_AUTH", " ")), japanese


def test_an_access_refusal_keeps_its_message_through_the_page():
    from sft_ui.ui import lang
    with pytest.raises(AccessError) as e:
        Access(space_id="me/studio").require(Who("s1"), "start a run")
    assert lang._english(e.value) == [e.value.messages[0]]
    assert isinstance(lang._english(e.value)[0], Message)


# ---- chat/, models.py ---------------------------------------------------------------------
BAD_GENERATION = [{"max_new_tokens": "many"}, {"temperature": float("nan")},
                  {"max_new_tokens": 0}, {"temperature": 9}, {"top_p": 0},
                  {"repetition_penalty": 9}, {"thinking": "maybe"}]


def test_each_chat_refusal_is_a_message_in_japanese_whole(tmp_path):
    none_yet = SimpleNamespace(latest_finished=lambda: None)
    chat = ChatService(none_yet)
    found = {str(bad): _refused(RunError, GenSettings(**bad).check) for bad in BAD_GENERATION}
    found.update({
        "empty message": _refused(RunError, checked, " ", None),
        "prompts not texts": _refused(RunError, chat.compare_batch, "hi", "a", "b"),
        "no prompts": _refused(RunError, chat.compare_batch, [" "], "a", "b"),
        "no finished run": _refused(RunError, chat.model_path, None),
        "latest": [chat.latest_text()],
        "no model": _refused(ModelError, resolve_model, " "),
        "not a model folder": _refused(ModelError, resolve_model, str(tmp_path)),
        "neither": _refused(ModelError, resolve_model, "./no/such/model"),
    })
    _all_japanese(found)


def test_the_chat_choices_are_messages():
    chat = ChatService(SimpleNamespace(all_runs=lambda: []))
    labels = [label for label, _ in chat.choices()]
    _all_japanese({"choices": labels})


def test_every_converted_error_is_a_person_facing_one():
    """(The kinds above are UserErrors: the page shows their messages, never a trace.)"""
    from sft_ui.backends.jobs import JobError
    from sft_ui.sweeps.sweep import SweepError
    for kind in (AccessError, ModelError, hub.HubError, gguf_export.GgufError, JobError,
                 SweepError):
        assert issubclass(kind, UserError)
        error = kind(Message("Uploading"))
        assert error.messages == ["Uploading"] and isinstance(error.messages[0], Message)
        assert str(error) == "Uploading"
