"""The settings of a run: RunConfig's fields with everything said of each (fields.py),
values from loose input (values.py), what is wrong with a set of them (checks.py), and
every list derived from the fields (registry.py), and their translation to TRL's names
(trl.py). Which settings apply to a stage comes from the stage (sft_ui/stages/). Presets
are YAML files of fields in presets/."""
from sft_ui.config.fields import (
                                  DEFAULT_MODEL_ID,
                                  DEFAULT_SAMPLE_PROMPTS,
                                  DEMO_DATASET,
                                  FORMATS,
                                  PRESETS_DIR,
                                  RunConfig,
                                  load_preset,
                                  preset_names,
)
from sft_ui.config.values import MAX_TEXT, ConfigError, shorten

__all__ = ["DEFAULT_MODEL_ID", "DEFAULT_SAMPLE_PROMPTS", "DEMO_DATASET", "FORMATS",
           "PRESETS_DIR", "RunConfig", "load_preset", "preset_names", "MAX_TEXT",
           "ConfigError", "shorten"]
