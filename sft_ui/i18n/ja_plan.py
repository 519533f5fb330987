"""Japanese for the plan (plan/planner.py, plan/memory.py, plan/oom.py, plan/hardware.py,
ui/plan_panel.py): memory, time, padding, what fits, what to do after running out of
memory, and the precision and speed-ups this machine cannot run."""

# Whose messages go here (see ja.py).
MODULES = ("plan/planner.py", "plan/memory.py", "plan/oom.py", "plan/hardware.py",
           "ui/plan_panel.py")

PAGE = {}

SETTINGS = {}

MESSAGES = {
    # plan/planner.py and plan/memory.py
    "{needed} of {available} available": "{needed}（使えるのは {available}）",
    "Batch per device {batch} -> {new_batch}, accumulation {accum} -> {new_accum}: about "
    "{room}.":
        "デバイスあたりのバッチ {batch} → {new_batch}、勾配累積 {accum} → {new_accum}: "
        "およそ {room}。",
    "{text} The effective batch becomes {new} instead of {old}, the nearest above that "
    "batch {batch} divides.":
        "{text}実効バッチサイズは {old} ではなく {new} になります（バッチ {batch} で割り切れる、"
        "{old} 以上でいちばん近い値です）。",
    "{text} The effective batch stays {total}.": "{text}実効バッチサイズは {total} のままです。",
    "about {seconds} s": "約 {seconds} 秒",
    "about {minutes} min": "約 {minutes} 分",
    "about {hours} h": "約 {hours} 時間",
    # the plan line while a run trains (ui/plan_panel.py run_time)
    "the plan said {duration}; at the run's pace {duration2} in all, {duration3} left":
        "プランでは{duration}、実行のペースでは全体で{duration2}（残り{duration3}）",
    "at the run's pace {duration2} in all, {duration3} left":
        "実行のペースでは全体で{duration2}（残り{duration3}）",
    "the plan said {duration}; the run's own estimate comes after its first steps":
        "プランでは{duration}（実行自体の見積もりは最初の数ステップのあとに出ます）",
    "the run's own estimate comes after its first steps":
        "実行自体の見積もりは最初の数ステップのあとに出ます",
    "The data is not measured (a Hub dataset, or over 64 MB).":
        "データは測っていません（Hub のデータセットか、64 MB を超えるデータです）。",
    "The data could not be measured: {error}": "データを測れませんでした: {error}",
    "Even batch {batch} needs about {room}: shorten {setting}, or turn on activation "
    "checkpointing or LoRA.":
        "バッチ {batch} でもおよそ {room} を使います。{setting} を短くするか、アクティベーション・"
        "チェックポインティングか LoRA をオンにしてください。",
    "Batch {batch} x accumulation {accum} is the largest that fits ({room}).":
        "バッチ {batch} × 勾配累積 {accum} が収まる最大です: {room}。",
    "This run needs about {total} of memory at its peak, but this machine has {available} "
    "available (a run may use {share} of it). Lower the batch size per device and raise "
    "accumulation (Fit to this machine does that), shorten {setting}, or turn on "
    "activation checkpointing or LoRA.":
        "この実行はピーク時におよそ {total} のメモリを使いますが、このマシンで使えるのは "
        "{available} です（実行が使えるのはその {share} まで）。デバイスあたりのバッチサイズを"
        "下げて勾配累積を上げる（「このマシンに合わせる」がそうします）、{setting} を短くする、"
        "またはアクティベーション・チェックポインティングか LoRA をオンにしてください。",
    "the same effective batch": "実効バッチサイズは同じ",
    "{new} examples per device and step instead of {old}":
        "1 ステップあたりの例はデバイスごとに {old} ではなく {new}",
    "Try, in this order: {steps}. Apply suggestion fills in the first.":
        "次の順に試してください: {steps}。「提案を適用」で 1 つ目を設定に入れられます。",
    "halve the batch per device and raise accumulation (batch {batch} x accumulation "
    "{accum}: {same})":
        "デバイスあたりのバッチを半分にして勾配累積を上げる（バッチ {batch} × 勾配累積 "
        "{accum}: {same}）",
    "shorten {setting} ({old} -> {new} tokens)": "{setting} を短くする（{old} → {new} トークン）",
    "turn on activation checkpointing (less memory, some more time)":
        "アクティベーション・チェックポインティングをオンにする（メモリが減り、時間は少し増える）",
    "train a LoRA adapter instead of every weight (no gradients or optimizer state for the "
    "base model)":
        "すべての重みではなく LoRA アダプタを学習する（ベースモデルの勾配とオプティマイザの"
        "状態が要らなくなる）",
    "load the base model in 4 bits under the LoRA adapter (QLoRA, bitsandbytes): a quarter "
    "of the weights' memory":
        "LoRA アダプタの下でベースモデルを 4 ビットで読み込む（QLoRA、bitsandbytes）: "
        "重みのメモリが 4 分の 1 になる",
    "The model's config.json has no {name}: its memory cannot be estimated.":
        "モデルの config.json に {name} がないため、メモリを見積もれません。",
    "Could not read the config.json of {path} ({error_type}), so its memory cannot be "
    "estimated.":
        "{path} の config.json を読めなかった（{error_type}）ため、メモリを見積もれません。",
    # What a preference stage's memory holds (plan/memory.py's memory_notes)
    "{trainer}: the chosen and the rejected answer of each example go through the model "
    "together, {sequences} sequences of up to {length} tokens (prompt and answer) per batch "
    "of {batch}.":
        "{trainer}: 各例の選ばれた回答と退けられた回答をまとめてモデルに通します。バッチ "
        "{batch} あたり、最大 {length} トークン（プロンプトと回答）の系列が {sequences} 本です。",
    "{stage}: each answer is an example of its own, {sequences} sequences of up to "
    "{length} tokens (prompt and answer) per batch.":
        "{stage}: 回答 1 つずつが 1 つの例です。バッチあたり、最大 {length} トークン（プロンプトと"
        "回答）の系列が {sequences} 本です。",
    "A KL batch of mismatched prompts and answers runs through the model without gradients.":
        "プロンプトと別の例の回答を組み合わせた KL 用のバッチを、勾配なしでモデルに通します。",
    "Reference model: none, {stage} needs none.": "参照モデル: なし（{stage} には要りません）。",
    "Reference model: {ref}, a second frozen copy (about {size}); its forward pass runs "
    "without gradients.":
        "参照モデル: {ref}（凍結した 2 つ目のコピー、約 {size}）。その順伝播は勾配なしで"
        "計算します。",
    "Reference model: a second frozen copy of the starting weights (about {size}); its "
    "forward pass runs without gradients.":
        "参照モデル: 学習開始時の重みの凍結した 2 つ目のコピー（約 {size}）。その順伝播は"
        "勾配なしで計算します。",
    "Reference model: the model with the new LoRA adapter switched off, no second copy; its "
    "forward pass runs without gradients.":
        "参照モデル: 新しい LoRA アダプタをオフにしたモデル（2 つ目のコピーはなし）。その順伝播"
        "は勾配なしで計算します。",
    "Reference model: a frozen copy of the finished run's LoRA adapter, no second model; its "
    "forward pass runs without gradients.":
        "参照モデル: 完了した実行の LoRA アダプタの凍結したコピー（2 つ目のモデルはなし）。"
        "その順伝播は勾配なしで計算します。",
    # Plan panel
    "**Tokens per optimizer step:** at most {tokens} (effective batch x {what}; shorter "
    "rows are padded only to the longest in their batch), about {typical} with this data.":
        "**1 ステップあたりのトークン数:** 最大 {tokens}（実効バッチサイズ × {what}。"
        "短い行はバッチ内の最長の行までしかパディングされません）、このデータではおよそ "
        "{typical}。",
    "**Tokens per optimizer step:** at most {tokens} (effective batch x {what}; shorter "
    "rows are padded only to the longest in their batch).":
        "**1 ステップあたりのトークン数:** 最大 {tokens}（実効バッチサイズ × {what}。"
        "短い行はバッチ内の最長の行までしかパディングされません）。",
    "the prompt and the longest answer": "プロンプトと最長の回答",
    "answers' KV cache (beyond the step's own)": "回答の KV キャッシュ（ステップ自体の分を超える分）",
    "vLLM's share of the GPU (its weights and KV cache)": "vLLM が使う GPU の分（重みと KV キャッシュ）",
    "**Run:** {count} steps, at most {tokens} tokens.":
        "**実行:** {count} ステップ、最大 {tokens} トークン。",
    "**Run:** the number of steps is unknown until the data is measured.":
        "**実行:** データを測るまでステップ数はわかりません。",
    "**Run:** the steps that fit the time budget, set by the run's first steps.":
        "**実行:** 時間の予算に収まるステップ数を、実行の最初の数ステップで決めます。",
    "The speed of these settings is not measured yet: the run's first steps measure it "
    "(they train), then set the number of steps.":
        "この設定の速度はまだ測っていません。実行の最初の数ステップ（学習に含む）で測り、"
        "それからステップ数を決めます。",
    "**Peak memory** ({where}, {precision}, {trained} of {params} parameters trained): "
    "about {total} of {available} available: **{fit}**":
        "**ピーク時のメモリ**（{where}、{precision}、{params} 個のパラメータのうち {trained} "
        "個を学習）: 使える {available} のうち約 {total}: **{fit}**",
    "**Time:** not measured yet for this model, device and precision: press *Measure speed* "
    "(a few training steps).":
        "**時間:** このモデル・デバイス・精度ではまだ測っていません。*速度を測る* を押して"
        "ください（数ステップ学習します）。",
    "**Time:** {duration} per step ({speed} tokens/s measured on {device}).":
        "**時間:** 1 ステップあたり{duration}（{device} で測定した {speed} トークン/秒）。",
    "{count} steps: {duration}.": "{count} ステップで{duration}。",
    "{count} steps with {rounds} rounds of sample answers (about {seconds} s each, "
    "measured in a run): {duration}.":
        "{count} ステップと見本の回答 {rounds} 回（1 回約 {seconds} 秒、実行で測定）で{duration}。",
    "**Time:** not measured yet for these settings: a step of this stage is mostly the "
    "answers the model writes, so a run of them measures it (a time budget sets the steps "
    "on the run's first steps).":
        "**時間:** この設定ではまだ測っていません。このステージの 1 ステップはほとんどが"
        "モデルが回答を書く時間なので、この設定の実行が測ります（時間予算は実行の最初の"
        "ステップでステップ数を決めます）。",
    "Measure speed times training steps on random tokens; a step of this stage is mostly "
    "the answers the model writes: a run of these settings measures it.":
        "速度の測定はランダムなトークンで学習ステップの時間を測りますが、このステージの "
        "1 ステップはほとんどがモデルが回答を書く時間です。この設定の実行が測ります。",
    "At most: every answer counted at its longest.":
        "すべての回答を最長として数えた上限です。",
    "At most: every row counted at max_length.": "すべての行を max_length として数えた上限です。",
    "**Padding:** none: packing fills each sequence up to max_length.":
        "**パディング:** なし。パッキングが各系列を max_length まで埋めます。",
    "**Padding:** {waste} of the tokens in batches of {batch} consecutive rows are padding "
    "(measured on the first {rows} rows).":
        "**パディング:** 連続する {batch} 行ずつのバッチでは、トークンの {waste} がパディング"
        "です（先頭の {rows} 行で測定）。",
    "Packing would put these rows into about {sequences} sequences of max_length: {share} "
    "fewer sequences per epoch, and no padding.":
        "パッキングすると、これらの行は max_length の系列およそ {sequences} 本に収まります。"
        "1 エポックあたりの系列が {share} 減り、パディングもなくなります。",
    "**No plan:** {error_type}: {error}": "**見積もれません:** {error_type}: {error}",
    "A run is training: measure after it ends (both would share the machine, and the "
    "figure would be wrong).":
        "実行が学習中です。終わってから測ってください（マシンを分け合うことになり、正しい"
        "数字が出ません）。",
    "**Measuring failed:** {error_type}: {error}": "**測定に失敗しました:** {error_type}: {error}",
    "Measured {speed} tokens/s.": "{speed} トークン/秒と測定しました。",
    "No suggestion to apply: the last run did not run out of memory.":
        "適用できる提案はありません。最後の実行はメモリ不足になっていません。",
    "Filled in the settings of run {name} with {changes}. Press Start.":
        "実行 {name} の設定を {changes} にして入力しました。「開始」を押してください。",
    # Precision and speed-ups this machine cannot run
    "bf16 and fp16 are both on: choose one mixed precision (or leave both on auto).":
        "bf16 と fp16 が両方オンです。混合精度はどちらか一方にしてください（両方 auto の"
        "ままでも構いません）。",
    "Load the base in 4 bits (QLoRA) trains a LoRA adapter on the frozen 4-bit model: turn "
    "on Use LoRA too.":
        "ベースを 4 ビットで読み込む（QLoRA）は、凍結した 4 ビットのモデルの上で LoRA "
        "アダプタを学習します。「LoRA を使う」もオンにしてください。",
    "fp16 mixed precision needs a CUDA GPU, and this machine has none: set fp16 to auto.":
        "fp16 混合精度には CUDA GPU が必要ですが、このマシンにはありません。fp16 を auto "
        "にしてください。",
    "This GPU ({name}) has no bf16: set bf16 to auto, which trains in fp16 here.":
        "この GPU（{name}）は bf16 に対応していません。bf16 を auto にしてください。"
        "ここでは fp16 で学習します。",
    "{label}: a CUDA GPU is needed, and this machine has none. Turn it off.":
        "{label}: CUDA GPU が必要ですが、このマシンにはありません。オフにしてください。",
    "{label}: a CUDA GPU is needed, and this machine has none.":
        "{label}: CUDA GPU が必要ですが、このマシンにはありません。",
    "{label}: the {package} package is needed. pip install {package} (or "
    "requirements-gpu.txt), then restart.":
        "{label}: {package} パッケージが必要です。pip install {package}（または "
        "requirements-gpu.txt）でインストールして、再起動してください。",
    "fp16 mixed precision (no bf16)": "fp16 混合精度（bf16 は非対応）",
    "QLoRA (a 4-bit base) and Liger kernels need a CUDA GPU: this machine has none.":
        "QLoRA（4 ビットのベース）と Liger カーネルには CUDA GPU が必要ですが、このマシンには"
        "ありません。",
    "{label}: ready ({package} is installed).":
        "{label}: 使えます（{package} はインストール済みです）。",
    "{label}: needs the {package} package (pip install {package}, then restart).":
        "{label}: {package} パッケージが必要です（pip install {package} のあと再起動）。",
    "**Sized from the data** (settings left at their defaults):":
        "**データに合わせた設定**（既定値のままだった設定）:",
}
