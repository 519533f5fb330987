"""Training data: its sources, row checks and eval split (load.py; local files read by
files.py), the formats TRL trains on (formats.py), the rows as TRL tokenizes them
(tokens.py), the built-in demo set (demo.py), preference rows for DPO, ORPO and KTO
(preference.py) and their demo pairs (preference_demo.py), what a model's chat template
does with a conversation (chat_habits.py), and the preview of what the
model learns from (preview.py, which imports the tokenizer: import it where used)."""
from sft_ui.data.files import SUFFIXES
from sft_ui.data.formats import DataError
from sft_ui.data.load import (
                              TrainData,
                              check_dataset,
                              folder_files,
                              load_data,
                              store_upload,
)

__all__ = ["DataError", "SUFFIXES", "TrainData", "check_dataset", "folder_files",
           "load_data", "store_upload"]
