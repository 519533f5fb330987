"""The training rows as TRL's trainer sees them: cfg's data for a tokenizer (chat rows
need a chat template), and input_ids with the loss mask made by TRL's own dataset
preparation, so the preview and the plan show exactly what is trained on.
Knows nothing of Gradio or of the trainer's run.
"""
from __future__ import annotations

from types import SimpleNamespace

from sft_ui.config import RunConfig
from sft_ui.config.trl import STUDIO_SFT_ARGUMENTS, translate
from sft_ui.data.chat_habits import rows_to_template
from sft_ui.data.formats import DataError, is_chat
from sft_ui.data.load import TrainData, load_data
from sft_ui.data.turns import as_trained
from sft_ui.data.windows import split_rows
from sft_ui.i18n.message import Message
from sft_ui.lazy import trl, trl_chat_templates


def load_training_data(cfg: RunConfig, tokenizer) -> TrainData:
    """cfg's data in TRL's shapes for this tokenizer (chat rows need a chat template;
    plain text longer than Max length split into windows: data/windows.py)."""
    chat = bool(getattr(tokenizer, "chat_template", None))
    data = load_data(cfg, chat=chat)
    if data.format == "text" and cfg.max_length:
        data.train, said = split_rows(data.train, tokenizer, cfg.max_length)
        if data.eval:
            data.eval, _ = split_rows(data.eval, tokenizer, cfg.max_length)
        data.notes = data.notes + ([said] if said else [])
    if not chat and is_chat(data.train[0]):
        raise DataError(Message("The model has no chat template, so {format} data cannot be "
                                "rendered. Use an instruct model, or text / prompt-completion "
                                "data.", format=data.format))
    if chat and any(row.get("tools") or any(m.get("tool_calls") for m in row.get(
            "messages", ()) if isinstance(m, dict)) for row in data.train[:100]):
        _check_tools(tokenizer)
    if chat:  # conversations as the template takes them (a system turn it refuses...)
        data.train, notes = rows_to_template(data.train, tokenizer)
        if data.eval:
            data.eval, more = rows_to_template(data.eval, tokenizer)
            notes = list(dict.fromkeys(notes + more))
        data.notes = data.notes + notes
    return data


def tokenize_rows(cfg: RunConfig, tokenizer, rows: list[dict]) -> list[dict]:
    """input_ids and labels (-100: no loss) of each row, untruncated, made by TRL's own
    dataset preparation: exactly what the trainer sees, before cutting at max_length."""
    import datasets  # heavy: loaded on first use

    SFTConfig, SFTTrainer = trl()
    datasets.disable_progress_bars()
    # The run's own SFTConfig values (the engine adds this machine's precision and
    # optimizer, which do not change how rows are tokenized).
    values = {**translate(cfg)["train"], **STUDIO_SFT_ARGUMENTS, "output_dir": "unused",
              "use_cpu": True, "bf16": False}
    args = SFTConfig(**values)
    args.max_length, args.shuffle_dataset = None, False
    rows, _ = as_trained(cfg, rows, tokenizer)  # each answer masked in as it is asked
    sample = rows[0]
    only_completion = cfg.completion_only_loss
    if only_completion is None:
        only_completion = "prompt" in sample and "completion" in sample
    shim = SimpleNamespace(_tokenizer=tokenizer, chat_template=None,
                           completion_only_loss=only_completion)
    prepared = SFTTrainer._prepare_dataset(
        shim, datasets.Dataset.from_list(rows), tokenizer, args, packing=False,
        formatting_func=None, dataset_name="preview")
    return [{"input_ids": r["input_ids"], "labels": r["labels"]} for r in prepared]


def _check_tools(tokenizer) -> None:
    """DataError where the chat template cannot write tool calls (it would drop them
    without a word, and the run would train empty answers)."""
    if not trl_chat_templates()[2](tokenizer):  # (TRL's supports_tool_calling)
        raise DataError(Message(
            "The data has tool calls (a 'tools' column, assistant turns with 'tool_calls'), "
            "but this model's chat template does not write them: they would be left out of "
            "what it learns. Use a model whose template supports tools (Qwen2.5, Qwen3, "
            "Llama-3.1 and later...), or data without tool calls."))
