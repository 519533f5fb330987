"""Japanese for the lean CPU training step (train/lean.py) in the plan."""

MODULES = ("train/lean.py",)  # whose messages go here (see ja.py)

PAGE = {}

SETTINGS = {}

MESSAGES = {
    "fp32 (bf16 not native or not faster here)":
        "fp32（このマシンでは bf16 がネイティブ非対応か、fp32 より速くない）",
    "**Padding:** none: on a CPU the rows of a batch go end to end (padding-free), so the "
    "{waste} of padding that batches of {batch} consecutive rows would hold is not computed.":
        "**パディング:** なし。CPU ではバッチの行を端から端へつなげる（パディングなし）ため、"
        "連続する {batch} 行ずつのバッチなら含まれる {waste} のパディングを計算しません。",
}
