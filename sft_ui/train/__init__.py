"""Training: RunConfig -> TRL's arguments (arguments.py, no TRL import), the trainer of
a run (engine.py, the only module importing trl), its callbacks (callbacks.py) and the
sample answers they generate (generation.py). Imports torch: the page imports these
only inside the functions that train or generate."""
