"""Loss on every answer of a conversation (sft_ui/data/turns.py): under each family's real
chat template (TRL's copies) every assistant turn of a 3-turn conversation is trained and
every system, user and tool turn masked; the computed mask agrees with TRL's where both
exist; Loss on the last answer only trains the last; a multi-turn run's trainer sees every
answer; the preview says how many answers are trained."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sft_ui.config import RunConfig
from sft_ui.data.chat_habits import rows_to_template
from sft_ui.data.tokens import tokenize_rows
from sft_ui.data.turns import masked, spans_of, training_template
from sft_ui.models import prepare_default_model

CONVERSATION = [
    {"role": "system", "content": "Answer in one word."},
    {"role": "user", "content": "Capital of Zorland?"},
    {"role": "assistant", "content": "Velka."},
    {"role": "user", "content": "And of Mipland?"},
    {"role": "assistant", "content": "Orun."},
    {"role": "user", "content": "Thanks a lot"},
    {"role": "assistant", "content": "Welcome."},
]
ANSWERS, ASKED = ("Velka", "Orun", "Welcome"), ("Zorland", "Mipland", "Thanks", "one word")
TEMPLATES = ["qwen2_5", "qwen3", "llama3_2", "llama3", "gemma", "gemma3", "phi3",
             "deepseek_r1_distill", "gptoss", "cohere2", "lfm2", "nemotron_3_nano"]


@pytest.fixture(scope="module")
def default_tokenizer():
    from transformers import AutoTokenizer
    return str(prepare_default_model()), AutoTokenizer


def _tokenizer(default_tokenizer, template: str | None = None):
    import trl
    path, auto = default_tokenizer
    tokenizer = auto.from_pretrained(path)
    if template:
        text = (Path(trl.__file__).parent / "chat_templates" / f"{template}.jinja") \
            .read_text(encoding="utf-8")
        # the family's special tokens, whole (as its own tokenizer has them)
        specials = sorted(set(re.findall(r"<[|｜][^<>\s]{1,40}?[|｜]>", text)) |
                          {"<start_of_turn>", "<end_of_turn>"})
        tokenizer.add_tokens([t for t in specials if t not in tokenizer.get_vocab()],
                             special_tokens=True)
        tokenizer.chat_template = text
    return tokenizer


def _trained(tokenizer, row: dict) -> list[str]:
    spans, run = [], []
    for token, bit in zip(row["input_ids"], row["assistant_masks"]):
        if bit:
            run.append(token)
        elif run:
            spans.append(tokenizer.decode(run))
            run = []
    return spans + ([tokenizer.decode(run)] if run else [])


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_answer_is_trained_and_nothing_else_under_each_template(default_tokenizer,
                                                                     template):
    tokenizer = _tokenizer(default_tokenizer, template)
    rows, _ = rows_to_template([{"messages": CONVERSATION}], tokenizer)  # as the engine gives them
    (row,), how = masked(rows, tokenizer)
    trained = _trained(tokenizer, row)
    assert len(trained) == 3, trained
    for answer, span in zip(ANSWERS, trained):
        assert answer in span, (template, trained)
    assert not any(word in span for word in ASKED for span in trained), (template, trained)
    assert how


def test_the_computed_mask_is_trls_where_both_exist(default_tokenizer):
    """The default model's template has no marks and TRL no training copy of it: the mask
    is computed, each turn as it is asked (its end mark included), and a one-answer
    conversation's is TRL's own prompt/completion mask."""
    tokenizer = _tokenizer(default_tokenizer)
    assert training_template(tokenizer) is None
    (row,), _ = masked([{"messages": CONVERSATION}], tokenizer)
    assert _trained(tokenizer, row) == [f"{a}.<|im_end|>\n" for a in ANSWERS]
    cfg = RunConfig(completion_only_loss=True)
    one = CONVERSATION[:3]
    ours = tokenize_rows(cfg, tokenizer, [{"messages": one}])[0]
    trls = tokenize_rows(cfg, tokenizer, [{"prompt": one[:2], "completion": one[2:]}])[0]
    assert ours == trls
    # and with marks, TRL's mask through its training template agrees with the computed
    marked = _tokenizer(default_tokenizer, "qwen2_5")
    spans, by_render = spans_of(CONVERSATION, marked)
    assert by_render and len(spans) == 3
    (row,), _ = masked([{"messages": CONVERSATION}], marked)
    full = marked.apply_chat_template(CONVERSATION, tokenize=False)
    for answer, (start, end) in zip(ANSWERS, spans):
        assert answer in full[start:end]


def test_the_last_answer_only_where_mask_history_is_on(default_tokenizer):
    from sft_ui.data.formats import normalise
    tokenizer = _tokenizer(default_tokenizer)
    raw = {"messages": CONVERSATION}
    every = RunConfig(completion_only_loss=True)
    last = RunConfig(completion_only_loss=True, mask_history=True)
    rows = [tokenize_rows(cfg, tokenizer, [normalise(raw, "messages", cfg, True)])[0]
            for cfg in (every, last)]
    trained = [tokenizer.decode([t for t in r["labels"] if t != -100]) for r in rows]
    assert all(a in trained[0] for a in ANSWERS)
    assert "Welcome" in trained[1] and "Velka" not in trained[1] and "Orun" not in trained[1]


def test_a_tool_call_row_trains_the_call_and_masks_the_tool_output(default_tokenizer):
    tokenizer = _tokenizer(default_tokenizer, "qwen3")
    call = {"type": "function", "function": {"name": "weather",
                                             "arguments": {"city": "Velka"}}}
    tools = [{"type": "function", "function": {
        "name": "weather", "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    row = {"messages": [{"role": "user", "content": "Weather in Velka?"},
                        {"role": "assistant", "content": "", "tool_calls": [call]},
                        {"role": "tool", "name": "weather", "content": "Sunny, 21C"},
                        {"role": "assistant", "content": "Sunny and 21C in Velka."}],
           "tools": tools}
    (shaped,), _ = masked([row], tokenizer)
    trained = " ".join(_trained(tokenizer, shaped))
    assert '"weather"' in trained and "Sunny and 21C" in trained
    assert "Sunny, 21C" not in trained and "Weather in Velka?" not in trained


def test_a_multi_turn_run_trains_every_answer_and_the_preview_says_so(tmp_path, tiny_cfg):
    """Through the preview as the page asks it: every answer's tokens are trained, and
    the notes say how many."""
    from sft_ui.access import Access
    from sft_ui.actions import Actions
    from sft_ui.runs import RunManager
    data = tmp_path / "chats.jsonl"
    data.write_text("".join(json.dumps({"messages": CONVERSATION}) + "\n" for _ in range(4)))
    manager = RunManager(tmp_path / "runs")
    try:
        shown = Actions(manager, Access()).preview(None, {
            **tiny_cfg, "dataset_name": str(data), "completion_only_loss": True})
    finally:
        manager.close()
    tokens = shown["examples"][0]["tokens"]
    trained = "".join(t["text"] for t in tokens if t["loss"])
    assert all(a in trained for a in ANSWERS) and "Zorland" not in trained
    assert any("All 12 answers" in note for note in shown["notes"]), shown["notes"]


def test_a_tool_call_file_is_read_as_messages_and_refused_where_the_template_drops_calls(
        tmp_path, default_tokenizer):
    from sft_ui.data.formats import DataError, check_row, normalise
    from sft_ui.data.tokens import load_training_data
    call = {"type": "function", "function": {"name": "weather", "arguments": {"city": "X"}}}
    row = {"messages": [{"role": "user", "content": "Weather in X?"},
                        {"role": "assistant", "content": None, "tool_calls": [call]},
                        {"role": "tool", "name": "weather", "content": "Sunny"},
                        {"role": "assistant", "content": "Sunny in X."}],
           "tools": [{"type": "function", "function": {"name": "weather"}}]}
    check_row(row, "messages", RunConfig(), "line 1")  # (a call's content may be empty)
    shaped = normalise(row, "messages", RunConfig(completion_only_loss=True), True)
    assert shaped["messages"][1]["tool_calls"] == [call] and shaped["tools"] == row["tools"]
    assert shaped["messages"][2]["name"] == "weather"
    data = tmp_path / "tools.jsonl"
    data.write_text(json.dumps(row) + "\n")
    # SmolLM2's template writes no tool calls: said, not trained as empty answers
    with pytest.raises(DataError, match="does not write them"):
        load_training_data(RunConfig(dataset_name=str(data)), _tokenizer(default_tokenizer))
    assert load_training_data(RunConfig(dataset_name=str(data)),
                              _tokenizer(default_tokenizer, "qwen3")).train


@pytest.mark.parametrize("template", ["deepseek_r1_distill", "nemotron_3_nano"])
def test_a_prompt_the_template_asks_apart_is_trained_as_asked(default_tokenizer, template):
    """Thinking templates write "<think>\\n" after a prompt alone but not inside the whole
    conversation: TRL's prompt/completion split would leave it out of the trained context
    (said only on stderr). The row is trained through TRL's training template instead,
    its answer masked in, and the preview's note says so."""
    from sft_ui.data.turns import asked_apart, asked_apart_said
    tokenizer = _tokenizer(default_tokenizer, template)
    cfg = RunConfig(completion_only_loss=True)
    row = {"prompt": CONVERSATION[1:2], "completion": CONVERSATION[2:3]}
    assert asked_apart(cfg, [row], tokenizer)
    assert not asked_apart(cfg, [row], _tokenizer(default_tokenizer, "qwen2_5"))
    shown = tokenize_rows(cfg, tokenizer, [row])[0]
    trained = tokenizer.decode([t for t in shown["labels"] if t != -100])
    assert "Velka" in trained and "Zorland" not in trained
    assert "nothing of the prompt is left out" in asked_apart_said(cfg, [row], tokenizer)


def test_a_reply_ends_at_the_templates_final_end(default_tokenizer):
    """gpt-oss ends a final answer with <|return|>, other messages with <|end|>: a reply
    in Chat, the samples and Evaluate stops at <|return|> (stop_ids), not at the <|end|>
    of the reasoning that comes before the final answer in the same reply."""
    from sft_ui.data.chat_habits import habits, stop_ids
    tokenizer = _tokenizer(default_tokenizer, "gptoss")
    found = habits(tokenizer)
    assert (found.end_of_turn, found.final_end) == ("<|end|>", "<|return|>")
    assert tokenizer.convert_tokens_to_ids("<|return|>") in stop_ids(tokenizer)
    # (its reasoning ends at <|end|>, and the final answer follows in the same reply)
    assert tokenizer.convert_tokens_to_ids("<|end|>") not in stop_ids(tokenizer)
    assert habits(_tokenizer(default_tokenizer, "qwen2_5")).final_end == ""


def test_the_thinking_switch_reaches_the_template_the_run_saves(default_tokenizer, tmp_path,
                                                                tiny_cfg, tiny_model_dir):
    """Thinking off on a Qwen3 template: the prompt is asked with an empty thought (as
    the template's enable_thinking false writes it); on, without; default as it is; a
    template with no switch says so. A run saves the template so set: Chat asks the
    trained model as it trained."""
    import shutil

    from sft_ui.data.thinking import applied
    from sft_ui.runs import RunManager
    from tests.conftest import wait_for
    qwen3 = _tokenizer(default_tokenizer, "qwen3")
    ask = [{"role": "user", "content": "Hi"}]
    asked = {choice: applied(qwen3, choice)[0].apply_chat_template(
        ask, tokenize=False, add_generation_prompt=True) for choice in ("default", "on", "off")}
    assert asked["off"].endswith("<think>\n\n</think>\n\n")
    assert not asked["on"].endswith("</think>\n\n") and asked["default"] == asked["on"]
    assert applied(qwen3, "off")[0] is not qwen3 and "enable_thinking" in qwen3.chat_template
    assert "no thinking switch" in applied(_tokenizer(default_tokenizer), "off")[1]
    # a run of a model whose template has the switch, with thinking off
    model = tmp_path / "thinker"
    shutil.copytree(tiny_model_dir, model)
    tokenizer = _tokenizer(default_tokenizer, "qwen3")
    tokenizer.save_pretrained(model)
    data = tmp_path / "chats.jsonl"
    data.write_text("".join(json.dumps({"messages": CONVERSATION[1:3]}) + "\n"
                            for _ in range(8)))
    manager = RunManager(tmp_path / "runs")
    try:
        run_id = manager.start({**tiny_cfg, "model_name_or_path": str(model),
                                "dataset_name": str(data), "enable_thinking": "off",
                                "sample_steps": 0})
        wait_for(lambda: manager.get(run_id).state in ("done", "failed"))
        run = manager.get(run_id)
        assert run.state == "done", run.error
        saved = auto_tokenizer(run.dir / "model")
        assert saved.apply_chat_template(ask, tokenize=False, add_generation_prompt=True) \
            .endswith("<think>\n\n</think>\n\n")
        assert "Thinking off" in (run.dir / "train.log").read_text()
    finally:
        manager.close()


def auto_tokenizer(path):
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(str(path))


def test_chat_shows_a_thinking_models_reasoning_apart_from_its_answer():
    """A reply "<think>...</think> answer" (or a template that opened the thought in the
    prompt: "... </think> answer") shows as a folded thought and the answer; the thought
    is not sent back to the model with the next message."""
    from sft_ui.chat.generation import normalise_history, split_reasoning
    from sft_ui.ui.chat_tab import answered
    assert split_reasoning("<think>\nThe capital is Velka.\n</think>\n\nVelka.") == \
        ("The capital is Velka.", "Velka.")
    assert split_reasoning("Sums first.\n</think>\n\n4") == ("Sums first.", "4")
    assert split_reasoning("<think>still going") == ("still going", "")
    assert split_reasoning("Plain answer.") == ("", "Plain answer.")
    shown = answered("<think>Sums first.</think>4")
    assert shown[0]["metadata"]["status"] == "done" and shown[0]["content"] == "Sums first."
    assert shown[1] == {"role": "assistant", "content": "4"}
    assert answered("<think>Sums")[0]["metadata"]["status"] == "pending"
    assert answered("4") == [{"role": "assistant", "content": "4"}]
    history = [{"role": "user", "content": "2+2?"}, *shown]
    assert normalise_history(history) == [{"role": "user", "content": "2+2?"},
                                          {"role": "assistant", "content": "4"}]


def test_reasoning_in_the_data_is_rendered_as_the_template_renders_it(default_tokenizer):
    """Reasoning in both shapes (a reasoning_content field, <think> in the answer) under
    Qwen3's template: as it asks, kept in the last answer, dropped from the earlier ones;
    trained on every answer, TRL's training template keeps each (and each is trained);
    the notes say how many."""
    from sft_ui.data.formats import normalise
    from sft_ui.data.turns import reasoning_said
    tokenizer = _tokenizer(default_tokenizer, "qwen3")
    raw = {"messages": [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning_content": "Two and two."},
        {"role": "user", "content": "3+3?"},
        {"role": "assistant", "content": "<think>Three and three.</think>6"}]}
    row = normalise(raw, "messages", RunConfig(completion_only_loss=True), True)
    assert row["messages"][1]["reasoning_content"] == "Two and two."
    last = RunConfig(completion_only_loss=True, mask_history=True)
    said = reasoning_said(last, [row], tokenizer)
    assert "2 answers carry reasoning" in said and "keeps it in 1 of them" in said
    said = reasoning_said(RunConfig(completion_only_loss=True), [row], tokenizer)
    assert "keeps it in 2 of them" in said and "training template" in said
    (shaped,), _ = masked([row], tokenizer)
    trained = " ".join(_trained(tokenizer, shaped))
    assert "Three and three." in trained and "Two and two." in trained
    assert reasoning_said(last, [{"messages": CONVERSATION}], tokenizer) is None
