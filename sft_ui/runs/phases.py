"""What a run does now and how long the rest takes: its phase (train/events.py PHASES)
and since when, the pace of the steps of this (re)start, the rounds of sample answers
done and what the training process said the rest takes besides the steps, the ETA from
them, and the status message of each phase. runs/run.py keeps one `Phases` per
(re)start of a run. Knows nothing of the run's folder, the trainer or Gradio."""
from __future__ import annotations

from sft_ui.i18n.message import Message
from sft_ui.plan.speed import round_steps


class Phases:
    """One (re)start of a run's phases and pace, for its ETA."""

    def __init__(self):
        self.pace: Pace | None = None  # this (re)start's steps and times, for the ETA
        # What the run does now (train/events.py PHASES) and since when; the steps whose
        # round of sample answers was written; what the training process said the rest
        # takes besides the steps (sample_steps, round_seconds, save_seconds)
        self.doing: tuple[str, float] = ("", 0.0)
        self.rounds_done: set[int] = set()
        self.after: dict = {}

    def reached(self, step: int, now: float) -> None:
        """A training step ended (the first call starts the pace at the (re)start's step)."""
        if self.pace is None:
            self.pace = Pace(step)
        self.pace.reached(step, now)

    def enter(self, name: str, info: dict, step: int, now: float) -> None:
        """The run does `name` now, with what the rest will take in `info`; `step` is the
        step it reached."""
        doing, since = self.doing
        if doing == "samples" and self.pace is not None:  # not a training step's time
            self.pace.pause(now - since)
        self.doing = (name, since if name == doing == "saving" else now)
        if name == "samples":
            self.rounds_done.add(int(info.get("step", step)))
        self.after.update({k: info[k] for k in ("sample_steps", "round_seconds",
                                                "save_seconds") if k in info})

    def eta(self, step: int, max_steps: int, deadline: float | None,
            now: float) -> float | None:
        """Seconds until the run has its model: the steps left at the pace of those trained
        since this (re)start, then the rounds of sample answers and the save left (as the
        training process said they take: _after_steps); never past a time budget's
        deadline; None until two steps have ended. While answers are written or the model
        saved it never says 0."""
        if self.pace is None:
            return None
        doing, since = self.doing
        eta = self.pace.eta(max_steps, now, now - since if doing == "samples" else 0.0)
        if eta is None:
            return None
        eta += self._after_steps(step, max_steps, now)
        least = 1.0 if doing in ("samples", "saving") else 0.0
        if deadline is not None:  # a time budget ends it by then
            eta = min(eta, deadline - now)
        return max(eta, least)

    def _after_steps(self, reached: int, max_steps: int, now: float) -> float:
        """The seconds of the sample rounds and the save still to come: each round (one
        under way, its rest) at its measured or remembered time, else a step's."""
        if "save_seconds" not in self.after:  # a training process that said nothing
            return 0.0
        doing, since = self.doing
        assert self.pace is not None  # (eta, which asks, has a pace)
        every = int(self.after.get("sample_steps") or 0)
        each = self.after.get("round_seconds") or self.pace.per_step() or 0.0
        started = self.pace.start_step
        # A round at the step reached is still to come until it begins (not the one the
        # (re)start began at: its answers were written before training, or before a stop).
        left = sum(1 for step in round_steps(every, max_steps)
                   if step not in self.rounds_done and
                   (step >= reached if reached > started else step > reached))
        seconds = left * each
        if doing == "samples":
            seconds += max(each - (now - since), 0.0)
        save = float(self.after["save_seconds"] or 0.0)
        return seconds + (max(save - (now - since), 0.0) if doing == "saving" else save)


class Pace:
    """The steps of one (re)start of training and when they ended: a resumed run counts
    only the steps it trains now (its step starts at the checkpoint's), and the pace is
    measured from the end of the first step, so loading the model and the data, the
    answers before training and the first step's warm-up do not count."""

    def __init__(self, start_step: int):
        self.start_step = start_step
        self.paused = 0.0  # seconds of sample answers since the first step's end
        # (step, time, paused) at the first step's end, and at the latest step's
        self.first: tuple[int, float, float] | None = None
        self.last: tuple[int, float, float] | None = None

    def reached(self, step: int, now: float) -> None:
        if step <= self.start_step:  # the (re)start itself, before any step
            return
        if self.first is None:
            self.first = (step, now, self.paused)
        self.last = (step, now, self.paused)

    def pause(self, seconds: float) -> None:
        """Time between two steps' ends that no step took (a round of sample answers):
        the run's ETA counts the rounds on their own."""
        if self.first is not None:
            self.paused += seconds

    def per_step(self) -> float | None:
        if self.first is None or self.last is None or self.last[0] <= self.first[0]:
            return None
        (first_step, first_time, first_paused), (step, then, paused) = self.first, self.last
        return max(then - first_time - (paused - first_paused), 0.0) / (step - first_step)

    def eta(self, max_steps: int, now: float, pausing: float = 0.0) -> float | None:
        """The steps left (`pausing`: the seconds of a round under way since it began)."""
        per_step = self.per_step()
        if per_step is None:
            return None
        assert self.last is not None  # (per_step measured from it)
        step, then, paused = self.last
        left = max(max_steps - step, 0)
        trained = now - then - (self.paused - paused) - pausing  # on the step under way
        # Count down through the step under way, but not below the steps after it.
        return max(per_step * left - trained, per_step * (left - 1), 0.0)


def phase_message(name: str, info: dict) -> Message | str:
    """The status message of a run's phase (train/events.py PHASES); "" for one not
    known."""
    if name == "loading":
        return Message("Loading the model and the data...")
    if name == "samples":
        number, rounds = info.get("round", 1), info.get("rounds", 1)
        if info.get("step") == 0:
            return Message("Writing sample answers before training (round {number} of "
                           "{rounds})...", number=number, rounds=rounds)
        if number == rounds:
            return Message("Writing the final sample answers (round {number} of {rounds})...",
                           number=number, rounds=rounds)
        return Message("Writing sample answers (round {number} of {rounds})...",
                       number=number, rounds=rounds)
    if name == "training":
        processes = info.get("processes") or 1
        return Message("Training...") if processes == 1 else \
            Message("Training on {processes} processes...", processes=processes)
    if name == "saving":
        return Message("Saving the model...")
    return ""
