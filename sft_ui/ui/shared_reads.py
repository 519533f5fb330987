"""One session for the API's reads: what `Studio` puts in front of the app so that many
clients polling run state cost little. Imports nothing of the page (ui/api.py names
the endpoints, ui/studio.py adds the middleware)."""
from __future__ import annotations

import json

READS = ("run_status", "list_runs", "settings")  # the API's endpoints that only read
READ_SESSION = "shared-reads"  # the session of reads that name none (SharedReadSession)


class SharedReadSession:
    """ASGI middleware: a call of a read endpoint (READS) on /gradio_api/run/ that names no
    session_hash gets the shared one, READ_SESSION. For each call without a session
    Gradio builds a new one, with the configuration of every component of the page: 30 ms
    of CPU a poll here (2-3 ms with a session), which 20 clients polling once a second
    took from training on a 2-core CPU. The reads keep nothing in a session."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        route, _, name = scope.get("path", "").rpartition("/run/")
        if scope["type"] != "http" or scope.get("method") != "POST" \
                or not route.endswith("gradio_api") or name not in READS:
            return await self.app(scope, receive, send)
        body, message = b"", {"more_body": True}
        while message.get("more_body"):
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            body += message.get("body", b"")
        try:
            call = json.loads(body)
            if isinstance(call, dict) and not call.get("session_hash"):
                body = json.dumps({**call, "session_hash": READ_SESSION}).encode()
        except ValueError:
            pass  # Gradio answers a malformed call as it does
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        scope = {**scope, "headers": headers + [(b"content-length", str(len(body)).encode())]}
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
