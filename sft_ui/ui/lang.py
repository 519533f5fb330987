"""The page in English or Japanese: static text marked with `T` and translated in the browser
through gr.I18n, text made while the app runs rendered by `say` in the language of the
session that asked, and notices that keep their English so a switch of language redraws them.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
from collections import OrderedDict
from urllib.parse import quote, unquote

import gradio as gr
from gradio.context import Context, LocalContext
from gradio.i18n import I18nData

from sft_ui import i18n
from sft_ui.i18n.message import Message, as_json, as_message, from_json, joined_sentences

_TEXTS: dict[str, str] = {}  # gr.I18n key -> English text, for every text marked with T
_JOINED: dict[str, tuple[str, ...]] = {}  # a key T made of several texts -> those texts
_SESSIONS: OrderedDict[str, str] = OrderedDict()  # session -> language chosen in the page
SESSIONS_KEPT = 10_000

# Switch the page's own locale: the exported changeLocale of Gradio's frontend core
# module (imported again from its URL, which yields the instance the page runs). Gradio
# writes its own words in an upload box ("Drop File Here - or - Click to Upload") once,
# when the box is drawn: they are put in the new language here, from Gradio's own
# dictionary of it (its locale module, which the switch loads; English is built in).
SWITCH_JS = """async (lang) => {
  const assets = () => performance.getEntriesByType('resource').map((e) => e.name);
  const core = assets().find((url) => /\\/assets\\/core-[^/]*\\.js(\\?|$)/.test(url));
  if (core) {
    try { (await import(core)).changeLocale(lang); } catch (e) { console.warn(e); }
  }
  const english = {drop_file: 'Drop File Here', click_to_upload: 'Click to Upload', or: 'or'};
  const words = async (code) => {
    if (code === 'en') return english;
    for (let i = 0; i < 50; i++) {
      const url = assets().find((u) => new RegExp('/assets/' + code + '-[^/]*\\.js').test(u));
      if (url) {
        const d = (await import(url)).default;  // (an asset named like a locale: none)
        return d && d.upload_text && d.common ? {...d.upload_text, or: d.common.or} : null;
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    return null;
  };
  try {
    const target = await words(lang);
    const known = [english, ...(await Promise.all(assets()
      .map((u) => (u.match(/\\/assets\\/([a-z]{2,3}(?:-[A-Za-z]+)?)-[^/]*\\.js/) || [])[1])
      .filter((code) => code && code !== lang).map(words))).filter(Boolean)];
    if (target) {
      for (const box of document.querySelectorAll('[data-testid="file-upload"], .wrap')) {
        const walk = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) {
          const node = walk.currentNode, text = node.textContent;
          for (const dict of [target, ...known]) {
            for (const key of ['drop_file', 'click_to_upload']) {
              if (dict[key] && text.trim() === dict[key]) node.textContent = target[key];
            }
            if (dict.or && text.trim() === '- ' + dict.or + ' -') {
              node.textContent = '- ' + target.or + ' -';
            }
          }
        }
      }
    }
  } catch (e) { console.warn(e); }
  return lang;
}"""
# At load: the locale the page chose (from the browser's language).
LOAD_JS = "(chosen) => document.documentElement.lang || navigator.language || chosen"


def T(text: str, *more: str) -> I18nData | str:
    """A static text (label, help, button, heading) that the browser shows in the page's
    language; `text` is the English, and the key of its translations. `more`: texts that
    follow it as sentences of one line (a Message where one has values), each translated
    by its own entry (the page translates one key a text: a help and a second key joined
    with + showed the second as its raw marker, 'i18n{"type": ...}')."""
    if not text:
        return text
    english = joined_sentences((text, *more)) if more else text
    key = "sft-" + hashlib.sha1(english.encode("utf-8")).hexdigest()[:12]
    _TEXTS[key] = english
    if more:
        _JOINED[key] = (text, *more)
    return I18nData(key)


def translations() -> dict[str, dict[str, str]]:
    """gr.I18n's tables for every text marked with T so far; a text without an entry
    falls back to English in the browser."""
    tables = {i18n.DEFAULT: {**GRADIO_WORDS, **_TEXTS}}
    for code in i18n.LANGUAGES:
        if code != i18n.DEFAULT:
            tables[code] = {key: translated for key, text in tables[i18n.DEFAULT].items()
                            if (translated := _translated(key, text, code)) != text}
    return tables


def _translated(key: str, text: str, code: str) -> str:
    parts = _JOINED.get(key)
    return joined_sentences(i18n.translate(part, code) for part in parts) if parts else \
        i18n.translate(text, code)


def marked_texts() -> list[str]:
    """Every text marked with T so far (each of a line T joined)."""
    return [part for key, text in _TEXTS.items() for part in _JOINED.get(key, (text,))]


# Gradio's own words in the page, by its keys (gr.I18n reaches them too): its status
# announcements ("common.complete": it has no text of its own for it in any language, and
# showed the key) and the queue's place; the Japanese from the catalogue. (Its counters,
# "processing | 2.7/20.8s", are not translatable: ui/style.py hides them.)
GRADIO_WORDS = {"common.complete": "Complete", "common.progress": "Progress",
                "common.loading": "Loading", "common.error": "Error",
                "status.queue_position": "In queue: {position} of {size}"}
# Gradio's words that no key reaches (written into its code): each replaced in its notices
# (toasts) where it shows, by its translation in the page's language (`fixed_words_script`).
FIXED_WORDS = ("Connection to the server was lost. Attempting reconnection...",)


def fixed_words_script() -> str:
    """A script for the page's head: FIXED_WORDS in the language the selector shows."""
    table = {name: {text: i18n.translate(text, code) for text in FIXED_WORDS}
             for code, name in i18n.LANGUAGES.items() if code != i18n.DEFAULT}
    return """<script>
(() => {
  const table = %s;
  const swap = (node) => {
    const words = table[(document.querySelector('#language input') || {}).value];
    if (!words) return;
    if (node.nodeType === Node.TEXT_NODE) node = node.parentNode || node;
    const toast = '[data-testid=toast-body]';  // (only Gradio's notices: cheap)
    if (!node.closest || !(node.closest(toast) || node.querySelector(toast))) return;
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const said = words[text.nodeValue.trim()];
      if (said) text.nodeValue = said;
    }
  };
  new MutationObserver((changes) => changes.forEach((c) => c.type === 'characterData'
      ? c.target.parentNode && swap(c.target.parentNode) : c.addedNodes.forEach(swap)))
    .observe(document.documentElement, {childList: true, subtree: true,
                                        characterData: true});
})();
</script>""" % json.dumps(table, ensure_ascii=False)


def _header(request) -> str:
    headers = getattr(request, "headers", None) or {}
    return headers.get("accept-language", "") if hasattr(headers, "get") else ""


def current_language() -> str:
    """The language of the request being answered: the selector's choice, else the
    request's Accept-Language, else English (English outside a request)."""
    request = LocalContext.request.get(None)
    if request is None:
        return i18n.DEFAULT
    chosen = _SESSIONS.get(getattr(request, "session_hash", None) or "")
    return chosen or i18n.accepted_language(_header(request))


def say(text: str) -> str:
    """An English message in the language of the request being answered."""
    return i18n.translate(text, current_language())


def compact_duration(seconds) -> str:
    """A measured or expected time as '2h 03m', '1m 05s' or '14s', in the request's
    language ('2時間03分'); plan.planner.duration_text is the plan's rounded estimate
    ('about 3 min')."""
    if seconds is None:
        return "--"
    minutes, s = divmod(int(seconds), 60)
    hours, m = divmod(minutes, 60)
    lang = current_language()
    if hours:
        return i18n.formatted("{hours}h {minutes}m", lang, hours=hours, minutes=f"{m:02d}")
    if m:
        return i18n.formatted("{minutes}m {seconds}s", lang, minutes=m, seconds=f"{s:02d}")
    return i18n.formatted("{seconds}s", lang, seconds=s)


def _english(error: Exception) -> list[str]:
    return list(getattr(error, "messages", None) or [str(error)])


def messages(error: Exception) -> list[str]:
    """A person-facing error's messages, translated."""
    return [say(m) for m in _english(error)]


# The English a notice keeps: an HTML comment at the end of each part of its text, which
# the page does not draw and sends back as the notice's value. A part: its text ("text"),
# the messages after it ("items": a Markdown list, else one line) and whether they are
# escaped for HTML ("escape").
_KEPT = re.compile(r"(.*?)\n*<!--sft-en:([^>]*)-->", re.S)


def _render(part: dict) -> str:
    head, items = say(part["text"]), [say(m) for m in part.get("items", ())]
    items = [html.escape(m) for m in items] if part.get("escape") else items
    if part.get("listed"):
        return head + "\n\n" + "\n".join(f"- {m}" for m in items)
    return " ".join([head, *items])


def _note(part: dict) -> str:
    kept = {**part, "text": as_json(part["text"]),  # a Message keeps its template and values
            "items": [as_json(m) for m in part.get("items", ())]}
    return f"{_render(part)}\n\n<!--sft-en:{quote(json.dumps(kept), safe='')}-->"


def note(text: str, items=(), escape: bool = False) -> str:
    """A notice: the finished English `text` (and `items`, a list under it; `escape`: for
    HTML, as text that may quote a name typed or a file's content) in the page's language,
    keeping its English for a switch of language (`keep`) and for `kept`."""
    if not text:
        return ""
    return _note({"text": text, "items": list(items), "listed": bool(items),
                  "escape": escape})


def _bold(heading: str) -> Message:
    """A notice's heading in bold, its words said in the reader's language."""
    return Message("**{heading}**", heading=as_message(heading))


def problems(heading: str, error: Exception, kind: str = "") -> str:
    """A bold heading and the error's messages as a Markdown list, translated (a notice);
    `kind`: what the notice is, for code to find it by (`kept(...)[i]["kind"]`), never by
    its words."""
    return _note({"text": _bold(heading), "items": _english(error), "listed": True,
                  **({"kind": kind} if kind else {})})


def problem(heading: str, error: Exception, escape: bool = False) -> str:
    """A bold heading and the error's messages on one line, translated (and escaped
    for HTML where the error may quote a name the person typed; a notice)."""
    return _note({"text": _bold(heading), "items": _english(error), "escape": escape})


def kept(value) -> list[dict]:
    """The English parts a notice's text keeps (none for a text written otherwise)."""
    if not isinstance(value, str) or "<!--sft-en:" not in value:
        return []
    parts = [json.loads(unquote(m.group(2))) for m in _KEPT.finditer(value)]
    return [{**part, "text": from_json(part["text"]),  # a Message again (equal to its English)
             "items": [from_json(m) for m in part.get("items", ())]} for part in parts]


def redrawn(value):
    """A notice's text again, each part it keeps in the page's language now (the text
    around them kept); gr.skip() for a text that keeps none."""
    if not kept(value):
        return gr.skip()
    out, end = [], 0
    for m in _KEPT.finditer(value):
        lead = m.group(1)[:len(m.group(1)) - len(m.group(1).lstrip())]
        out.append(lead + _note(json.loads(unquote(m.group(2)))))
        end = m.end()
    return "".join(out) + value[end:]


def keep(*notices) -> None:
    """Notices (Markdown, inside the Blocks being built) drawn again in the page's new
    language when it switches, from the English they keep (`note`, `problem(s)`)."""
    def redraw(*values):
        shown = [redrawn(v) for v in values]
        return shown if len(shown) > 1 else shown[0]
    after_switch(redraw, list(notices), list(notices))


def _remember(tag: str, request: gr.Request) -> str:
    lang = i18n.language(tag) or i18n.accepted_language(_header(request))
    session = getattr(request, "session_hash", None)
    if session:
        _SESSIONS[session] = lang
        _SESSIONS.move_to_end(session)
        while len(_SESSIONS) > SESSIONS_KEPT:
            _SESSIONS.popitem(last=False)
    return lang


def page() -> gr.Blocks:
    """The Blocks being built: a panel's wiring runs inside its `with gr.Blocks()`."""
    root = Context.root_block
    assert root is not None, "outside the Blocks being built"
    return root


def build_selector() -> gr.Dropdown:
    """The language selector (inside the Blocks being built): it starts at the page's
    locale and switches both the page and this session's messages."""
    choice = gr.Dropdown([(name, code) for code, name in i18n.LANGUAGES.items()],
                         value=i18n.DEFAULT, label=T("Language"), elem_id="language",
                         scale=0, min_width=160)
    root = page()
    root.load(_remember, choice, choice, js=LOAD_JS, api_visibility="private",
              show_progress="hidden")
    # (the page's own attributes, which after_switch reads: not gr.Blocks' own)
    root.sft_language = choice  # type: ignore[attr-defined]
    root.sft_language_switch = choice.input(  # type: ignore[attr-defined]
        _remember, choice, choice, js=SWITCH_JS, api_visibility="private",
        show_progress="hidden")
    return choice


def relabel(dropdown, choices) -> None:
    """A dropdown (inside the Blocks being built) whose choices' labels are English text
    (`choices()`: (label, value) pairs) shows them in the page's language: from the page's
    load, and again after a switch. Its value stays."""
    def labelled():
        return gr.update(choices=[(say(label), value) for label, value in choices()])
    if Context.root_block is not None:
        Context.root_block.load(labelled, None, dropdown, api_visibility="private",
                                show_progress="hidden")
        after_switch(labelled, None, dropdown)


def after_switch(fn, inputs, outputs) -> None:
    """Run fn again (inside the Blocks being built) once the page switched language,
    to redraw text made in Python; nothing when the page has no selector."""
    switch = getattr(Context.root_block, "sft_language_switch", None)
    if switch is not None:  # (build_selector set both)
        # (its loading status on the selector alone: see train_tab's PROGRESS_NOTE)
        switch.then(fn, inputs, outputs, api_visibility="private", show_progress="hidden",
                    show_progress_on=getattr(Context.root_block, "sft_language"))
