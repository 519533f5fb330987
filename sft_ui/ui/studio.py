"""The app's Blocks: launched with the page's translations, style and calmer queue, one
shared session for the API's reads, light sessions, and a script in the page that runs
before Gradio's."""
from __future__ import annotations

import gradio as gr
from gradio import state_holder
from starlette.middleware import Middleware

from sft_ui.ui import api
from sft_ui.ui.api_types import MISSING
from sft_ui.ui.lang import fixed_words_script, translations
from sft_ui.ui.page_head import EarlyScript
from sft_ui.ui.shared_reads import SharedReadSession
from sft_ui.ui.style import CSS, HEAD

# How long Gradio's queue sleeps when it has nothing to do (its own: 1 ms, and 10 ms
# between progress updates): a served app with no page open took 8% of a core in wakeups,
# which a run training on a 2-core CPU lost and more (its threads wait on each other).
# An event now waits up to 20 ms more for the queue to notice it.
QUEUE_NAPS = {"sleep_when_free": 0.02, "progress_update_sleep_when_free": 0.05}


class _Blocks:
    """What of the Blocks a session copies, without its components (LightSession)."""

    def __init__(self, blocks):
        self.default_config, self.blocks = blocks.default_config, {}


class LightSession(state_holder.SessionState):
    """Gradio's session state less its configuration of every component of the page, which
    it builds for each new session (a browser's, and every call over plain HTTP that names
    no session) and keeps for thousands of sessions: its cost is in docs/reliability.md.
    Gradio reads it only for deep links (gr.DeepLinkButton), which the page has none of; a
    component a session changes is still added to it, as Gradio does."""

    def __init__(self, blocks):
        super().__init__(_Blocks(blocks))


class Studio(gr.Blocks):
    """Blocks that launch with the page's translations (gr.I18n, ui/lang.py) and style
    (ui/style.py) unless given others, the API's shared session for reads
    (ui/shared_reads.py), the page's early script (ui/page_head.py), a calmer queue
    (QUEUE_NAPS) and lighter sessions (LightSession)."""

    def launch(self, *args, i18n: gr.I18n | None = None, css: str | None = None,
               head: str | None = None, app_kwargs: dict | None = None, **kwargs):
        app_kwargs = dict(app_kwargs or {})
        app_kwargs["middleware"] = [Middleware(SharedReadSession), Middleware(EarlyScript),
                                    *app_kwargs.get("middleware", [])]
        for name, seconds in QUEUE_NAPS.items():
            if hasattr(self._queue, name):
                setattr(self._queue, name, seconds)
        # (the class of the sessions Gradio makes: its module's)
        state_holder.SessionState = LightSession  # type: ignore[misc]
        return super().launch(*args, i18n=i18n or gr.I18n(**translations()),
                              css=CSS if css is None else css,
                              head=HEAD + fixed_words_script() if head is None else head,
                              app_kwargs=app_kwargs,
                              **kwargs)

    def validate_inputs(self, block_fn, inputs: list) -> None:
        """An API endpoint sent fewer values than it takes (plain HTTP, where no client
        fills in the defaults): the missing ones are marked MISSING, for the endpoint to
        take their defaults or name them (ui/api_types.py), where Gradio would answer an
        error without a message and print a traceback."""
        if block_fn.api_name in api.ENDPOINTS and len(inputs) < len(block_fn.inputs):
            inputs.extend([MISSING] * (len(block_fn.inputs) - len(inputs)))
        super().validate_inputs(block_fn, inputs)
