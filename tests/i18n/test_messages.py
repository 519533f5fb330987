"""Messages as values (sft_ui/i18n/message.py): a Message is its English template and its
arguments, rendered in the reader's language from the template, its nested messages too,
with nothing parsed back from finished English. The case that parse-back got wrong: a
stage's columns inside Continue's note and inside the check of a demo set, which stayed
English inside a Japanese sentence."""
from __future__ import annotations

import json
import pickle
from types import SimpleNamespace

import pytest

from sft_ui import i18n, stages
from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message, as_json, from_json
from sft_ui.runs.next_stage import next_stages, preference_after
from sft_ui.ui import lang
from tests.i18n.test_i18n import english_left


def test_a_message_is_its_english_and_renders_from_its_template():
    inner = Message("prompt (text, or messages ending with the user's turn); other columns "
                    "reach the rewards by name")
    said = Message("Dataset: choose {stage} data ({columns} rows); run {run_id} trained on "
                   "`{name}`, which holds {stage2} examples.", stage="GRPO", columns=inner,
                   run_id="r1", name="mine.jsonl", stage2="SFT")
    assert said == ("Dataset: choose GRPO data (prompt (text, or messages ending with the "
                    "user's turn); other columns reach the rewards by name rows); run r1 "
                    "trained on `mine.jsonl`, which holds SFT examples.")
    japanese = i18n.translate(said, "ja")
    assert "ユーザーの発言で終わるメッセージ" in japanese and "mine.jsonl" in japanese
    assert not english_left(japanese), japanese
    # parsed back from its English, the nested value stayed English (the case)
    assert english_left(i18n.translate(str(said), "ja"))
    # carried through a process and through JSON, it is still a value
    for again in (pickle.loads(pickle.dumps(said)), from_json(json.loads(json.dumps(
            as_json(said))))):
        assert isinstance(again, Message) and again == said
        assert i18n.translate(again, "ja") == japanese
    assert i18n.translate(said, "en") == said
    # a template no catalogue knows stays English, with its values
    assert i18n.translate(Message("No entry for {x}.", x="y"), "ja") == "No entry for y."
    with pytest.raises(AssertionError):
        Message("Run {run_id} ended.", state="done")  # the arguments are the placeholders


def test_a_notice_keeps_a_message_for_a_switch_of_language(monkeypatch):
    said = preference_after(_finished_sft("mine.jsonl"), "grpo").notes
    monkeypatch.setattr(lang, "current_language", lambda: "en")
    shown = lang.note("**Filled in.**", items=said)
    monkeypatch.setattr(lang, "current_language", lambda: "ja")
    japanese = lang.redrawn(shown)
    assert "ユーザーの発言で終わるメッセージ" in japanese, japanese


def _finished_sft(dataset: str, **settings) -> SimpleNamespace:
    """A finished run as Continue reads it (its settings, state and saved model)."""
    cfg = RunConfig.from_dict({"dataset_name": dataset, **settings})
    return SimpleNamespace(id="20261128-000000-abcdef", config=cfg, state="done",
                           model_dir=__file__, dir=None)


@pytest.mark.parametrize("dataset", ["demo", "mine.jsonl"])
@pytest.mark.parametrize("lora", [True, False])
def test_every_note_of_continue_comes_out_in_japanese_whole(dataset, lora):
    """Continue's notes after a finished run of each stage, to each stage it offers, on
    its demo set and on a file of the person's own (whose columns the note names), with
    LoRA on and off: no English left in any, nested values included."""
    left = []
    for stage in stages.stages():
        for after in next_stages(stage.name):
            run = _finished_sft(dataset if dataset != "demo" else stage.demo,
                                stage=stage.name, use_peft=lora)
            for said in preference_after(run, after.name).notes:
                japanese = i18n.translate(said, "ja")
                if english_left(japanese):
                    left.append(f"{stage.name} -> {after.name}: {japanese}")
    assert not left, "\n".join(left)


def test_every_check_of_a_demo_set_comes_out_in_japanese_whole():
    """Each stage given another family's demo set: the check names what the stage reads
    (its columns, a message of their own) in Japanese."""
    left = []
    for stage in stages.stages():
        for demo, reader in stages.demos().items():
            if reader.family == stage.family:
                continue
            for said in RunConfig.from_dict({"stage": stage.name,
                                             "dataset_name": demo}).validate():
                japanese = i18n.translate(said, "ja")
                if english_left(japanese):
                    left.append(f"{stage.name} on {demo}: {japanese}")
    assert not left, "\n".join(left)
