"""A visitor past a limit of a shared server (sft_ui/limits.py) is told in the page, in
their language, what to change, where they see it: Chat and Compare on a view-only Space
whose operator set the longest reply (SFT_UI_VISITOR_MAX_NEW_TOKENS), in Chromium at
1366x768."""
import pytest

from sft_ui import i18n
from sft_ui.access import Access
from sft_ui.i18n.message import Message
from tests.browser.test_browser_contract import LOCALES, TABS
from tests.conftest import HANG_MS, free_port

LONGEST = Message("On this shared server a reply is at most {limit} new tokens: lower Max "
                  "new tokens to {limit} or less.", limit=8)


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    """A view-only Space (no sign-in) whose visitors' replies are at most 8 new tokens."""
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    with pytest.MonkeyPatch.context() as env:  # (the shares read it when first asked)
        env.setenv("SFT_UI_VISITOR_MAX_NEW_TOKENS", "8")
        app = build_app(RunManager(tmp_path_factory.mktemp("space-runs")),
                        Access(space_id="me/studio"))
        port = free_port()
        app.queue().launch(server_name="127.0.0.1", server_port=port,
                           prevent_thread_lock=True, quiet=True)
        yield f"http://127.0.0.1:{port}/"
        app.close()


def _base(page, owner: str) -> None:
    """The list `owner` (a model list) set to the base model (no run is trained here)."""
    page.locator(f"#{owner} input[role=combobox]").click()
    page.locator(f"#{owner} [role=option]", has_text="SmolLM2").dispatch_event("mousedown")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_visitor_past_the_longest_reply_is_told_what_to_change(browser, space, lang):
    from playwright.sync_api import expect
    said = i18n.translate(LONGEST, lang)
    context = browser.new_context(locale=LOCALES[lang], viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        page.set_default_timeout(HANG_MS)
        page.goto(space)
        page.get_by_role("tab", name=TABS[lang][1], exact=True).click()  # Chat
        _base(page, "chat-model")
        page.get_by_placeholder(i18n.translate("Ask the model...", lang)).fill("Hello")
        page.get_by_role("button", name=i18n.translate("Send", lang), exact=True).click()
        expect(page.locator("#chat-error")).to_contain_text(said)
        expect(page.locator("#chat-error")).to_be_in_viewport()  # (scrolled to, 1366x768)
        page.get_by_role("tab", name=TABS[lang][2], exact=True).click()  # Compare
        _base(page, "compare-b")
        panel = page.locator(".tabitem:visible")
        page.get_by_placeholder(i18n.translate("One prompt, answered by both models",
                                               lang)).fill("Hello")
        panel.get_by_role("button", name=i18n.translate("Compare", lang), exact=True).click()
        expect(page.locator("#compare-notice")).to_contain_text(said)
        expect(page.locator("#compare-notice")).to_be_in_viewport()
    finally:
        context.close()
