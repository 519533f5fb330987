"""Today's chat templates as TRL ships them (tests/families.py TRL_FAMILIES: Qwen3 and
Nemotron 3 Nano with a thinking switch, DeepSeek-R1 distills, gpt-oss, Cohere 2, LFM2),
each on a tiny model, through every cell a person meets: the preview of conversations of
two answers with reasoning, SFT with every answer trained, Chat of three turns with
thinking on and off, Compare and Compare all, Evaluate, and the adapter, merged and GGUF
exports ending turns at the template's end. The time of each template's cells is printed
as a row of the matrix in docs/families.md."""
from __future__ import annotations

import json
import time

import pytest

from sft_ui.chat import ChatService, GenSettings
from sft_ui.chat.generation import chat_prompt
from sft_ui.config import RunConfig
from sft_ui.data.chat_habits import habits
from sft_ui.data.preview import preview
from sft_ui.data.thinking import switchable
from sft_ui.evaluate.job import Evaluator
from sft_ui.models import load_for_inference
from sft_ui.share.export import export_run
from tests.conftest import HANG, trained
from tests.families import TRL_FAMILIES, TinyFamily, bench_of, gguf_cell, jsonl_files, llama_cpp

SYSTEM = "Answer in one word."
TURNS = [{"role": "user", "content": "Hello there."},
         {"role": "assistant", "content": "Hi."},
         {"role": "user", "content": "Name a colour."},
         {"role": "assistant", "content": "Blue."}]
ASK = "Name a fruit."
QUICK = {"max_steps": 2, "per_device_train_batch_size": 2, "gradient_accumulation_steps": 1,
         "max_length": 1024, "learning_rate": 1e-3, "sample_steps": 1,
         "sample_max_new_tokens": 6, "save_strategy": "no", "use_peft": True, "lora_r": 4,
         "completion_only_loss": True}


def _files(folder):
    """Conversations of a system message and two exchanges whose second answer carries
    its reasoning in `reasoning_content`, and 4 test rows."""
    chats = [{"messages": [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"What is {n} plus {n}?"},
        {"role": "assistant", "content": str(2 * n)},
        {"role": "user", "content": f"And {n} times 3?"},
        {"role": "assistant", "content": str(3 * n),
         "reasoning_content": f"Three {n}s make {3 * n}."}]} for n in range(6)]
    tests = [{"prompt": f"What is {n} plus {n}?", "completion": str(2 * n)} for n in range(4)]
    return jsonl_files(folder, chats=chats, tests=tests)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    models, data, manager = bench_of(TRL_FAMILIES, tmp_path_factory.mktemp("trl_templates"))
    return models, _files(data), manager


@pytest.mark.parametrize("family", TRL_FAMILIES, ids=lambda f: f.name)
def test_every_cell_under_trls_template(family: TinyFamily, bench):
    models, files, manager = bench
    path, took, start = models[family.name], {}, time.monotonic()
    _, tokenizer = load_for_inference(path)
    found = habits(tokenizer)  # (a reply ends at a final answer's end, where there is one)
    assert (found.final_end or found.end_of_turn) == family.end_of_turn, found

    # The preview says every answer is trained and what becomes of the reasoning.
    shown = preview(RunConfig(model_name_or_path=path, dataset_name=str(files["chats"]),
                              completion_only_loss=True))
    said = " ".join(str(n) for n in shown["notes"])
    assert "All 12 answers in these 6 conversations are trained" in said, shown["notes"]
    assert "6 answers carry reasoning" in said, shown["notes"]

    # SFT with loss on every answer, and the samples.
    run = trained(manager, {**QUICK, "model_name_or_path": path,
                            "dataset_name": str(files["chats"])})
    snap = run.snapshot()
    assert len([m for m in snap["metrics"] if "loss" in m]) == 2
    assert {s["step"] for s in snap["samples"]} == {0, 1, 2}
    took["preview+sft"], t = time.monotonic() - start, time.monotonic()

    # Chat of three turns, thinking on and off: a template with the switch is asked
    # differently and says nothing; one without says the setting changes nothing.
    chat = ChatService(manager)
    model, tokenizer = chat.load(run.id)
    end = tokenizer.convert_tokens_to_ids(family.end_of_turn)
    ends = model.generation_config.eos_token_id
    assert end in (ends if isinstance(ends, list) else [ends]), ends
    seen = {}
    for choice in ("on", "off"):
        settings = GenSettings(system_prompt=SYSTEM, max_new_tokens=6, thinking=choice)
        reply = list(chat.stream(ASK, TURNS, run.id, settings))
        assert reply and isinstance(reply[-1], str)
        seen[choice] = chat_prompt(tokenizer, TURNS, ASK, settings)
        assert seen[choice].count(ASK) == 1 and SYSTEM in seen[choice]
        notes = " ".join(str(n) for n in chat.notes(ASK, TURNS, run.id, settings))
        assert ("no thinking switch" in notes) != switchable(tokenizer), notes
    assert (seen["on"] != seen["off"]) == switchable(tokenizer), seen
    took["chat"], t = time.monotonic() - t, time.monotonic()

    # Compare with the base, Compare all, Evaluate 4 rows, thinking off.
    off = GenSettings(max_new_tokens=6, thinking="off")
    pair = list(chat.compare(ASK, run.id, f"{run.id}/base", off))
    assert pair and all(isinstance(x, str) for x in pair[-1])
    rows = chat.compare_batch([ASK, "Name a tree."], run.id, f"{run.id}/base", 6,
                              thinking="off")
    assert [r["prompt"] for r in rows] == [ASK, "Name a tree."]
    evaluator = Evaluator(chat)
    job = evaluator.start([run.id], str(files["tests"]), settings=off)
    done = evaluator.wait(job, timeout=HANG)
    assert done["state"] == "done" and done["rows_answered"] == 4, done.get("error")
    took["compare+evaluate"], t = time.monotonic() - t, time.monotonic()

    # The adapter, the merged model (ending at the template's end), the GGUF file.
    assert (export_run(run) / "adapter_config.json").exists()
    merged = export_run(run, merged=True)
    saved = json.loads((merged / "generation_config.json").read_text())["eos_token_id"]
    assert end in (saved if isinstance(saved, list) else [saved])
    if llama_cpp is not None:
        gguf_cell(family, run, tokenizer.convert_tokens_to_ids(family.gguf_end or
                                                               family.end_of_turn), ASK)
    took["export"] = time.monotonic() - t
    took["all"] = time.monotonic() - start
    print(f"\n{family.name}: " + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()))
