"""Preference data (DPO, ORPO, KTO): every TRL form is recognised, bad files get a message
naming the row and what to do, the demo set is well formed, and TRL 1.16's DPOTrainer and
KTOTrainer take the rows and train 2 steps on a tiny model."""
import json
import math

import pytest

from sft_ui.config import RunConfig
from sft_ui.data import DataError
from sft_ui.data.demo import CLOSE, OPEN
from sft_ui.data.preference import (
    check_preference_rows,
    is_conversational,
    load_preference,
    preference_format,
)
from sft_ui.data.preference_demo import (
    HELD_OUT_PROMPTS,
    preference_demo_rows,
    unpaired_demo_rows,
)
from sft_ui.stages import PREFERENCE_DEMO


def _user(text):
    return [{"role": "user", "content": text}]


def _assistant(text):
    return [{"role": "assistant", "content": text}]


STANDARD = [{"prompt": "The sky is", "chosen": " blue.", "rejected": " green."},
            {"prompt": "Grass is", "chosen": " green.", "rejected": " red."}]
CONVERSATIONAL = [{"prompt": _user("Sky colour?"), "chosen": _assistant("Blue."),
                   "rejected": _assistant("Green.")}]
IMPLICIT = [{"chosen": _user("Sky colour?") + _assistant("Blue."),
             "rejected": _user("Sky colour?") + _assistant("Green.")}]
IMPLICIT_STANDARD = [{"chosen": "The sky is blue.", "rejected": "The sky is green."}]
UNPAIRED = [{"prompt": "The sky is", "completion": " blue.", "label": True},
            {"prompt": "The sky is", "completion": " green.", "label": False}]
UNPAIRED_CHAT = [{"prompt": _user("Sky?"), "completion": _assistant("Blue."), "label": True},
                 {"prompt": _user("Sky?"), "completion": _assistant("Red."), "label": False}]


@pytest.mark.parametrize("rows, fmt, chat", [
    (STANDARD, "preference", False), (CONVERSATIONAL, "preference", True),
    (IMPLICIT, "implicit preference", True), (IMPLICIT_STANDARD, "implicit preference", False),
    (UNPAIRED, "unpaired preference", False), (UNPAIRED_CHAT, "unpaired preference", True)])
def test_each_form_is_recognised(rows, fmt, chat):
    assert preference_format(rows) == fmt
    stage = "kto" if fmt == "unpaired preference" else "dpo"
    checked = check_preference_rows(rows, stage)
    assert is_conversational(checked) is chat and len(checked) == len(rows)
    if fmt != "unpaired preference":  # KTO's trainer unpairs paired rows itself
        assert check_preference_rows(rows, "kto") == checked
        assert check_preference_rows(rows, "orpo") == checked


def test_rows_come_out_in_trls_shape():
    rows = [{"id": 7, "prompt": [{"role": "User", "content": "Hi"}], "completion":
             _assistant("Hello."), "label": "TRUE"},
            {"id": 8, "prompt": _user("Hi"), "completion": _assistant("Go."), "label": "false"}]
    checked = check_preference_rows(rows, "kto")
    assert checked[0] == {"prompt": _user("Hi"), "completion": _assistant("Hello."),
                          "label": True}
    assert checked[1]["label"] is False


def _fails(rows, stage, *parts):
    with pytest.raises(DataError) as e:
        check_preference_rows(rows, stage)
    for part in parts:
        assert part in str(e.value), str(e.value)
    return str(e.value)


def test_bad_rows_name_the_row_and_the_fix():
    rows = STANDARD + [{"prompt": "Snow is", "chosen": "  ", "rejected": " white."}]
    _fails(rows, "dpo", "row 3: 'chosen' is empty.")
    rows = STANDARD + [{"prompt": "Snow is", "chosen": " white.", "rejected": " white. "}]
    _fails(rows, "dpo", "row 3: 'chosen' and 'rejected' are the same answer")
    rows = STANDARD + [{"prompt": "Snow is", "chosen": " white."}]
    _fails(rows, "dpo", "row 3: 'rejected' is missing.")
    rows = UNPAIRED + [{"prompt": "Snow is", "completion": " red.", "label": "maybe"}]
    _fails(rows, "kto", "row 3: 'label' must be true or false (it is 'maybe')")
    _fails(UNPAIRED + [{"prompt": "a", "completion": "b", "label": 1}], "kto",
           "row 3: 'label' must be true or false")
    _fails(UNPAIRED[:1], "kto", "Every label is true: KTO needs good answers (true) and bad")
    _fails([{"prompt": "Sky?", "chosen": _assistant("Blue."), "rejected": _assistant("Red.")}],
           "dpo", "row 1: 'prompt' is text but 'chosen' is messages")
    _fails(CONVERSATIONAL + STANDARD, "dpo", "Mixed forms: row 1 is messages but row 2 is text")
    _fails([{"prompt": [{"role": "system", "content": "Be brief."}], "chosen": _assistant("A"),
             "rejected": _assistant("B")}], "dpo",
           "row 1: the last message of 'prompt' is from system")
    _fails([{"prompt": [{"role": "pirate", "content": "Hi"}], "chosen": _assistant("A"),
             "rejected": _assistant("B")}], "dpo", "row 1: message 1 of 'prompt' has role "
           "'pirate'")
    _fails([{"chosen": _user("Sky?") + _assistant("Blue."),
             "rejected": _user("Sea?") + _assistant("Blue.")}], "dpo",
           "row 1: 'chosen' and 'rejected' do not start with the same prompt")
    _fails([{"chosen": "Blue.", "rejected": "Green."}], "orpo",
           "do not start with the same prompt")


def test_the_wrong_kind_of_data_says_what_it_is_for():
    message = _fails([{"text": "Once upon a time."}], "dpo",
                     "DPO needs prompt/chosen/rejected columns; this file has text "
                     "(plain text: the model learns every token), which is data for SFT: use "
                     "it for SFT, or add a chosen and a rejected answer to each prompt.")
    assert "row" not in message
    _fails([{"messages": _user("Hi") + _assistant("Hello")}], "kto",
           "KTO needs prompt/completion/label or prompt/chosen/rejected columns", "use it for SFT",
           "add a label, true or false")
    _fails([{"prompt": "Hi", "completion": "Hello"}], "orpo",
           "ORPO needs prompt/chosen/rejected columns", "prompt, completion")
    _fails(UNPAIRED, "dpo", "DPO needs prompt/chosen/rejected columns; this file has "
           "prompt/completion/label (unpaired preference, for KTO): choose KTO")
    _fails([{"question": "Hi", "answer": "Hello"}], "dpo", "this file has question, answer "
           "(a question and its answer, turned into prompt and completion), which is data "
           "for SFT")
    _fails([{"title": "Hi", "body": "Hello"}], "dpo",
           "this file has title, body. Rename its columns")
    _fails([], "dpo", "The dataset has no rows.")
    with pytest.raises(DataError, match="no preference data: its columns are text"):
        preference_format([{"text": "x"}])


def test_files_are_read_by_the_data_layer_and_named_by_line(tmp_path):
    path = tmp_path / "prefs.jsonl"
    rows = STANDARD + [{"prompt": "Snow is", "chosen": "", "rejected": " white."}]
    path.write_text("".join(json.dumps(r) + "\n\n" for r in rows))
    with pytest.raises(DataError, match=r"^prefs.jsonl line 5: 'chosen' is empty.$"):
        load_preference(str(path), RunConfig(), "dpo")
    csv = tmp_path / "kto.csv"
    csv.write_text("prompt,completion,label\nThe sky is, blue.,true\nThe sky is, red.,False\n")
    data = load_preference(str(csv), RunConfig(), "kto")
    assert data.format == "unpaired preference" and not data.conversational
    assert [r["label"] for r in data.rows] == [True, False]


def test_the_demo_set_is_well_formed_and_holds_its_prompts_out():
    rows = preference_demo_rows()
    assert 60 <= len(rows) <= 120
    data = load_preference(PREFERENCE_DEMO, RunConfig(), "dpo")
    assert data.format == "preference" and data.conversational and len(data.rows) == len(rows)
    prompts = {r["prompt"][0]["content"] for r in rows}
    assert len(prompts) == len(rows)  # no question twice
    for row in rows:
        chosen, rejected = row["chosen"][0]["content"], row["rejected"][0]["content"]
        assert chosen.startswith(OPEN) and chosen.endswith(CLOSE)
        assert not rejected.startswith(OPEN) and not rejected.endswith(CLOSE)
        assert rejected in chosen
    text = json.dumps(rows).lower()
    for prompt in HELD_OUT_PROMPTS:
        assert prompt not in prompts
    for word in ("italy", "spider", "cook"):
        assert word not in text
    unpaired = unpaired_demo_rows()
    assert len(unpaired) == 2 * len(rows)
    assert check_preference_rows(unpaired, "kto")[:2] == unpaired[:2]


# ---- TRL 1.16's trainers take the rows --------------------------------------------------
REWARDS = ("rewards/chosen", "rewards/rejected", "rewards/margins")


def _logged(trainer):
    logged = {}
    for entry in trainer.state.log_history:
        logged.update(entry)
    return logged


def _common(tmp_path):
    return dict(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=4,
                gradient_accumulation_steps=1, logging_steps=1, learning_rate=1e-3,
                use_cpu=True, bf16=False, fp16=False, report_to=[], save_strategy="no",
                max_length=64, dataset_num_proc=None)


def test_dpo_trains_two_steps_on_the_demo_rows(tiny_model_dir, tmp_path):
    from datasets import Dataset  # heavy: loaded by this test only
    from trl import DPOConfig, DPOTrainer  # heavy: loaded by this test only

    rows = load_preference(PREFERENCE_DEMO, RunConfig(), "dpo").rows[:16]
    trainer = DPOTrainer(model=tiny_model_dir, args=DPOConfig(**_common(tmp_path)),
                         train_dataset=Dataset.from_list(rows))
    trainer.train()
    logged = _logged(trainer)
    assert trainer.state.global_step == 2
    for key in REWARDS + ("rewards/accuracies",):
        assert key in logged and math.isfinite(logged[key]), (key, logged)


def test_kto_trains_two_steps_on_unpaired_rows(tiny_model_dir, tmp_path):
    from datasets import Dataset  # heavy: loaded by this test only
    from trl import KTOConfig, KTOTrainer  # heavy: loaded by this test only

    rows = check_preference_rows(unpaired_demo_rows()[:16], "kto")
    trainer = KTOTrainer(model=tiny_model_dir, args=KTOConfig(**_common(tmp_path)),
                         train_dataset=Dataset.from_list(rows))
    trainer.train()
    logged = _logged(trainer)
    assert trainer.state.global_step == 2
    for key in REWARDS:
        assert key in logged and math.isfinite(logged[key]), (key, logged)


def test_kto_rows_alternate_good_and_bad_whatever_the_file_order():
    """A file sorted by label (or pairs unpaired, all good then all bad) reaches KTO, which
    reads in order, with both kinds in every stretch of a batch's length."""
    from sft_ui.data.preference import interleaved_labels, unpaired
    rows = [{"prompt": f"q{i}", "completion": f"a{i}", "label": i < 8} for i in range(12)]
    out = interleaved_labels(rows, seed=3)
    assert sorted(r["prompt"] for r in out) == sorted(r["prompt"] for r in rows)
    assert out == interleaved_labels(rows, seed=3) != interleaved_labels(rows, seed=4)
    for start in range(0, len(out) - 3):
        assert {r["label"] for r in out[start:start + 4]} == {True, False}, out
    pairs = [{"prompt": "q", "chosen": "good", "rejected": "bad"}] * 3
    assert [r["label"] for r in unpaired(pairs)] == [True, False] * 3
    assert unpaired(pairs)[1] == {"prompt": "q", "completion": "bad", "label": False}
