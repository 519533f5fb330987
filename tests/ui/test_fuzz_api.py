"""Bad input to every endpoint, generated: each endpoint of `ui/api.py`'s ENDPOINTS is
called as Gradio calls it (`Api.endpoint`, with a request of a visitor's session) with
values Hypothesis draws from wrong types, huge sizes, odd Unicode, path-like strings and
missing fields (null), on a view-only Space and on a login server, the caller not
signed in. Each call answers, or refuses with a message (gr.Error with text); nothing
else is raised; the runs folder, its queue, its sweeps and its uploads are as they were;
and the server still answers afterwards. Derandomized: the same cases every run."""
from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.runs import RunManager
from sft_ui.ui.api import ENDPOINTS, Api

ODD = st.sampled_from(["", " ", "\x00", "\u202e\u200b", "😀" * 50, "ｆｕｌｌ", "../../etc/passwd",
                       "/", "~/.ssh/id_rsa", "C:\\Windows", "runs/../..", "latest",
                       "base/checkpoint-../../x", "hf://x/y", "a" * 100_000, "NaN", "-1",
                       "1e309", "{}", "[]", "null"])
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                   st.floats(allow_nan=True, allow_infinity=True),
                   st.text(max_size=200), ODD)
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.one_of(st.text(max_size=20), ODD),
                                                 inner, max_size=5)), max_leaves=12)


def _state(root: Path) -> list[str]:
    """Every path under the runs folder (runs, the queue, sweeps, uploads)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _call(method, request, values: dict) -> None:
    """One call as Gradio makes it: it answers (a generator is read a little), or
    refuses with a message."""
    try:
        answer = method(request, **values) if "request" in inspect.signature(method).parameters \
            else method(**values)
        if inspect.isgenerator(answer):
            for _, _ in zip(range(3), answer):
                pass
            answer.close()
    except gr.Error as e:
        assert str(e.message if hasattr(e, "message") else e).strip(), "an empty message"


@pytest.fixture(scope="module", params=["view only", "login"])
def server(request, tmp_path_factory):
    """An Api on a view-only Space or a login server, and its runs folder."""
    root = tmp_path_factory.mktemp("fuzz") / "runs"
    access = Access(space_id="me/studio") if request.param == "view only" \
        else Access(users={"ann": "a long secret"})
    return Api(Actions(RunManager(root), access)), root


@pytest.mark.parametrize("name", ENDPOINTS)
def test_every_endpoint_answers_bad_input_with_a_message(server, name):
    api, root = server
    method = api.endpoint(name)
    parameters = [p for p in inspect.signature(method).parameters.values()
                  if p.name != "request"]
    # a field left out arrives as null where it has no default, else takes its default
    required = {p.name: VALUE for p in parameters if p.default is inspect.Parameter.empty}
    optional = {p.name: VALUE for p in parameters if p.name not in required}
    request = SimpleNamespace(session_hash="fuzz-visitor", username=None, headers={},
                              client=SimpleNamespace(host="127.0.0.1"))
    before = _state(root)

    @settings(max_examples=20, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.fixed_dictionaries(required, optional=optional))
    def each(values):
        _call(method, request, values)

    each()
    assert _state(root) == before, name
    assert isinstance(api.list_runs(), list)  # the server still answers


def test_a_value_of_the_wrong_type_is_named_with_the_type_it_takes(server):
    from sft_ui.i18n.message import Message
    from sft_ui.ui.api_types import KINDS
    from tests.i18n.test_messages_checks import _left
    api, _ = server
    request = SimpleNamespace(session_hash="fuzz-visitor", username=None)
    with pytest.raises(gr.Error, match="target must be text, not true or false"):
        api.endpoint("plan")(request, {}, True)
    with pytest.raises(gr.Error, match="max_new_tokens must be a whole number, not text"):
        list(api.endpoint("chat")(request, "Hi", None, "", "", "many"))
    for kind in KINDS.values():  # each kind said whole in Japanese
        assert not _left(Message("{field} must be {kind}, not {given}.", field="target",
                                 kind=kind, given=Message("another type")))
