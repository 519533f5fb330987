"""Take a run elsewhere ("Show code"): the settings as a YAML file the stage's `trl` command and
the studio both read, a Python script using TRL's API, the `trl` command line, and the
`accelerate launch` command for several GPUs or machines. Knows nothing of Gradio.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import yaml

from sft_ui.backends.processes import accelerate_settings
from sft_ui.config import RunConfig
from sft_ui.config.registry import applies, studio_names
from sft_ui.config.trl import flat, has_eval_data
from sft_ui.data import DataError, load_data
from sft_ui.data.formats import question_answer
from sft_ui.data.load import read_source
from sft_ui.plan.hardware import detect
from sft_ui.stages import SUPERVISED, demos, family_of, hook, stage_of
from sft_ui.train.arguments import to_trl

HEADER = ("# SFT Studio run settings. `trl sft --config THIS_FILE` reads the TRL keys and\n"
          "# ignores the studio's own; `python -m sft_ui train --config THIS_FILE` reads all.\n")


def trl_values(cfg: RunConfig) -> dict:
    """The settings the stage's `trl` command reads, as to_trl writes them for this
    machine; eval only with an eval split (the one eval source `trl sft` knows; a
    preference run has no eval data)."""
    return flat(to_trl(cfg, has_eval=stage_of(cfg).eval_data and
                       bool(cfg.dataset_test_split.strip())))


def studio_values(cfg: RunConfig) -> dict:
    """The studio's own settings that apply to cfg's stage (the stage among them)."""
    return {name: getattr(cfg, name) for name in studio_names() if applies(name, cfg.stage)}


def trl_cli(cfg: RunConfig) -> str | None:
    """TRL's command for cfg's stage ("trl sft", "trl dpo", "trl kto": each reads
    ScriptArguments, ModelConfig and the stage's Config from one file); None for a stage
    TRL 1.16 has no command for (ORPO)."""
    return f"trl {cfg.stage}" if stage_of(cfg).cli else None


def _header(cfg: RunConfig) -> str:
    command, stage = trl_cli(cfg), stage_of(cfg)
    if command and stage.family == SUPERVISED:
        return HEADER.replace("trl sft", command)
    if command is None:
        text = (f"# SFT Studio run settings, stage {cfg.stage}. TRL 1.16 has no `trl "
                f"{cfg.stage}` command\n# ({stage.title} is in trl.experimental): "
                "`python -m sft_ui train --config THIS_FILE` reads\n# all, or run the Python "
                "script of Show code.\n")
    else:
        text = (f"# SFT Studio run settings, stage {cfg.stage}. `{command} --config THIS_FILE` "
                "reads the TRL\n# keys and ignores the studio's own; `python -m sft_ui train "
                "--config THIS_FILE` reads all.\n")
    note = hook(stage, "yaml_note")  # what its family's file says of itself
    if command and note:
        text += note(cfg, command)
    if command and stage.sft_term and cfg.loss_type == "auto":
        text += ("# Loss type auto: the studio adds the SFT term on the chosen answers when "
                 "the starting\n# model does not write them yet (the run's log says); "
                 f"{command} trains with sigmoid.\n# For both: loss_type: [sigmoid, sft] "
                 "with loss_weights: [1.0, 1.0]")
        rate = stage.sft_term_rate(cfg.use_peft, cfg.learning_rate)
        text += (f",\n# learning_rate: {rate:g} (the studio's rate with the term).\n"
                 if rate != cfg.learning_rate else ".\n")
    if command and cfg.ref_model.strip():
        text += (f"# ref_model is the studio's own: {command} keeps the model it starts from "
                 "as the\n# reference; the studio and the Python script load ref_model "
                 "instead.\n")
    return text


def to_yaml(cfg: RunConfig) -> str:
    """One YAML file for both the stage's `trl` command (`--config`) and the studio: TRL
    reads the keys it knows and ignores the studio's own; the studio reads both. It holds
    the settings of the run's stage only (config/registry.py's `applies`); an ORPO run's
    file, which no `trl` command reads, is for the studio's command line."""
    body = yaml.safe_dump(trl_values(cfg), sort_keys=False, allow_unicode=True)
    studio = yaml.safe_dump(studio_values(cfg), sort_keys=False, allow_unicode=True)
    ignored = f"{trl_cli(cfg)} ignores these" if trl_cli(cfg) else "TRL's parsers ignore these"
    return f"{_header(cfg)}{body}# Studio settings ({ignored})\n{studio}"


def trl_command(cfg: RunConfig, config_file: str | None = None) -> str:
    """The stage's `trl` command with every TRL setting on the command line; for a stage
    with no command (ORPO), the studio's own."""
    config_file = config_file or f"{cfg.stage}.yaml"
    command = trl_cli(cfg)
    if command is None:
        return (f"# TRL 1.16 has no `trl {cfg.stage}` command ({stage_of(cfg).title} is in "
                "trl.experimental):\n# run the Python script, or the studio's own command "
                "line with the settings file:\n"
                f"python -m sft_ui train --config {config_file}")
    lines = [command]
    for key, value in trl_values(cfg).items():
        if value is None or value == "":
            continue
        values = value if isinstance(value, list) else [value]
        lines.append(f"--{key} " + " ".join(shlex.quote(str(v)) for v in values))
    lines.append(f"--output_dir {cfg.stage}-output")
    notes = ""
    if cfg.dataset_name.strip() in demos():  # the studio's own: no TRL command has them
        notes += (f"# The demo set is the studio's own: use a Hub id or a data folder with "
                  f"{command}.\n")
    if stage_of(cfg).reference and cfg.ref_model.strip():
        notes += (f"# {command} keeps the starting model as the reference; for ref_model "
                  f"({cfg.ref_model.strip()})\n# use the Python script or the studio.\n")
    return f"{notes}# or: {command} --config {config_file}\n" + " \\\n    ".join(lines)


def accelerate_config(num_processes: int, num_machines: int = 1,
                      strategy: str = "ddp") -> str:
    """accelerate's config file for `num_machines` machines x `num_processes` processes
    each, DDP or FSDP: the settings a run the app launches uses (accelerate_settings)."""
    values = accelerate_settings(num_processes, strategy, num_machines)
    if values["num_machines"] > 1:
        values.update(main_process_ip="MAIN_MACHINE_IP", main_process_port=29500)
    return yaml.safe_dump(values, sort_keys=False)


def accelerate_command(cfg: RunConfig, num_machines: int = 1,
                       config_file: str | None = None) -> str:
    """Run the studio's CLI on several GPUs and machines through accelerate: its config
    file (written by the command itself, for cfg's Processes and Strategy on each
    machine) and the launch, the same on every machine but for --machine_rank. The
    settings file is the one Save writes (sft.yaml, dpo.yaml, ...)."""
    config_file = config_file or f"{cfg.stage}.yaml"
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


def load_code(cfg: RunConfig, name: str, split: str, var: str = "dataset") -> list[str]:
    reader = demos().get(name)
    if reader:
        module, function, what = family_of(reader).demo_code
        return [f"from {module} import {function}  # the studio's {what}",
                f"{var} = Dataset.from_list({function}())"]
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


def _question_answer(cfg: RunConfig, fmt: str) -> tuple[str, str]:
    """The columns holding the question and the answer of prompt/completion-like data."""
    if fmt == "prompt/completion":
        return "prompt", "completion"
    try:
        return question_answer(read_source(cfg.dataset_name, cfg,
                                           cfg.dataset_train_split).columns) \
            or ("question", "answer")
    except (DataError, OSError):
        return "question", "answer"


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
    "question-answer": [
        "def to_prompt_completion(row):  # the question as the user's turn, as Chat asks",
        "    if {chat} and tokenizer.chat_template and isinstance(row[{question!r}], str):",
        "        return {{\"prompt\": [{{\"role\": \"user\", \"content\": row[{question!r}]}}],",
        "                \"completion\": [{{\"role\": \"assistant\", "
        "\"content\": row[{answer!r}]}}]}}",
        "    return {{\"prompt\": row[{question!r}], \"completion\": row[{answer!r}]}}",
        "", "dataset = dataset.map(to_prompt_completion, remove_columns=dataset.column_names)"],
    "last-reply": ["def last_reply_only(row):  # loss on the last assistant reply",
                   "    return {\"prompt\": row[\"messages\"][:-1], "
                   "\"completion\": row[\"messages\"][-1:]}",
                   "", "dataset = dataset.map(last_reply_only, "
                   "remove_columns=dataset.column_names)"],
}


def python_script(cfg: RunConfig, output_dir: str | None = None) -> str:
    """A complete script with the current TRL API that trains like the studio would: an
    SFT run with SFTTrainer, a preference run with its stage's trainer."""
    output_dir = output_dir or f"{cfg.stage}-output"
    return hook(cfg, "script")(cfg, output_dir)


def eval_code(cfg: RunConfig) -> list[str]:
    """The eval data the studio would read: a held-out fraction, an eval file or split."""
    if cfg.eval_fraction > 0:
        return [f"split = dataset.train_test_split(test_size={cfg.eval_fraction}, "
                f"seed={cfg.seed})", "dataset, eval_dataset = split[\"train\"], split[\"test\"]"]
    if has_eval_data(cfg):
        return load_code(cfg, cfg.eval_dataset_name.strip() or cfg.dataset_name,
                          cfg.dataset_test_split.strip() or "test", "eval_dataset")
    return ["eval_dataset = None"]


def sft_script(cfg: RunConfig, output_dir: str) -> str:
    """SFTTrainer on the data as the studio reads it."""
    args = to_trl(cfg)  # the script reads the eval data the studio would
    values = flat(args)
    data = ["# Data"] + load_code(cfg, cfg.dataset_name, cfg.dataset_train_split)
    fmt = _data_format(cfg)
    if fmt == "alpaca":
        data += FORMAT_CODE["alpaca"]
    elif fmt == "template":
        data += [line.format(template=cfg.dataset_template) for line in FORMAT_CODE["template"]]
    elif fmt == "messages" and cfg.completion_only_loss:
        data += FORMAT_CODE["last-reply"]
    elif fmt in ("prompt/completion", "question/answer"):
        question, answer = _question_answer(cfg, fmt)
        data += [line.format(chat=cfg.prompts_as_chat, question=question, answer=answer)
                 for line in FORMAT_CODE["question-answer"]]
    data += eval_code(cfg)
    if cfg.max_train_samples:
        data.append(f"dataset = dataset.select(range(min({cfg.max_train_samples}, "
                    "len(dataset))))")
    sft = dict(args["train"])
    if fmt == "template":
        sft["dataset_text_field"] = "text"
    arg_lines = "\n".join(f"    {k}={py_value(v)}," for k, v in sft.items() if v is not None)
    peft = peft_code(cfg, values)
    return "\n".join([
        '"""Fine-tune with TRL\'s SFTTrainer: the settings of an SFT Studio run."""',
        "from datasets import Dataset, DatasetDict, load_dataset, load_from_disk",
        "from peft import LoraConfig",
        "from transformers import AutoModelForCausalLM, AutoTokenizer",
        "from trl import SFTConfig, SFTTrainer", "",
        f"model_id = {cfg.model_name_or_path!r}",
        f"tokenizer = AutoTokenizer.from_pretrained(model_id, "
        f"trust_remote_code={cfg.trust_remote_code})",
        *model_code(cfg, values), "",
        *data, "",
        f"args = SFTConfig(\n    output_dir={output_dir!r},\n{arg_lines}\n)", peft, "",
        "trainer = SFTTrainer(model=model, args=args, train_dataset=dataset,",
        "                     eval_dataset=eval_dataset, processing_class=tokenizer,",
        "                     peft_config=peft_config)",
        "trainer.train()",
        "trainer.save_model(args.output_dir)",
        "tokenizer.save_pretrained(args.output_dir)", ""])


def peft_code(cfg: RunConfig, values: dict) -> str:
    if not cfg.use_peft:
        return "peft_config = None"
    return (f"peft_config = LoraConfig(r={cfg.lora_r}, lora_alpha={cfg.lora_alpha}, "
            f"lora_dropout={cfg.lora_dropout}, target_modules="
            f"{py_value(values['lora_target_modules'])}, task_type=\"CAUSAL_LM\")")


def _quantized(cfg: RunConfig) -> bool:
    return cfg.use_peft and cfg.load_in_4bit


def load_kwargs(cfg: RunConfig, values: dict) -> str:
    """from_pretrained's keywords as the run loads a model (QLoRA: 4 bits on the GPU,
    with the `quantization` model_code defines)."""
    if not _quantized(cfg):
        return f"trust_remote_code={cfg.trust_remote_code}"
    half = "torch.float16" if values["fp16"] else "torch.bfloat16"
    return (f"dtype={half}, quantization_config=quantization, device_map={{\"\": 0}}, "
            f"trust_remote_code={cfg.trust_remote_code}")


def model_code(cfg: RunConfig, values: dict) -> list[str]:
    """Loading the model as the run does: QLoRA keeps the base in 4 bits on the GPU."""
    load = f"model = AutoModelForCausalLM.from_pretrained(model_id, {load_kwargs(cfg, values)})"
    if not _quantized(cfg):
        return [load]
    half = "torch.float16" if values["fp16"] else "torch.bfloat16"
    return ["import torch", "from transformers import BitsAndBytesConfig",
            f"quantization = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", "
            f"bnb_4bit_compute_dtype={half}, bnb_4bit_use_double_quant=True)", load]


def py_value(value) -> str:
    if isinstance(value, str):
        return repr(value)
    return json.dumps(value) if isinstance(value, list) else repr(value)
