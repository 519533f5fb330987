"""Talk to models after (or during) training: stream replies, compare two models.
service.py names, loads and caches the models (ChatService); generation.py generates
(GenSettings, the prompt a chat template writes, replies streamed as they grow).
Knows nothing of Gradio widgets.
"""
from sft_ui.chat.generation import GenSettings, normalise_history, render_prompt
from sft_ui.chat.service import BASE, LATEST, ChatService

__all__ = ["BASE", "LATEST", "ChatService", "GenSettings", "normalise_history",
           "render_prompt"]
