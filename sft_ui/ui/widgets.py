"""Widgets built from RunConfig fields: label, help text, bounds and choices come
from the field's metadata, so each setting is described once (config.py)."""
from __future__ import annotations

import gradio as gr

from sft_ui.backends.jobs import known_flavors
from sft_ui.config import RunConfig, registry
from sft_ui.config.values import choices
from sft_ui.i18n.message import Message
from sft_ui.plan import catalog
from sft_ui.ui.lang import T, relabel, say

TRISTATE = ["auto", "on", "off"]  # Optional[bool] fields: auto is None
MULTILINE = {"dataset_template"}  # text settings whose value may hold line breaks
# Text settings with names to pick from, or any typed (the dataset's list follows the
# stage and the earlier runs: ui/stage_view.py)
SUGGESTED = {"jobs_flavor": known_flavors, "dataset_name": lambda: [RunConfig().dataset_name]}


def widget_value(name: str, value):
    """A RunConfig value as the widget shows it."""
    if _tristate(name):
        return "auto" if value is None else ("on" if value else "off")
    if _optional_number(name):
        return "auto" if value is None else str(value)
    if name == "sample_prompts":
        return "\n".join(value)
    if "float" in str(registry.field(name).type) and isinstance(value, (int, float)):
        return f"{value:g}"
    return value


def make_widget(name: str, default: RunConfig | None = None) -> gr.components.Component:
    """The setting's widget with its value in `default` (else RunConfig's), shown only
    where the setting applies to that stage (ui/stage_view.py hides and shows it after)."""
    f = registry.field(name)
    meta = f.metadata
    cfg = default or RunConfig()
    value = widget_value(name, getattr(cfg, name))
    # The help ends with the setting's name in the YAML, the API and TRL, said as such.
    common = dict(label=T(meta["label"] or name),
                  info=T(meta["help"], Message("Name in YAML and the API: {name}", name=name)),
                  value=value, elem_id=f"cfg-{name}", visible=registry.applies(name, cfg.stage))
    kind = str(f.type)
    if name == "model_name_or_path":  # the listed models, or any Hub id or folder typed
        listed = gr.Dropdown(catalog.choices(), allow_custom_value=True, filterable=True,
                             **common)
        relabel(listed, catalog.choices)  # (a gated model's note in the page's language)
        return listed
    if _tristate(name):
        return gr.Dropdown([(T(word), word) for word in TRISTATE], **common)
    if _optional_number(name):  # auto or a typed number
        return gr.Dropdown(["auto", "1", "2", "4", "8"], allow_custom_value=True, **common)
    if choices(f):  # a list field picks several
        return gr.Dropdown(choices(f), multiselect=kind == "list", **common)
    if f.metadata["code"]:  # Python, in a code box (its help goes under it: a code box has none)
        return gr.Code(language="python", lines=8, label=common["label"], value=value,
                       elem_id=common["elem_id"], visible=common["visible"])
    if name in SUGGESTED:  # a list to pick from, or a name typed in
        return gr.Dropdown(SUGGESTED[name](), allow_custom_value=True, **common)
    if kind == "bool":
        return gr.Checkbox(**common)
    # Bounds are checked by RunConfig.validate(), which explains them in the page.
    if kind == "int":
        return gr.Number(precision=0, **common)
    if kind == "float":  # a text box: "2e-5" reads as typed, and text gets a message
        return gr.Textbox(**common)
    if kind == "list":
        return gr.Textbox(lines=3, **common)
    if name in MULTILINE:
        return gr.Textbox(lines=2, **common)
    return gr.Textbox(max_lines=1, **common)  # a long path scrolls on one line


# The trigger mode of an event that shares its triggers (a setting's change) with another:
# it runs on each, one at a time, in order. Gradio's page runs an "always_last" event
# again by dispatching the trigger it waited on anew, which runs every event of that
# trigger again: two such events on one trigger set each other off without end. So one
# event of a trigger at most waits for its last (a change's default); the others run on
# each (test_page's test_no_trigger_sets_off_two_events_that_wait_for_their_last).
AFTER_EACH = "multiple"


def edits(widgets) -> list:
    """The events of settings' widgets that say the person changed one: a text or code
    box's when it is left (not one a key), any other's on each change."""
    return [event for w in widgets for event in
            ((w.blur, w.submit) if isinstance(w, gr.Textbox) else
             (w.blur,) if isinstance(w, gr.Code) else (w.change,))]


def _tristate(name: str) -> bool:
    return "Optional[bool]" in str(registry.field(name).type)


def _optional_number(name: str) -> bool:
    return "Optional[int]" in str(registry.field(name).type)


def values_to_dict(names: list[str], values) -> dict:
    """Widget values (in `names` order) to loose RunConfig input; from_dict coerces them."""
    return dict(zip(names, values))


def config_to_values(cfg: RunConfig, names: list[str]) -> list:
    return [widget_value(n, getattr(cfg, n)) for n in names]


def settings_said(values: dict, short=str) -> str:
    """Settings as a person reads them in a table: each by its label in the page's
    language and its value ("Learning rate 0.001, Max steps 3"); `short` writes a value."""
    return ", ".join(f"{setting_label(name)} {_value_said(value, short)}"
                     for name, value in values.items())


def _value_said(value, short) -> str:
    """A value in a table: on, off and auto in the page's language (a switch's True, False
    and None), anything else as `short` writes it."""
    if value is None or isinstance(value, bool):
        return say("auto" if value is None else "on" if value else "off")
    return short(value)


def setting_label(name: str) -> str:
    """A setting's label in the page's language (a name no setting has, as it is)."""
    found = next((f for f in registry.fields() if f.name == name), None)
    return say(found.metadata["label"]) if found is not None else name
