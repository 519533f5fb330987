"""A chat Space for a model fine-tuned in SFT Studio: replies stream token by token."""
import os
import threading

import gradio as gr
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, TextIteratorStreamer

MODEL_ID = os.environ.get("MODEL_ID", "__MODEL_ID__")
TITLE = os.environ.get("SPACE_TITLE", "__TITLE__")

tokenizer = AutoTokenizer.from_pretrained(MODEL_ID)
model = AutoModelForCausalLM.from_pretrained(MODEL_ID, dtype=torch.float32)
model.eval()


def _text(content):
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content or "")


def respond(message, history, max_new_tokens=256, temperature=0.7):
    messages = [{"role": m["role"], "content": _text(m["content"])} for m in history or []
                if isinstance(m, dict) and m.get("role") in ("user", "assistant")]
    messages.append({"role": "user", "content": _text(message)})
    if tokenizer.chat_template:
        prompt = tokenizer.apply_chat_template(messages, tokenize=False,
                                               add_generation_prompt=True)
    else:
        prompt = "\n".join(m["content"] for m in messages) + "\n"
    inputs = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
    sampling = {"do_sample": True, "temperature": float(temperature)} if temperature > 0 \
        else {"do_sample": False}
    threading.Thread(target=model.generate, daemon=True, kwargs=dict(
        **inputs, streamer=streamer, max_new_tokens=int(max_new_tokens),
        pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id, **sampling)).start()
    reply = ""
    for piece in streamer:
        reply += piece
        yield reply


demo = gr.ChatInterface(
    respond, title=TITLE, api_name="chat",
    additional_inputs=[gr.Slider(16, 1024, 256, step=16, label="Max new tokens"),
                       gr.Slider(0, 1.5, 0.7, step=0.05, label="Temperature (0: greedy)")])

if __name__ == "__main__":
    demo.launch()
