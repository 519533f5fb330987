"""The sweeps of a runs folder: the one running on this server (one at a time), those
kept in sweeps/<id>.json, each seen, stopped and resumed by its owner only; those an
app's stop interrupted are settled when the next app starts (Sweep.settle)."""
from __future__ import annotations

import threading
from pathlib import Path

from sft_ui.access import LOCAL_OWNER
from sft_ui.i18n.message import Message
from sft_ui.runs import RunError
from sft_ui.sweeps.space import SweepSpec
from sft_ui.sweeps.sweep import FOLDER, Sweep, SweepError


class Sweeps:
    def __init__(self, queue, manager, scorer):
        self.queue, self.manager, self.scorer = queue, manager, scorer
        self.root = Path(manager.root)
        self._live: dict[str, Sweep] = {}
        self._lock = threading.Lock()
        self.damaged: list[str] = []  # files of sweeps/ that cannot be read, left as they are
        self._settle()

    def _settle(self) -> None:
        """The sweeps an app stopped while they ran, made true (Sweep.settle): their
        trials' rows and the queue agree before anything else reads them. A file that
        cannot be read (cut short, damaged) is left as it is and named in `damaged`."""
        for path in sorted((self.root / FOLDER).glob("sweep-*.json")):
            try:
                sweep = Sweep.load(path)
                if sweep.cut:
                    sweep.settle(self.queue)
            except (ValueError, KeyError, TypeError, OSError):
                self.damaged.append(path.name)

    def start(self, spec: SweepSpec, owner: str = LOCAL_OWNER, token: str = "") -> Sweep:
        """Check the sweep's settings as Start checks them and run it in a thread.
        `token`: for trials on Hugging Face Jobs, kept in memory only."""
        self.manager.check(spec.base, token=token, idle=False)
        with self._lock:
            self._none_running()
            sweep = Sweep(spec, owner, self.root)
            self._live[sweep.id] = sweep
        self._run(sweep, token)
        return sweep

    def resume(self, sweep_id: str, owner: str | None = None, token: str = "") -> Sweep:
        """Go on with a sweep its app's stop interrupted, where it was (Sweep.resume)."""
        with self._lock:
            self._none_running()
            sweep = self.get(sweep_id, owner)
            if sweep.state != "interrupted":
                raise SweepError(Message("Sweep {id} is {state}: only a sweep the app's stop "
                                         "interrupted can be resumed.", id=sweep.id,
                                         state=Message(sweep.state)))
            self.manager.check(sweep.spec.base, token=token, idle=False)
            sweep.resume()
            self._live[sweep.id] = sweep
        self._run(sweep, token)
        return sweep

    def _none_running(self) -> None:
        running = [s for s in self._live.values() if not s._done.is_set()]
        if running:
            raise SweepError(Message("Sweep {id} is running: stop it, or wait until it "
                                     "ends, before starting another.", id=running[0].id))

    def _run(self, sweep: Sweep, token: str) -> None:
        sweep.save()
        threading.Thread(target=sweep.run, name=sweep.id, daemon=True,
                         args=(self.queue, self.manager, self.scorer, token)).start()

    def get(self, sweep_id: str, owner: str | None = None) -> Sweep:
        sweep_id = str(sweep_id or "").strip()
        sweep = self._live.get(sweep_id)
        path = self.root / FOLDER / f"{sweep_id}.json"
        if sweep is None and "/" not in sweep_id and path.exists():
            try:
                sweep = Sweep.load(path)
            except (ValueError, KeyError, TypeError, OSError):
                sweep = None
        if sweep is None or (owner is not None and sweep.owner != owner):
            raise SweepError(Message("No sweep {value} of yours: the sweep panel lists "
                                     "yours.", value=sweep_id[:40]))
        return sweep

    def ids(self, owner: str | None = None) -> list[str]:
        """The sweeps of the folder (`owner`'s only), newest first."""
        folder = self.root / FOLDER
        found = {p.stem for p in folder.glob("sweep-*.json")} if folder.exists() else set()
        out = []
        for sweep_id in sorted(found | set(self._live), reverse=True):
            try:
                self.get(sweep_id, owner)
            except SweepError:
                continue
            out.append(sweep_id)
        return out

    def stop(self, sweep_id: str, owner: str | None = None) -> Sweep:
        """Stop the sweep: its running trials stop and save, a queued one leaves."""
        sweep = self.get(sweep_id, owner)
        sweep._stop.set()
        return sweep

    def wait(self, sweep: Sweep, timeout: float | None = None) -> bool:
        return sweep._done.wait(timeout)

    def close(self) -> None:
        for sweep in list(self._live.values()):
            sweep._stop.set()
        for sweep in list(self._live.values()):
            if not sweep._done.wait(60):
                raise RunError(Message("Sweep {id} did not stop within 60 s.", id=sweep.id))
