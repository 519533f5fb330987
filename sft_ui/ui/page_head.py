"""A script that runs before Gradio's own, put at the top of the page's head: Gradio's loading
status draws 10 times a second rather than 60, and the plots' library loads a few seconds
after the page rather than at a run's first logged step
(docs/benchmarks.md#following-a-run-in-the-page).
"""
from __future__ import annotations

from pathlib import Path

import gradio

STATUS_FRAME_MS = 100  # the loading status's frames: its elapsed time shows tenths
PLOTS_AFTER_MS = 3000  # after the page's load: its first drawing done


def plots_module() -> str | None:
    """The file name of the plots' library among Gradio's page assets, or None."""
    assets = Path(gradio.__file__).parent / "templates" / "frontend" / "assets"
    return next((p.name for p in sorted(assets.glob("embed-*.js"))), None)


def _early_script(plots: str | None) -> bytes:
    """Not a Blocks' `head`, which Gradio adds only once its modules have loaded: the
    loading status's module takes the browser's requestAnimationFrame when it loads and
    keeps a loop going (to count tenths of a second, mostly hidden), on an idle page too.
    Other callers draw as they asked (ui/style.py's HEAD holds the rest of the head)."""
    preload = "" if plots is None else f"""
  addEventListener('load', () => setTimeout(
    () => import('./assets/{plots}').catch(() => {{}}), {PLOTS_AFTER_MS}));"""
    return f"""<script>
(() => {{
  const frame = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (draw) =>
    (new Error().stack || '').includes('statustracker')
      ? setTimeout(() => frame(draw), {STATUS_FRAME_MS}) : frame(draw);{preload}
}})();
</script>""".encode()


EARLY_SCRIPT = _early_script(plots_module())


class EarlyScript:
    """ASGI middleware: an HTML page the app serves gets EARLY_SCRIPT right after its
    <head>; every other response passes as it is."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET":
            return await self.app(scope, receive, send)
        start, body = None, b""

        async def held(message):
            nonlocal start, body
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                if headers.get(b"content-type", b"").startswith(b"text/html") and \
                        b"content-encoding" not in headers:
                    start = message  # held until the whole page is here
                    return None
                return await send(message)
            if start is None or message["type"] != "http.response.body":
                return await send(message)
            body += message.get("body", b"")
            if message.get("more_body"):
                return None
            page = body.replace(b"<head>", b"<head>" + EARLY_SCRIPT, 1)
            headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
            await send({**start, "headers": headers + [
                (b"content-length", str(len(page)).encode())]})
            return await send({"type": "http.response.body", "body": page,
                               "more_body": False})

        await self.app(scope, receive, held)
