"""SFT Studio: serve the app (honours GRADIO_SERVER_NAME / GRADIO_SERVER_PORT)."""
import os

from sft_ui.ui import build_app

if __name__ == "__main__":
    build_app().queue().launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                               server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
