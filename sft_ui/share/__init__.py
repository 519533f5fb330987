"""Taking a run elsewhere: export and merge (export.py), the model card (card.py), the
Hub push and Spaces (hub.py), and the settings as a `trl sft` YAML, a Python script and
command lines (recipe.py)."""
