"""Every family people pick, on a tiny model of its own (tests/families.py: the family's
architecture, special tokens and chat-template habits): SFT with its samples, DPO and
GRPO for 2 steps each, Chat with and without a system prompt over three turns, Compare,
Evaluate, the adapter and merged exports and the GGUF file loaded in llama.cpp, ending
its turns at the family's own token. Each cell passes, or its message says what the
model does not allow and what to do. The tiny templates' habits are those of the
families' real templates (TRL's copies). The time of each family's cells is printed as a
row of the matrix in docs/families.md."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sft_ui.chat import ChatService, GenSettings
from sft_ui.chat.generation import chat_prompt
from sft_ui.config import RunConfig
from sft_ui.data.chat_habits import habits
from sft_ui.data.preview import preview
from sft_ui.evaluate.job import Evaluator
from sft_ui.models import load_for_inference, prepare_default_model
from sft_ui.plan import memory
from sft_ui.share.export import export_run
from tests.conftest import HANG, trained
from tests.families import FAMILIES, TinyFamily, bench_of, gguf_cell, jsonl_files, llama_cpp

SYSTEM = "Answer in one word."
TURNS = [{"role": "user", "content": "Hello there."},
         {"role": "assistant", "content": "Hi."},
         {"role": "user", "content": "Name a colour."},
         {"role": "assistant", "content": "Blue."}]
ASK = "Name a fruit."
QUICK = {"max_steps": 2, "per_device_train_batch_size": 2, "gradient_accumulation_steps": 1,
         "max_length": 64, "learning_rate": 1e-3, "sample_steps": 0, "save_strategy": "no"}


def _files(folder: Path) -> dict[str, Path]:
    """Conversations with a system message and a user turn twice in a row (which a
    template may refuse), preference pairs asked with a system message, and 4 test rows."""
    chats = [{"messages": [{"role": "system", "content": SYSTEM},
                           {"role": "user", "content": f"What is {n} plus {n}?"},
                           {"role": "assistant", "content": str(2 * n)}]} for n in range(6)]
    chats.append({"messages": [{"role": "user", "content": "Hello."},
                               {"role": "user", "content": "Are you there?"},
                               {"role": "assistant", "content": "Yes."}]})
    pairs = [{"prompt": [{"role": "system", "content": SYSTEM},
                         {"role": "user", "content": f"Is {n} even?"}],
              "chosen": [{"role": "assistant", "content": "yes" if n % 2 == 0 else "no"}],
              "rejected": [{"role": "assistant", "content": "no" if n % 2 == 0 else "yes"}]}
             for n in range(4)]
    tests = [{"prompt": f"What is {n} plus {n}?", "completion": str(2 * n)} for n in range(4)]
    return jsonl_files(folder, chats=chats, pairs=pairs, tests=tests)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """The tiny models (one folder per family), the data files and one run manager."""
    models, data, manager = bench_of(FAMILIES, tmp_path_factory.mktemp("families"))
    return models, _files(data), manager


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_every_cell_of_the_family(family: TinyFamily, bench):
    models, files, manager = bench
    path, took = models[family.name], {}
    start = time.monotonic()

    # The template's habits, as measured, are the family's.
    _, tokenizer = load_for_inference(path)
    found = habits(tokenizer)
    assert (found.system, found.alternates, found.end_of_turn, found.answer_marks,
            found.dated, bool(found.default_system)) == \
        (family.system, family.alternates, family.end_of_turn, family.marks, family.dated,
         family.default_system), found

    # The data preview shows each row as the model sees it, the system text kept.
    shown = preview(RunConfig(model_name_or_path=path, dataset_name=str(files["chats"])))
    assert SYSTEM in shown["examples"][0]["text"], shown["examples"][0]["text"]
    if family.system == "refused":
        assert any("no system role" in n for n in shown["notes"]), shown["notes"]

    # SFT on conversations with a system message, and the samples.
    sft = trained(manager, {**QUICK, "model_name_or_path": path,
                            "dataset_name": str(files["chats"]),
                            "sample_steps": 1, "sample_max_new_tokens": 6,
                            "use_peft": True, "lora_r": 4})
    snap = sft.snapshot()
    assert len([m for m in snap["metrics"] if "loss" in m]) == 2
    assert {s["step"] for s in snap["samples"]} == {0, 1, 2}
    log = snap["log"]  # what the page's log panel shows
    if family.system == "refused":
        assert "no system role" in log, log[-2000:]
    if family.alternates:
        assert "turns of one role in a row were joined" in log, log[-2000:]
    took["sft"] = time.monotonic() - start

    # DPO on pairs asked with a system message; GRPO on the demo problems.
    t = time.monotonic()
    trained(manager, {**QUICK, "model_name_or_path": path, "stage": "dpo",
                      "dataset_name": str(files["pairs"])})
    took["dpo"], t = time.monotonic() - t, time.monotonic()
    trained(manager, {**QUICK, "model_name_or_path": path, "stage": "grpo",
                      "dataset_name": "demo-grpo", "num_generations": 2,
                      "max_completion_length": 8, "max_train_samples": 4})
    took["grpo"], t = time.monotonic() - t, time.monotonic()

    # Chat: three turns, with and without a system prompt; the reply ends at the
    # family's end of turn (in the generation config the run saved, whatever the base's).
    chat = ChatService(manager)
    model, tokenizer = chat.load(sft.id)
    end = tokenizer.convert_tokens_to_ids(family.end_of_turn)
    ends = model.generation_config.eos_token_id
    assert end in (ends if isinstance(ends, list) else [ends]), ends
    for system in (SYSTEM, ""):
        settings = GenSettings(system_prompt=system, max_new_tokens=6)
        reply = list(chat.stream(ASK, TURNS, sft.id, settings))
        assert reply and isinstance(reply[-1], str)
        seen = chat_prompt(tokenizer, TURNS, ASK, settings)
        assert seen.count("Name a colour.") == 1 and seen.count(ASK) == 1
        said = chat.notes(ASK, TURNS, sft.id, settings)
        if system:
            assert SYSTEM in seen  # never dropped
            if family.system == "refused":
                assert seen.index(SYSTEM) > seen.index(TURNS[0]["content"]) - len(SYSTEM) - 4
                assert said and "no system role" in said[0]
            else:
                assert not said, said
    took["chat"], t = time.monotonic() - t, time.monotonic()

    # Compare the run with its base; Evaluate 4 rows.
    pair = list(chat.compare(ASK, sft.id, f"{sft.id}/base",
                             GenSettings(system_prompt=SYSTEM, max_new_tokens=6)))
    assert pair and all(isinstance(x, str) for x in pair[-1])
    evaluator = Evaluator(chat)
    job = evaluator.start([sft.id], str(files["tests"]), settings=GenSettings(max_new_tokens=6))
    done = evaluator.wait(job, timeout=HANG)
    assert done["state"] == "done" and done["rows_answered"] == 4, done.get("error")
    took["compare+evaluate"], t = time.monotonic() - t, time.monotonic()

    # The adapter, the merged model, and the GGUF file in llama.cpp.
    adapter = export_run(sft)
    assert (adapter / "adapter_config.json").exists()
    merged = export_run(sft, merged=True)
    assert (merged / "config.json").exists() and not (merged / "adapter_config.json").exists()
    saved = json.loads((merged / "generation_config.json").read_text())["eos_token_id"]
    assert end in (saved if isinstance(saved, list) else [saved])
    took["export"], t = time.monotonic() - t, time.monotonic()
    if llama_cpp is not None:
        gguf_cell(family, sft, end, ASK)
        took["gguf"] = time.monotonic() - t
    took["all"] = time.monotonic() - start
    print(f"\n{family.name}: " + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()))


# The families' own chat templates as TRL ships them (trl/chat_templates/), and the tiny
# family whose template of this suite's writing should have the same habits.
REAL_TEMPLATES = [("qwen2_5", "qwen2.5"), ("qwen3_training", "qwen3"), ("llama3_2", "llama3.2"),
                  ("gemma", "gemma2"), ("gemma3", "gemma3"), ("phi3", "phi3")]


@pytest.mark.parametrize("template, name", REAL_TEMPLATES, ids=[t for t, _ in REAL_TEMPLATES])
def test_the_real_templates_have_the_habits_of_the_tiny_ones(template, name):
    """chat_habits measures each family's real template (TRL's copy) as the tiny model's:
    the tiny templates stand for the real ones, and the measure reads the real ones."""
    import trl
    from transformers import AutoTokenizer
    family = next(f for f in FAMILIES if f.name == name)
    tokenizer = AutoTokenizer.from_pretrained(str(prepare_default_model()))
    named = [t for t in family.tokens.values() if t]
    tokenizer.add_tokens([t for t in dict.fromkeys([*named, *family.specials,
                                                     family.end_of_turn])
                          if t not in tokenizer.get_vocab()], special_tokens=True)
    for key, value in family.tokens.items():
        setattr(tokenizer, key, value)
    tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" /
                               f"{template}.jinja").read_text(encoding="utf-8")
    found = habits(tokenizer)
    assert (found.system, found.alternates, found.end_of_turn, found.answer_marks,
            found.dated, bool(found.default_system)) == \
        (family.system, family.alternates, family.end_of_turn, family.marks, family.dated,
         family.default_system), found


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_the_planner_counts_each_familys_tiny_model(family: TinyFamily, bench):
    """The plan's weights and LoRA adapter for each tiny model are the ones the model
    has (its parameters; peft's trainable parameters on every linear layer)."""
    from peft import LoraConfig, get_peft_model
    models, _, _ = bench
    model, _ = load_for_inference(models[family.name])
    shape = memory.model_shape(models[family.name])
    counted = sum(p.numel() for p in model.parameters())
    assert abs(shape.params() / counted - 1) < 0.02, (shape.params(), counted)
    lora = get_peft_model(model, LoraConfig(r=4, target_modules="all-linear",
                                            task_type="CAUSAL_LM"))
    trainable = sum(p.numel() for p in lora.parameters() if p.requires_grad)
    assert abs(shape.adapter_params(4, "all-linear") / trainable - 1) < 0.02, \
        (shape.adapter_params(4, "all-linear"), trainable)
