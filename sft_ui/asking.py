"""The actions that ask models (part of `Actions`): Chat and Compare of one prompt, open to
every visitor within their share of the server (limits.py: replies in flight, tokens per
minute, a queue bound, pauses while a run trains); Compare all, a right as Evaluate is,
since it holds the CPU for as long as its list is. Knows nothing of Gradio.
"""
from __future__ import annotations

from typing import Iterator

from sft_ui.access import Access, Who
from sft_ui.chat import ChatService, GenSettings
from sft_ui.limits import Shares
from sft_ui.runs import RunManager


class Asking:
    """Mixed into Actions, which sets these."""
    manager: RunManager
    access: Access
    chat_service: ChatService
    shares: Shares

    def _may(self, who: Who, action: str, values=None) -> None:  # (Actions')
        raise NotImplementedError

    def _visitor(self, who: Who) -> str | None:
        """The key of a caller whose generation is shared out (None: one with rights)."""
        return None if self.access.has_rights(who) else self.access.owner(who)

    def _training(self) -> bool:
        return bool(self.manager.busy())

    def _shared(self, who: Who, settings: GenSettings, replies: int, reply) -> Iterator:
        """`reply(pause)`'s stream once the settings are checked, within the caller's
        share (limits.Shares.share): `replies` replies of Max new tokens each."""
        settings.check()
        return self.shares.share(self._visitor(who), settings.max_new_tokens, replies,
                                 reply, self._training)

    def chat(self, who: Who, message: str, history=None, ref: str | None = None,
             settings: GenSettings | None = None) -> Iterator[str]:
        """Stream a reply (open to everyone, like looking at runs; a visitor's within
        their share)."""
        settings = settings or GenSettings()
        return self._shared(who, settings, 1, lambda pause: self.chat_service.stream(
            message, history, ref, settings, pause))

    def chat_notes(self, message: str, history=None, ref: str | None = None,
                   settings: GenSettings | None = None) -> list:
        """What the model's chat template changes in this conversation (ChatService.notes)."""
        return self.chat_service.notes(message, history, ref, settings)

    def compare(self, who: Who, message: str, ref_a: str, ref_b: str,
                settings: GenSettings | None = None) -> Iterator[tuple[str, str]]:
        """Both models' replies as they grow (open as chat is: two replies of a share)."""
        settings = settings or GenSettings()
        return self._shared(who, settings, 2, lambda pause: self.chat_service.compare(
            message, ref_a, ref_b, settings, pause))

    def compare_batch(self, who: Who, prompts: list, ref_a: str, ref_b: str,
                      max_new_tokens: int = 64, ask_as: str = "",
                      thinking: str = "") -> list[dict]:
        """Both models' greedy answers to many prompts: a right, as Evaluate is (not open
        as Chat and Compare's one prompt are): it generates on this server's CPU for as
        long as the list is."""
        *_, rows = self.compare_batch_steps(who, prompts, ref_a, ref_b, max_new_tokens,
                                            ask_as, thinking)
        return rows

    def compare_batch_steps(self, who: Who, prompts: list, ref_a: str, ref_b: str,
                            max_new_tokens: int = 64, ask_as: str = "",
                            thinking: str = "") -> Iterator[list[dict]]:
        """compare_batch's rows as they fill (model A's answers first)."""
        self._may(who, "compare many prompts at once (Compare all)")
        return self.chat_service.compare_batch_steps(prompts, ref_a, ref_b, max_new_tokens,
                                                     ask_as, thinking)
