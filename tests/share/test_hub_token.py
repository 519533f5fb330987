"""The token typed for a push is the one the Hub receives: a real HfApi talks to a
stand-in Hub server on loopback that records each request's Authorization header, on
a machine that also holds other tokens (HF_TOKEN, a token file under HF_HOME)."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sft_ui.access import Access, Who
from sft_ui.actions import Actions
from sft_ui.runs import RunManager

TYPED = "hf_TypedForThisPush0123456789abc"
IN_ENV = "hf_SavedInTheEnvironment012345678"
IN_FILE = "hf_SavedInTheTokenFile0123456789"


class FakeHub(BaseHTTPRequestHandler):
    """Answers the calls of a model push (create the repo, check the README's YAML, ask
    how to upload, commit) as the Hub does; records (method, path, Authorization,
    body)."""
    seen: list = []
    endpoint = ""

    def log_message(self, *args):
        pass

    def _answer(self, status: int, data: dict) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append(("POST", self.path, self.headers.get("Authorization"), body))
        if self.path == "/api/repos/create":
            return self._answer(200, {"url": f"{self.endpoint}/me/tiny"})
        if "/preupload/" in self.path:
            return self._answer(200, {"files": [
                {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                for f in json.loads(body)["files"]]})
        if self.path == "/api/validate-yaml":  # the README's front matter
            return self._answer(200, {"errors": [], "warnings": []})
        if "/commit/" in self.path:
            return self._answer(200, {"commitUrl": f"{self.endpoint}/me/tiny/commit/{'0' * 40}",
                                      "commitOid": "0" * 40})
        self._answer(404, {"error": "not here"})

    def do_GET(self):
        self.seen.append(("GET", self.path, self.headers.get("Authorization"), b""))
        self._answer(404, {"error": "not here"})


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    """The stand-in server as the Hub endpoint, and saved tokens that must not be used."""
    from huggingface_hub import constants

    from sft_ui.share import hub
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    FakeHub.seen, FakeHub.endpoint = [], f"http://127.0.0.1:{server.server_port}"
    monkeypatch.setattr(constants, "ENDPOINT", FakeHub.endpoint)
    monkeypatch.setattr(hub, "hub_reachable", lambda: True)
    monkeypatch.setenv("HF_TOKEN", IN_ENV)
    token_file = tmp_path / "hf-home" / "token"
    token_file.parent.mkdir()
    token_file.write_text(IN_FILE)
    monkeypatch.setenv("HF_HOME", str(token_file.parent))
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(token_file))
    yield FakeHub.seen
    server.shutdown()


def test_the_typed_token_is_the_one_the_hub_receives(fake_hub, tmp_path):
    from huggingface_hub import get_token
    assert get_token() == IN_ENV  # the machine does hold another token
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "README.md").write_text("# tiny\n")
    (folder / "config.json").write_text("{}")
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    url = actions.push_export(Who("s1"), folder, "me/tiny", TYPED, True)
    assert url == "https://huggingface.co/me/tiny"
    calls = [(method, path) for method, path, _, _ in fake_hub]
    assert ("POST", "/api/repos/create") in calls
    commit = next(body for _, path, _, body in fake_hub if "/commit/" in path)
    assert b"README.md" in commit and b"config.json" in commit  # the files went up
    pushed = [auth for _, path, auth, _ in fake_hub
              if path == "/api/repos/create" or "/preupload/" in path or "/commit/" in path]
    assert len(pushed) == 3 and set(pushed) == {f"Bearer {TYPED}"}
    assert {auth for _, _, auth, _ in fake_hub if auth} == {f"Bearer {TYPED}"}
    everything = b"".join(str(auth).encode() + body for _, _, auth, body in fake_hub)
    assert IN_ENV.encode() not in everything and IN_FILE.encode() not in everything
