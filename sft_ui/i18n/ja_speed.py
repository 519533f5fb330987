"""Japanese for the lean CPU training step (train/lean.py) in the plan."""

PAGE = {}

SETTINGS = {}

MESSAGES = {
    "**Padding:** none: on a CPU the rows of a batch go end to end (padding-free), so the "
    "{waste} of padding that batches of {batch} consecutive rows would hold is not computed.":
        "**パディング:** なし。CPU ではバッチの行を端から端へつなげる（パディングなし）ため、"
        "連続する {batch} 行ずつのバッチなら含まれる {waste} のパディングを計算しません。",
}
