"""Exports of a LoRA run on the offline default model: GGUF files (f16 answers as the
merged model does, q8_0 is written and reads back) with their Ollama Modelfile, and an
adapter that loads offline, by the base's Hub id, in a fresh process."""
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from sft_ui.config import DEFAULT_MODEL_ID
from sft_ui.errors import UserError
from sft_ui.runs import RunManager
from sft_ui.share.export import export_run
from sft_ui.share.gguf_export import GgufError, convert, converter_dir, export_gguf
from sft_ui.share.modelfile import go_template, measure, render, write_modelfile
from tests.conftest import HANG, wait_for

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(scope="module")
def lora_run(tmp_path_factory):
    """One LoRA step on the default model (SmolLM2-135M-Instruct)."""
    manager = RunManager(tmp_path_factory.mktemp("runs"))
    run_id = manager.start({"model_name_or_path": DEFAULT_MODEL_ID, "use_peft": True,
                            "lora_r": 4, "lora_alpha": 8, "max_steps": 1,
                            "per_device_train_batch_size": 1,
                            "gradient_accumulation_steps": 1, "max_length": 64,
                            "sample_steps": 0, "learning_rate": 1e-4})
    wait_for(lambda: manager.get(run_id).state not in ("queued", "running"), timeout=HANG)
    run = manager.get(run_id)
    assert run.state == "done", run.snapshot()["error"]
    return run


def _greedy(model, tokenizer, n=16) -> list[int]:
    enc = tokenizer.apply_chat_template(QUESTION, add_generation_prompt=True,
                                        return_tensors="pt", return_dict=True)
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=n, do_sample=False)
    return out[0, enc["input_ids"].shape[1]:].tolist()


def _load_gguf(file: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    model = AutoModelForCausalLM.from_pretrained(str(file.parent), gguf_file=file.name,
                                                 dtype=torch.float32).eval()
    return model, AutoTokenizer.from_pretrained(str(file.parent), gguf_file=file.name)


def test_f16_gguf_answers_as_the_merged_model(lora_run):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    file, modelfile = export_gguf(lora_run, "", "f16")
    assert file.suffix == ".gguf" and file.parent == modelfile.parent
    merged = lora_run.dir / "export" / "merged"  # the folder the file was converted from
    reference = AutoModelForCausalLM.from_pretrained(str(merged), dtype=torch.float32).eval()
    with torch.no_grad():  # the f16 file holds the matrices in f16, the 1-D norms in f32
        for weight in reference.parameters():
            if weight.ndim >= 2:
                weight.copy_(weight.half().float())
    ref_tokenizer = AutoTokenizer.from_pretrained(str(merged))
    # The file holds the merged weights (the run's training in them), not the base's: a
    # matrix the LoRA step changed is the merged model's, in f16, and not the base's.
    import gguf
    from safetensors.torch import load_file

    from sft_ui.models import prepare_default_model
    stored = {t.name: t for t in gguf.GGUFReader(str(file)).tensors}["blk.0.ffn_down.weight"]
    stored = torch.from_numpy(stored.data.astype("float32"))
    base = load_file(str(prepare_default_model() / "model.safetensors"))
    assert torch.equal(stored, reference.model.layers[0].mlp.down_proj.weight)
    assert not torch.equal(stored, base["model.layers.0.mlp.down_proj.weight"].half().float())
    model, tokenizer = _load_gguf(file)
    assert tokenizer.chat_template == ref_tokenizer.chat_template  # kept in the file
    answer = _greedy(model, tokenizer)
    assert answer == _greedy(reference, ref_tokenizer)
    assert "Paris" in tokenizer.decode(answer)
    text = modelfile.read_text()
    assert text.startswith(f"FROM ./{file.name}\n")
    assert 'PARAMETER stop "<|im_end|>"' in text and "<|im_start|>assistant\n" in text
    assert 'SYSTEM """You are a helpful AI assistant named SmolLM' in text


def test_q8_0_gguf_is_written_and_reads_back(lora_run):
    import gguf
    file, _ = export_gguf(lora_run, "", "q8_0")
    full = (lora_run.dir / "export" / "merged" / "model.safetensors").stat().st_size
    assert file.stat().st_size < 0.35 * full  # 8 bits a weight, from fp32
    # Read with the studio's own gguf module: the converter's copy stayed apart.
    assert importlib.metadata.version("gguf") == "0.19.0"
    assert converter_dir().resolve() not in Path(gguf.__file__).resolve().parents
    reader = gguf.GGUFReader(str(file))
    field = reader.fields["general.file_type"]
    assert int(field.parts[-1][0]) == gguf.LlamaFileType.MOSTLY_Q8_0
    # Its matrices are 8-bit blocks, read back as the merged model's weights within the
    # rounding of 8 bits (the file's answers in llama.cpp: tests/share/test_gguf_llama_cpp.py;
    # loading it in transformers took 11 s of dequantising)
    stored = {t.name: t for t in reader.tensors}["blk.0.ffn_down.weight"]
    assert stored.tensor_type == gguf.GGMLQuantizationType.Q8_0
    from safetensors.torch import load_file
    merged = load_file(str(lora_run.dir / "export" / "merged" / "model.safetensors"))
    weight = merged["model.layers.0.mlp.down_proj.weight"].float()
    back = torch.from_numpy(gguf.dequantize(stored.data, stored.tensor_type).copy()).float()
    assert back.shape == weight.shape
    assert (back - weight).abs().max() <= weight.abs().max() / 100


def test_modelfile_template_writes_what_the_chat_template_writes(tiny_model_dir, tmp_path):
    from transformers import AutoTokenizer
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    shape = measure(tokenizer)
    assert shape is not None and shape.after == "<|im_end|>\n"
    for messages in ([{"role": "user", "content": "Hi"}],
                     [{"role": "system", "content": "Be kind."},
                      {"role": "user", "content": "Hi"},
                      {"role": "assistant", "content": "Hello."},
                      {"role": "user", "content": "Two\nlines"}]):
        assert render(shape, messages) == tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True)
    template = go_template(shape)
    assert template.count("{{ .Content }}") == 1 and "<|im_start|>user\n" in template
    # A template with per-turn logic is not copied: Ollama reads the one in the GGUF file.
    tokenizer.chat_template = ("{% for m in messages %}{{ loop.index }}. {{ m['role'] }}: "
                               "{{ m['content'] }}\n{% endfor %}")
    assert measure(tokenizer) is None
    folder = tmp_path / "model"
    tokenizer.save_pretrained(folder)
    (folder / "config.json").write_text(json.dumps({"max_position_embeddings": 512}))
    text = write_modelfile(tmp_path, "m.gguf", folder).read_text()
    assert "TEMPLATE" not in text and "stored in the GGUF file" in text
    assert "PARAMETER num_ctx 512" in text


def test_gguf_problems_get_clear_messages(lora_run, tmp_path, monkeypatch):
    with pytest.raises(GgufError, match="Unknown GGUF quantisation 'q3'"):
        export_gguf(lora_run, "", "q3")
    with pytest.raises(GgufError, match="BitNet"):
        export_gguf(lora_run, "", "tq1_0")
    with pytest.raises(UserError, match="no checkpoint 'checkpoint-99'"):
        export_gguf(lora_run, "checkpoint-99", "f16")
    # A model the converter does not know: its own reason reaches the person.
    unknown = tmp_path / "unknown"
    unknown.mkdir()
    (unknown / "config.json").write_text(json.dumps({"architectures": ["NoSuchNetForLM"]}))
    target = tmp_path / "out.gguf"
    with pytest.raises(GgufError, match="NoSuchNetForLM") as e:
        convert(converter_dir() / "convert_hf_to_gguf.py", unknown, target, "f16", "x")
    assert "conversion (f16) failed" in str(e.value) and not list(tmp_path.glob("out.gguf*"))
    monkeypatch.setenv("SFT_UI_GGUF_CONVERTER", str(tmp_path / "nowhere"))
    with pytest.raises(GgufError, match="converter is not installed"):
        export_gguf(lora_run, "", "f16")


def test_exported_adapter_loads_offline_by_the_hub_id(lora_run, tmp_path, monkeypatch):
    """As a new user would: export the adapter, then in a fresh process without the Hub
    (HF_HUB_OFFLINE=1, the same HF_HOME) load it with peft alone and generate."""
    from huggingface_hub import constants

    from sft_ui.models import load_model_and_tokenizer
    home = tmp_path / "hf-home"
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(home / "hub"))
    folder = export_run(lora_run)
    config = json.loads((folder / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == DEFAULT_MODEL_ID  # right for sharing
    model, tokenizer = load_model_and_tokenizer(str(lora_run.model_dir))
    expected = _greedy(model.eval(), tokenizer, 8)
    code = (
        "import json, sys, torch\n"
        "from peft import AutoPeftModelForCausalLM\n"
        "from transformers import AutoTokenizer\n"
        "m = AutoPeftModelForCausalLM.from_pretrained(sys.argv[1]).eval()\n"
        "t = AutoTokenizer.from_pretrained(sys.argv[1])\n"
        "e = t.apply_chat_template(json.loads(sys.argv[2]), add_generation_prompt=True,\n"
        "                          return_tensors='pt', return_dict=True)\n"
        "out = m.generate(**e, max_new_tokens=8, do_sample=False)\n"
        "print(json.dumps(out[0, e['input_ids'].shape[1]:].tolist()))\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE")}
    env.update(HF_HOME=str(home), HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", code, str(folder), json.dumps(QUESTION)],
                          capture_output=True, text=True, env=env, timeout=HANG,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == expected
