"""`python -m sft_ui ...`: the command line (cli.py)."""
from sft_ui.cli import main

if __name__ == "__main__":
    main()
