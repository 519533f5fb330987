"""Take a run elsewhere: the settings as a YAML file that `trl sft --config` reads, a
complete Python script using TRL's API, the equivalent `trl sft` command line, and
the `accelerate launch` command for several GPUs or machines.

TRL reads the keys it knows and ignores the studio's own (sample prompts, data
format...); the studio reads both. Knows nothing of Gradio.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import yaml

from sft_ui.backends.processes import accelerate_settings
from sft_ui.config import DEMO_DATASET, RunConfig
from sft_ui.config.registry import studio_names
from sft_ui.config.trl import flat, has_eval_data
from sft_ui.data import DataError, load_data
from sft_ui.plan.hardware import detect
from sft_ui.train.arguments import to_trl

HEADER = ("# SFT Studio run settings. `trl sft --config THIS_FILE` reads the TRL keys and\n"
          "# ignores the studio's own; `python -m sft_ui train --config THIS_FILE` reads all.\n")


def trl_values(cfg: RunConfig) -> dict:
    """The settings `trl sft` reads, as to_trl writes them for this machine; eval only with
    an eval split (the one eval source `trl sft` knows)."""
    return flat(to_trl(cfg, has_eval=bool(cfg.dataset_test_split.strip())))


def studio_values(cfg: RunConfig) -> dict:
    return {name: getattr(cfg, name) for name in studio_names()}


def to_yaml(cfg: RunConfig) -> str:
    """One YAML file for both `trl sft --config` and the studio."""
    body = yaml.safe_dump(trl_values(cfg), sort_keys=False, allow_unicode=True)
    studio = yaml.safe_dump(studio_values(cfg), sort_keys=False, allow_unicode=True)
    return f"{HEADER}{body}# Studio settings (trl sft ignores these)\n{studio}"


def trl_command(cfg: RunConfig, config_file: str = "sft.yaml") -> str:
    """`trl sft` with every TRL setting on the command line."""
    lines = ["trl sft"]
    for key, value in trl_values(cfg).items():
        if value is None or value == "":
            continue
        values = value if isinstance(value, list) else [value]
        lines.append(f"--{key} " + " ".join(shlex.quote(str(v)) for v in values))
    lines.append("--output_dir sft-output")
    note = ("# The demo set is the studio's own: use a Hub id or a data folder with trl sft.\n"
            if cfg.dataset_name == DEMO_DATASET else "")
    return f"{note}# or: trl sft --config {config_file}\n" + " \\\n    ".join(lines)


def accelerate_config(num_processes: int, num_machines: int = 1,
                      strategy: str = "ddp") -> str:
    """accelerate's config file for `num_machines` machines x `num_processes` processes
    each, DDP or FSDP: the settings a run the app launches uses (accelerate_settings)."""
    values = accelerate_settings(num_processes, strategy, num_machines)
    if values["num_machines"] > 1:
        values.update(main_process_ip="MAIN_MACHINE_IP", main_process_port=29500)
    return yaml.safe_dump(values, sort_keys=False)


def accelerate_command(cfg: RunConfig, num_machines: int = 1,
                       config_file: str = "sft.yaml") -> str:
    """Run the studio's CLI on several GPUs and machines through accelerate: its config
    file (written by the command itself, for cfg's Processes and Strategy on each
    machine) and the launch, the same on every machine but for --machine_rank."""
    machines = max(1, int(num_machines))
    processes = cfg.processes(detect().devices)
    text = accelerate_config(processes, machines, cfg.distributed)
    notes = []
    if cfg.num_processes is None:
        notes.append(f"# num_processes: Processes is auto, one per GPU of this machine "
                     f"({processes}); set Processes to the GPUs of each machine there.")
    if machines > 1:
        notes.append("# Run on every machine, with --machine_rank 0 on the main one (whose "
                     "address replaces MAIN_MACHINE_IP) and 1, 2, ... on the others.")
    launch = ["accelerate launch --config_file accelerate.yaml"]
    if machines > 1:
        launch.append("--machine_rank 0")
    launch.append(f"-m sft_ui train --config {config_file}")
    return "".join(n + "\n" for n in notes) + \
        f"cat > accelerate.yaml <<'EOF'\n{text}EOF\n" + " \\\n    ".join(launch)


def _load_code(cfg: RunConfig, name: str, split: str, var: str = "dataset") -> list[str]:
    if name == DEMO_DATASET:
        return ["from sft_ui.data.demo import demo_rows  # the studio's demo set",
                f"{var} = Dataset.from_list(demo_rows())"]
    path = Path(name).expanduser()
    if path.is_dir():
        return [f"{var} = load_from_disk({str(path)!r})",
                f"if isinstance({var}, DatasetDict):\n    {var} = {var}[{split!r}]"]
    builder = {".jsonl": "json", ".json": "json", ".csv": "csv", ".tsv": "csv",
               ".parquet": "parquet", ".txt": "text"}.get(path.suffix.lower())
    if path.exists() and builder:
        extra = ', delimiter="\\t"' if path.suffix.lower() == ".tsv" else ""
        return [f"{var} = load_dataset({builder!r}, data_files={str(path)!r}, "
                f"split=\"train\"{extra})"]
    config = f", {cfg.dataset_config!r}" if cfg.dataset_config else ""
    return [f"{var} = load_dataset({name!r}{config}, split={split!r})"]


def _data_format(cfg: RunConfig) -> str:
    """The format the studio would use: chosen, or detected on local data."""
    if cfg.dataset_format != "auto":
        return cfg.dataset_format
    try:
        return load_data(cfg).format
    except (DataError, OSError):
        return "auto"  # a Hub dataset: TRL detects its format itself


FORMAT_CODE = {
    "alpaca": ["def to_prompt_completion(row):",
               '    user = row["instruction"] + ("\\n\\n" + row["input"] if row.get("input") '
               'else "")',
               '    return {"prompt": [{"role": "user", "content": user}],',
               '            "completion": [{"role": "assistant", '
               '"content": row["output"]}]}',
               "", "dataset = dataset.map(to_prompt_completion, "
               "remove_columns=dataset.column_names)"],
    "template": ["TEMPLATE = {template!r}", "dataset = dataset.map(lambda row: {{\"text\": "
                 "TEMPLATE.format_map(row)}}, remove_columns=dataset.column_names)"],
    "last-reply": ["def last_reply_only(row):  # loss on the last assistant reply",
                   "    return {\"prompt\": row[\"messages\"][:-1], "
                   "\"completion\": row[\"messages\"][-1:]}",
                   "", "dataset = dataset.map(last_reply_only, "
                   "remove_columns=dataset.column_names)"],
}


def python_script(cfg: RunConfig, output_dir: str = "sft-output") -> str:
    """A complete script with the current TRL API that trains like the studio would."""
    args = to_trl(cfg)  # the script reads the eval data the studio would
    values = flat(args)
    data = ["# Data"] + _load_code(cfg, cfg.dataset_name, cfg.dataset_train_split)
    fmt = _data_format(cfg)
    if fmt == "alpaca":
        data += FORMAT_CODE["alpaca"]
    elif fmt == "template":
        data += [line.format(template=cfg.dataset_template) for line in FORMAT_CODE["template"]]
    elif fmt == "messages" and cfg.completion_only_loss:
        data += FORMAT_CODE["last-reply"]
    has_eval = has_eval_data(cfg)
    if cfg.eval_fraction > 0:
        data += [f"split = dataset.train_test_split(test_size={cfg.eval_fraction}, "
                 f"seed={cfg.seed})", "dataset, eval_dataset = split[\"train\"], split[\"test\"]"]
    elif has_eval:
        data += _load_code(cfg, cfg.eval_dataset_name.strip() or cfg.dataset_name,
                           cfg.dataset_test_split.strip() or "test", "eval_dataset")
    else:
        data.append("eval_dataset = None")
    if cfg.max_train_samples:
        data.append(f"dataset = dataset.select(range(min({cfg.max_train_samples}, "
                    "len(dataset))))")
    sft = dict(args["train"])
    if fmt == "template":
        sft["dataset_text_field"] = "text"
    arg_lines = "\n".join(f"    {k}={_py(v)}," for k, v in sft.items() if v is not None)
    peft = "peft_config = None"
    if cfg.use_peft:
        targets = values["lora_target_modules"]
        peft = (f"peft_config = LoraConfig(r={cfg.lora_r}, lora_alpha={cfg.lora_alpha}, "
                f"lora_dropout={cfg.lora_dropout}, target_modules={_py(targets)}, "
                "task_type=\"CAUSAL_LM\")")
    return "\n".join([
        '"""Fine-tune with TRL\'s SFTTrainer: the settings of an SFT Studio run."""',
        "from datasets import Dataset, DatasetDict, load_dataset, load_from_disk",
        "from peft import LoraConfig",
        "from transformers import AutoModelForCausalLM, AutoTokenizer",
        "from trl import SFTConfig, SFTTrainer", "",
        f"model_id = {cfg.model_name_or_path!r}",
        f"tokenizer = AutoTokenizer.from_pretrained(model_id, "
        f"trust_remote_code={cfg.trust_remote_code})",
        *_model_code(cfg, values), "",
        *data, "",
        f"args = SFTConfig(\n    output_dir={output_dir!r},\n{arg_lines}\n)", peft, "",
        "trainer = SFTTrainer(model=model, args=args, train_dataset=dataset,",
        "                     eval_dataset=eval_dataset, processing_class=tokenizer,",
        "                     peft_config=peft_config)",
        "trainer.train()",
        "trainer.save_model(args.output_dir)",
        "tokenizer.save_pretrained(args.output_dir)", ""])


def _model_code(cfg: RunConfig, values: dict) -> list[str]:
    """Loading the model as the run does: QLoRA keeps the base in 4 bits on the GPU."""
    if not (cfg.use_peft and cfg.load_in_4bit):
        return [f"model = AutoModelForCausalLM.from_pretrained(model_id, "
                f"trust_remote_code={cfg.trust_remote_code})"]
    half = "torch.float16" if values["fp16"] else "torch.bfloat16"
    return ["import torch", "from transformers import BitsAndBytesConfig",
            f"quantization = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", "
            f"bnb_4bit_compute_dtype={half}, bnb_4bit_use_double_quant=True)",
            f"model = AutoModelForCausalLM.from_pretrained(model_id, dtype={half}, "
            f"quantization_config=quantization, device_map={{\"\": 0}}, "
            f"trust_remote_code={cfg.trust_remote_code})"]


def _py(value) -> str:
    if isinstance(value, str):
        return repr(value)
    return json.dumps(value) if isinstance(value, list) else repr(value)
