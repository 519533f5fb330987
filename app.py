"""SFT Studio: serve the app (honours GRADIO_SERVER_NAME / GRADIO_SERVER_PORT)."""
from sft_ui.cli import main

if __name__ == "__main__":
    main(["serve"])
