"""The sign-in strip at the top of the page (shown only on a shared server) and the
bridge from a Gradio request to the caller `access.Who`."""
from __future__ import annotations

import gradio as gr

from sft_ui.access import LOGIN, AccessError, Who
from sft_ui.actions import Actions
from sft_ui.i18n.message import Message
from sft_ui.ui.lang import T, keep, note, problem


def who(request: gr.Request | None) -> Who:
    if request is None:
        return Who()
    return Who(request.session_hash or "", getattr(request, "username", None) or None)


def build(actions: Actions) -> None:
    """Nothing when the app is open; a banner, and a sign-in row in login mode."""
    access = actions.access
    if not access.shared:
        return
    gr.Markdown(T(access.banner()), elem_id="access-banner")
    if access.mode != LOGIN:
        return
    with gr.Accordion(T("Sign in"), open=True, elem_id="sign-in"):
        with gr.Row():
            user = gr.Textbox(label=T("User name"), scale=2)
            password = gr.Textbox(label=T("Password"), type="password", scale=2)
            sign_in = gr.Button(T("Sign in"), variant="primary", scale=1)
            sign_out = gr.Button(T("Sign out"), scale=1)
        status = gr.Markdown(T("Not signed in."), elem_id="sign-in-status")

    h = SignInHandlers(actions)
    sign_in.click(h.on_sign_in, [user, password], [status, password],
                  api_visibility="private")
    password.submit(h.on_sign_in, [user, password], [status, password],
                    api_visibility="private")
    sign_out.click(h.on_sign_out, None, status, api_visibility="private")
    keep(status)


class SignInHandlers:
    """Sign in and Sign out, as methods that tests call without building the page."""

    def __init__(self, actions: Actions):
        self.actions = actions

    def on_sign_in(self, request: gr.Request, name, secret):
        """(status, the password box emptied once signed in)."""
        try:
            signed = self.actions.sign_in(who(request), name, secret)
        except AccessError as e:
            return problem("Cannot sign in:", e), gr.skip()
        return note(Message("Signed in as **{user}**.", user=signed)), ""

    def on_sign_out(self, request: gr.Request):
        self.actions.sign_out(who(request))
        return note("Signed out.")
