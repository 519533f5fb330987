"""The GGUF export as llama.cpp itself runs it (llama-cpp-python, from requirements-test.txt):
a short LoRA run on the demo persona set that visibly learned ("Arr, matey!" where the base
model answers plainly) is exported to f16 and q8_0, each file is loaded by llama.cpp and
answers a chat prompt through llama.cpp's own handling of the chat template stored in the
file: with the learned answer (so the merged weights went in, not the base), and stopping
at the end-of-turn token.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from sft_ui.config import DEFAULT_MODEL_ID
from sft_ui.data.demo import CLOSE, OPEN
from sft_ui.models import prepare_default_model
from sft_ui.runs import RunManager
from sft_ui.share.gguf_export import export_gguf
from tests.conftest import HANG, wait_for

try:
    import llama_cpp
except ImportError:  # only `make test-deps` installs it
    llama_cpp = None

needs_llama_cpp = pytest.mark.skipif(
    llama_cpp is None, reason="llama-cpp-python is not installed (llama_cpp cannot be "
    "imported): `make test-deps` installs it from requirements-test.txt")

# Held out of the demo set (no training example names Italy): the style must carry over.
QUESTION = [{"role": "user", "content": "What is the capital of Italy?"}]
STYLE = OPEN  # "Arr, matey!": how every answer of the demo set starts ("Yo-ho-ho!" ends it)
SAME_TOKENS = 16  # the f16 file's answer is the merged model's for at least these tokens
MAX_TOKENS = 64


def _greedy(model_dir: Path, f16_weights: bool = False) -> tuple[list[int], str]:
    """The transformers greedy answer to QUESTION: its token ids (up to and with the
    end-of-turn token) and its text without special tokens."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    if f16_weights:  # as the f16 file holds them: the matrices in f16, the 1-D norms in f32
        with torch.no_grad():
            for weight in model.parameters():
                if weight.ndim >= 2:
                    weight.copy_(weight.half().float())
    enc = tokenizer.apply_chat_template(QUESTION, add_generation_prompt=True,
                                        return_tensors="pt", return_dict=True)
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=MAX_TOKENS, do_sample=False)
    ids = out[0, enc["input_ids"].shape[1]:].tolist()
    return ids, tokenizer.decode(ids, skip_special_tokens=True)


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    """A LoRA run of 12 steps at a high learning rate on the demo set (about a minute on
    two CPU cores), its merged export's greedy answer, and the base model's."""
    manager = RunManager(tmp_path_factory.mktemp("runs"))
    run_id = manager.start({"model_name_or_path": DEFAULT_MODEL_ID, "dataset_name": "demo",
                            "use_peft": True, "lora_r": 8, "lora_alpha": 16, "max_steps": 12,
                            "per_device_train_batch_size": 4,
                            "gradient_accumulation_steps": 1, "max_length": 64,
                            "learning_rate": 2e-3, "lr_scheduler_type": "constant",
                            "sample_steps": 0})
    wait_for(lambda: manager.get(run_id).state not in ("queued", "running"), timeout=2 * HANG)
    run = manager.get(run_id)
    assert run.state == "done", run.snapshot()["error"]
    from sft_ui.share.export import export_run
    merged = export_run(run, "", merged=True)  # what export_gguf converts
    base_ids, base_text = _greedy(prepare_default_model())
    ids, text = _greedy(merged)
    f16_ids, f16_text = _greedy(merged, f16_weights=True)
    print(f"\nbase: {base_text!r}\nlearned: {text!r}\nlearned, f16 weights: {f16_text!r}")
    # The run visibly learned: its answer has the persona's style, the base's has not.
    assert text.startswith(STYLE) and not base_text.startswith(STYLE), (base_text, text)
    assert base_ids[:SAME_TOKENS] != f16_ids[:SAME_TOKENS]
    return {"run": run, "merged": merged, "text": text, "f16_ids": f16_ids,
            "f16_text": f16_text}


def _chat(file: Path, messages: list[dict]) -> tuple[dict, dict, object]:
    """llama.cpp's greedy answer to a chat, with the file's chat template: (its choice,
    its usage, the model)."""
    llm = llama_cpp.Llama(model_path=str(file), n_ctx=256, n_threads=2, seed=0,
                          verbose=False)
    out = llm.create_chat_completion(messages=messages, temperature=0.0, max_tokens=MAX_TOKENS)
    return out["choices"][0], out["usage"], llm


def _assert_one_turn(choice: dict) -> str:
    """The answer ended at the end-of-turn token, with no text of a next turn."""
    text = choice["message"]["content"]
    assert choice["finish_reason"] == "stop", (choice["finish_reason"], text)
    for run_on in ("<|im_start|>", "<|im_end|>", "<|endoftext|>", "\nuser", "user\n",
                   "assistant\n"):
        assert run_on not in text, (run_on, text)
    return text


def _answer(learned: dict, quantisation: str):
    """The learned run exported as a `quantisation` GGUF file and asked QUESTION in
    llama.cpp: its one-turn answer, the token usage and the loaded model."""
    file, _ = export_gguf(learned["run"], "", quantisation)
    choice, usage, llm = _chat(file, QUESTION)
    text = _assert_one_turn(choice)
    print(f"\nllama.cpp {quantisation}: {text!r}")
    return text, usage, llm


@needs_llama_cpp
def test_llama_cpp_answers_the_f16_file_as_the_merged_model(learned):
    from transformers import AutoTokenizer
    text, usage, llm = _answer(learned, "f16")
    assert text.startswith(STYLE)
    # The merged model's own greedy answer (weights rounded to f16 as the file holds them).
    tokenizer = AutoTokenizer.from_pretrained(str(learned["merged"]))
    assert text.startswith(tokenizer.decode(learned["f16_ids"][:SAME_TOKENS]).strip())
    # And it ends as that answer ends: the persona's sign-off, then the end of the turn.
    assert learned["f16_ids"][-1] == tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert text.rstrip().endswith(CLOSE) and learned["f16_text"].rstrip().endswith(CLOSE)
    # llama.cpp formatted the chat with the template stored in the file (the tokenizer's,
    # not one of its built-in formats), into the tokenizer's prompt, token for token.
    assert llm.chat_format == "chat_template.default"
    assert llm.metadata["tokenizer.chat_template"] == tokenizer.chat_template
    prompt = tokenizer.apply_chat_template(QUESTION, tokenize=False, add_generation_prompt=True)
    ids = tokenizer(prompt)["input_ids"]
    assert llm.tokenize(prompt.encode(), add_bos=True, special=True) == ids
    assert usage["prompt_tokens"] == len(ids) and usage["completion_tokens"] < MAX_TOKENS


@needs_llama_cpp
def test_llama_cpp_answers_the_q8_0_file_in_the_learned_style(learned):
    text, usage, _ = _answer(learned, "q8_0")
    assert text.startswith(STYLE) and "Rome" in text
    assert usage["completion_tokens"] < MAX_TOKENS
