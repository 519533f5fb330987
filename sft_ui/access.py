"""Who may change things on a shared server (open, login or view-only, read from the
environment) and whose files are whose. Knows nothing of Gradio: callers pass the session
key and the signed-in name.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message, as_message

OPEN, LOGIN, VIEW_ONLY = "open", "login", "view-only"
LOCAL_OWNER = "local"  # the owner of everything where the studio is one person's
UPLOADS = "uploads"  # the runs folder's folder of uploaded files, one folder per owner


ALLOW_CODE = "SFT_UI_ALLOW_REWARD_CODE"  # environment: code written in the page may run


class AccessError(UserError, PermissionError):
    """An action this session may not take; the message says how to get access
    (`messages`: its Message, kept whole for the page)."""


def parse_users(text: str) -> dict[str, str]:
    """'user:password,user2:password2' -> {user: password}; refuses malformed pairs."""
    users = {}
    for pair in (p.strip() for p in text.split(",")):
        if not pair:
            continue
        user, sep, password = pair.partition(":")
        if not sep or not user.strip() or not password:
            raise ValueError(f"Logins are USER:PASSWORD pairs separated by commas; got "
                             f"{user.strip() or '(blank)'!r} without a password.")
        users[user.strip()] = password
    return users


@dataclass(frozen=True)
class Who:
    """The caller of one request: its browser session and the name gradio signed in."""
    session: str = ""
    username: str | None = None


class Access:
    """The server's mode (docs/reliability.md). open: one person's (the default away from
    a Space). login: SFT_UI_AUTH users (or `serve --auth`); anyone may look at runs,
    charts, samples and chat, but acting (training, stopping, renaming, deleting,
    uploading, exporting, pushing) needs a signed-in session. view-only: a public Space
    (SPACE_ID) without SFT_UI_AUTH, where acting is off and the message says how to
    duplicate the Space or add the secret; SFT_UI_OPEN=1 opens such a Space to everyone."""

    def __init__(self, users: dict[str, str] | None = None, space_id: str | None = None,
                 open_space: bool = False, shared_paths: list[str] | None = None,
                 allow_code: bool = False):
        self.users = dict(users or {})
        self.space_id = space_id
        # Reward code written in the page runs on this machine: only where the studio is
        # one person's own (open, not a Space), or where the server was started to allow it.
        self.allow_code = allow_code
        self.shared_paths = [Path(p).expanduser().resolve() for p in shared_paths or []]
        if self.users:
            self.mode = LOGIN
        elif space_id and not open_space:
            self.mode = VIEW_ONLY
        else:
            self.mode = OPEN
        self._signed: dict[str, str] = {}  # session key -> user name
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, users: dict[str, str] | None = None) -> "Access":
        if users is None:
            users = parse_users(os.environ.get("SFT_UI_AUTH", ""))
        return cls(users, os.environ.get("SPACE_ID") or None,
                   os.environ.get("SFT_UI_OPEN", "") not in ("", "0", "false"),
                   [p for p in os.environ.get("SFT_UI_SHARED_PATHS", "").split(os.pathsep)
                    if p],
                   os.environ.get(ALLOW_CODE, "") not in ("", "0", "false"))

    @property
    def shared(self) -> bool:
        return self.mode != OPEN

    @property
    def code_allowed(self) -> bool:
        """Whether code written in the page (a GRPO reward) may run on this server."""
        return self.allow_code or (self.mode == OPEN and not self.space_id)

    def check_code(self, code: str) -> None:
        """Refuse code written in the page where the studio is not one person's own."""
        if code.strip() and not self.code_allowed:
            raise AccessError(Message(
                "A written reward function runs Python on this server, so it is refused on "
                "a shared server or a Space: choose built-in reward functions, or run the "
                "studio on your own machine (or start this server with "
                "--allow-reward-code, or {ALLOW_CODE}=1, if everyone who can sign in may "
                "run code on it).", ALLOW_CODE=ALLOW_CODE))

    def sign_in(self, who: Who, user: str, password: str) -> str:
        if self.mode != LOGIN:
            raise AccessError(Message("This server has no logins: {reason}", reason=(
                self._view_only_message() if self.mode == VIEW_ONLY
                else Message("everything is open already."))))
        expected = self.users.get((user or "").strip())
        # compare_digest on equal-length digests: the time taken says nothing of the password
        if expected is None or not hmac.compare_digest(_digest(password or ""),
                                                       _digest(expected)):
            raise AccessError(Message("Wrong user name or password. Ask the person running "
                                      "this server for a login."))
        if not who.session:
            raise AccessError(Message("This request has no session to sign in; reload the "
                                      "page."))
        with self._lock:
            self._signed[who.session] = user.strip()
        return user.strip()

    def sign_out(self, who: Who) -> None:
        with self._lock:
            self._signed.pop(who.session, None)

    def user(self, who: Who) -> str | None:
        """The signed-in name of this caller (gradio's own login counts), else None."""
        if who.username:
            return who.username
        with self._lock:
            return self._signed.get(who.session)

    def has_rights(self, who: Who) -> bool:
        """Whether this caller may take every action (the app open, or signed in)."""
        return self.mode == OPEN or bool(self.user(who))

    def require(self, who: Who, action: str) -> None:
        """Raise AccessError unless this caller may `action` (e.g. 'start a run')."""
        if self.has_rights(who):
            return
        if self.mode == VIEW_ONLY:
            raise AccessError(Message("Cannot {action}: {reason}", action=as_message(action),
                                      reason=self._view_only_message()))
        raise AccessError(Message("Sign in to {action} (the Sign in panel at the top of the "
                                  "page, or /sign_in through the API). Looking at runs stays "
                                  "open.", action=as_message(action)))

    def _view_only_message(self) -> Message:
        link = (f"https://huggingface.co/spaces/{self.space_id}?duplicate=true"
                if self.space_id else Message("the Space's menu, Duplicate this Space"))
        return Message("this is a shared public Space, where anyone can watch but training, "
                       "uploading, deleting and pushing are off. Duplicate it ({link}) to "
                       "train on your own copy, or add a SFT_UI_AUTH secret (user:password) "
                       "to the Space's settings and sign in.", link=link)

    def banner(self) -> str:
        """A line for the top of the page ('' when the app is open)."""
        if self.mode == VIEW_ONLY:
            return Message("**View only:** {reason}", reason=self._view_only_message())
        if self.mode == LOGIN:
            return Message("**Sign in to train, upload, delete or push.** Runs, charts, "
                           "samples and chat are open to everyone.")
        return ""

    # Files on a shared server

    def owner(self, who: Who) -> str:
        """The folder name for this caller's files: per user when signed in, else per
        browser session; one shared name when the app is open."""
        if self.mode == OPEN:
            return LOCAL_OWNER
        user = self.user(who)
        key = f"user:{user}" if user else f"session:{who.session}"
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    def upload_folder(self, root: Path, who: Who) -> Path:
        return root / UPLOADS / self.owner(who)

    def check_paths(self, root: Path, who: Who, paths: dict[str, object]) -> None:
        """On a shared server a local file may come only from this caller's uploads (a
        folder per signed-in user, else per browser session), the runs folder (fine-tuned
        models) or the operator's SFT_UI_SHARED_PATHS (separated by os.pathsep); Hub ids
        and 'demo' pass through. `paths` maps a setting's label to its value."""
        if not self.shared:
            return
        uploads = self.upload_folder(root, who).resolve()
        others = (root / UPLOADS).resolve()
        for label, value in paths.items():
            text = str(value or "").strip()
            if not text or text == "demo" or "\x00" in text or not _is_local(text):
                continue  # (a NUL names no file: the settings check refuses it)
            path = Path(text).expanduser().resolve()
            if path.is_relative_to(uploads) or any(map(path.is_relative_to, self.shared_paths)) \
                    or (path.is_relative_to(root.resolve()) and not path.is_relative_to(others)):
                continue
            raise AccessError(Message(
                "{label}: on a shared server files come from your own uploads ('Upload a "
                "dataset file'), the demo set or the Hub, not from paths on the server. "
                "Upload the file, or give a Hub id.", label=as_message(label)))

    def check_config(self, root: Path, who: Who, values, code: tuple = ()) -> None:
        """check_paths over a run's settings (a dict of RunConfig fields or a RunConfig),
        and check_code over those named in `code` (config/registry.py's code_names())."""
        get = values.get if isinstance(values, dict) else (
            lambda name: getattr(values, name, ""))
        self.check_paths(root, who, {"Model": get("model_name_or_path"),
                                     "Dataset": get("dataset_name"),
                                     "Eval dataset": get("eval_dataset_name"),
                                     "Reference model": get("ref_model")})
        for name in code:
            self.check_code(get(name) or "")


def _is_local(text: str) -> bool:
    """A path that names something on this server (a Hub id never starts with / . or ~
    and never exists as a folder here)."""
    return text.startswith(("/", ".", "~", "\\")) or os.path.exists(Path(text).expanduser())


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()
