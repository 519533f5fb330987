"""Training: RunConfig -> TRL's arguments (arguments.py, no TRL import), the trainer of
a run (engine.py: SFTTrainer with the lean CPU step of lean.py, or a preference stage's
trainer from preference.py; TRL itself loads through sft_ui/lazy.py), the model it
trains (policy.py), its callbacks (callbacks.py) and the sample answers they generate
(generation.py), the event protocol (events.py) and the run's log (log.py). Imports
torch: the page imports these only inside the functions that train or generate."""
