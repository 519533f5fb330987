"""Japanese for planning real models on GPUs: the model list, the "Plan for" choice, which
of full fine-tuning, LoRA and QLoRA fit a GPU, and the precision, optimizer and kernels
chosen there (plan/catalog.py, targets.py, modes.py, kernels.py, ui/target_plan.py)."""

# Whose messages go here (see ja.py).
MODULES = ("plan/catalog.py", "plan/targets.py", "plan/modes.py", "plan/kernels.py",
           "ui/target_plan.py")

PAGE = {
    "Plan for": "計画の対象",
    "Where the run will train: this machine, or a GPU as a Space offers them (or type a size "
    "such as 24 GB). The plan and Fit then say what fits there.":
        "学習を実行する場所: このマシン、または Space で選べる GPU（24 GB のようにサイズを入力"
        "することもできます）。計画と「合わせる」ボタンは、そこに収まる設定を示します。",
    "Fit to this GPU": "この GPU に合わせる",
}

SETTINGS = {
    "The optimizer. auto: fused AdamW (on a GPU and on a CPU), and bitsandbytes' paged "
    "8-bit AdamW for QLoRA on a card of 24 GB or less (the plan says which and why). The "
    "8-bit ones need a CUDA GPU and bitsandbytes.":
        "オプティマイザ。auto: 融合 AdamW（GPU でも CPU でも）、24 GB 以下のカードでの QLoRA "
        "では bitsandbytes のページング 8 ビット AdamW（どれを選んだかと理由は計画に表示され"
        "ます）。8 ビット版には CUDA GPU と bitsandbytes が必要です。",
    "Faster steps and less memory on a CUDA GPU. Liger's fused Triton kernels for the "
    "model's layers (RMSNorm, RoPE, SwiGLU); needs the liger-kernel package. Blank: on where "
    "a CUDA GPU and the package are there.":
        "CUDA GPU でステップが速くなり、メモリも減ります。モデルの層（RMSNorm、RoPE、SwiGLU）"
        "に Liger の融合 Triton カーネルを使います。liger-kernel パッケージが必要です。空欄: "
        "CUDA GPU とこのパッケージがあるときに有効。",
}

MESSAGES = {
    # plan/catalog.py: a gated model in the model list (its licence's name stays as written)
    "{listed} · gated: accept its licence on the Hub and sign in":
        "{listed} · ゲート付き: Hub でライセンスに同意し、サインインしてください",
    # plan/targets.py
    "this machine": "このマシン",
    "This machine": "このマシン",
    "this machine ({device})": "このマシン（{device}）",
    "Nvidia T4 small (16 GB)": "Nvidia T4 スモール（16 GB）",
    "Nvidia T4 medium (16 GB)": "Nvidia T4 ミディアム（16 GB）",
    "Nvidia L4 (24 GB)": "Nvidia L4（24 GB）",
    "Nvidia A10G small (24 GB)": "Nvidia A10G スモール（24 GB）",
    "Nvidia A10G large (24 GB)": "Nvidia A10G ラージ（24 GB）",
    "Nvidia A100 (40 GB)": "Nvidia A100（40 GB）",
    "Nvidia A100 large (80 GB)": "Nvidia A100 ラージ（80 GB）",
    "Nvidia H100 (80 GB)": "Nvidia H100（80 GB）",
    "A CUDA GPU with {size} GB (bf16 assumed)": "{size} GB の CUDA GPU（bf16 対応と仮定）",
    "Unknown GPU to plan for: '{name}'. Choose one of {names}, a size such as '24 GB', or "
    "leave it blank for this machine.":
        "計画の対象として不明な GPU です: '{name}'。{names} のいずれか、'24 GB' のようなサイズを"
        "選ぶか、このマシンなら空欄にしてください。",
    # plan/modes.py
    "full fine-tuning": "フル・ファインチューニング",
    "LoRA (16-bit base)": "LoRA（16 ビットのベース）",
    "LoRA (fp32 base)": "LoRA（fp32 のベース）",
    "QLoRA (4-bit base)": "QLoRA（4 ビットのベース）",
    "batch {batch} x accumulation {accum}, {setting} {length}, activation checkpointing on: "
    "about {size} of {available}":
        "バッチ {batch} × 勾配累積 {accum}、{setting} {length}、アクティベーション・"
        "チェックポインティング オン: 約 {size}（{available} 中）",
    "batch {batch} x accumulation {accum}, {setting} {length}, activation checkpointing off: "
    "about {size} of {available}":
        "バッチ {batch} × 勾配累積 {accum}、{setting} {length}、アクティベーション・"
        "チェックポインティング オフ: 約 {size}（{available} 中）",
    "batch {batch} x accumulation {accum}, {setting} {length}, activation checkpointing on: "
    "about {size} of {available} ({setting} shortened from {old})":
        "バッチ {batch} × 勾配累積 {accum}、{setting} {length}、アクティベーション・"
        "チェックポインティング オン: 約 {size}（{available} 中。{setting} は {old} から"
        "短縮）",
    "batch {batch} x accumulation {accum}, {setting} {length}, activation checkpointing off: "
    "about {size} of {available} ({setting} shortened from {old})":
        "バッチ {batch} × 勾配累積 {accum}、{setting} {length}、アクティベーション・"
        "チェックポインティング オフ: 約 {size}（{available} 中。{setting} は {old} から"
        "短縮）",
    " ({setting} shortened from {old})": "（{setting} は {old} から短縮）",
    "even batch {batch} at {setting} {length} with activation checkpointing needs about "
    "{size} of {available}":
        "バッチ {batch}、{setting} {length}、アクティベーション・チェックポインティング"
        "ありでも約 {size} が必要です（{available} 中）",
    # plan/planner.py
    "Nothing fits {where}: {label}: {reason}.": "{where} には何も収まりません: {label}: {reason}。",
    # plan/memory.py
    "This run needs about {total} of GPU memory at its peak, but {device} has {available} "
    "free: it would run out of memory. Try, in this order: {steps}. Fit to this machine "
    "picks what fits.":
        "この実行はピーク時に約 {total} の GPU メモリを使いますが、{device} の空きは "
        "{available} です: メモリが足りなくなります。次の順に試してください: {steps}。"
        "「このマシンに合わせる」で収まる設定を選べます。",
    # plan/hardware.py
    "An 8-bit optimizer": "8 ビットのオプティマイザ",
    # plan/kernels.py
    "set in the settings": "設定で指定されています",
    "{device} computes bf16 natively": "{device} は bf16 をネイティブに計算します",
    "{device} has no bf16: fp16 mixed precision, with loss scaling against underflow":
        "{device} には bf16 がありません: fp16 混合精度（アンダーフローを防ぐ損失スケーリング"
        "付き）",
    "bf16 is not faster than fp32 on this CPU (emulated without avx512_bf16 it is 10-125x "
    "slower; measured without AMX, 0.6x)":
        "この CPU では bf16 は fp32 より速くありません（avx512_bf16 がなければエミュレーション"
        "で 10～125 倍遅く、AMX がない場合の実測は 0.6 倍）",
    "fused AdamW on a CPU too: 0.09 s a step for the default model against 0.3-0.45 s "
    "for the per-tensor loop":
        "CPU でも融合 AdamW: 既定のモデルで 1 ステップ 0.09 秒（テンソルごとのループでは "
        "0.3～0.45 秒）",
    "QLoRA on a card of 24 GB or less: bitsandbytes' paged 8-bit AdamW keeps the optimizer "
    "state small and pages it out under memory spikes":
        "24 GB 以下のカードでの QLoRA: bitsandbytes のページング 8 ビット AdamW はオプティマイザ"
        "の状態を小さく保ち、メモリが急増したときは退避します",
    "fused AdamW: one CUDA kernel for all the weights":
        "融合 AdamW: すべての重みを 1 つの CUDA カーネルで更新します",
    "Liger's Triton kernels need a CUDA GPU": "Liger の Triton カーネルには CUDA GPU が必要です",
    "the liger-kernel package is not installed (pip install liger-kernel)":
        "liger-kernel パッケージがインストールされていません（pip install liger-kernel）",
    "liger-kernel is installed there: fused RMSNorm, RoPE and SwiGLU, about a fifth less "
    "activation memory":
        "そこには liger-kernel があります: RMSNorm、RoPE、SwiGLU を融合し、アクティベーションの"
        "メモリが約 5 分の 1 減ります",
    "off without packing: TRL 1.16 then stops enforcing max_length, so memory would not be "
    "bounded; turn on packing instead":
        "パッキングなしではオフ: そのとき TRL 1.16 は max_length を守らなくなり、メモリに上限が"
        "なくなります。代わりにパッキングをオンにしてください",
    "the 'wrapped' packing strategy pads nothing anyway":
        "'wrapped' のパッキング方式はもともとパディングしません",
    "packing (bfd) runs padding-free, each example kept apart by FlashAttention's "
    "variable-length kernels":
        "パッキング（bfd）はパディングなしで動き、例どうしは FlashAttention の可変長カーネルで"
        "分けられます",
    "on a CPU the studio's own training step lays the rows of each batch end to end, so no "
    "padding is computed (TRL's padding_free itself stays off without packing)":
        "CPU ではスタジオ独自の学習ステップがバッチの行を端から端へつなぐので、パディングは"
        "計算されません（パッキングなしでは TRL の padding_free 自体はオフのままです）",
    "packing (bfd) runs padding-free; TRL 1.16 documents it for FlashAttention 2/3 only: with "
    "SDPA (no flash-attn installed) transformers keeps the examples apart with a block mask, "
    "correct but its attention spans the whole packed row":
        "パッキング（bfd）はパディングなしで動きます。TRL 1.16 の説明では FlashAttention 2/3 専用"
        "です: SDPA（flash-attn なし）では transformers がブロック・マスクで例どうしを分けます。"
        "結果は正しいものの、アテンションはパックされた行全体にかかります",
    # ui/target_plan.py, ui/plan_panel.py
    "on": "オン",
    "off": "オフ",
    "precision": "精度",
    "optimizer": "オプティマイザ",
    "padding-free batching": "パディングなしのバッチ",
    "on {where}": "対象: {where}",
    "**Full fine-tuning, LoRA or QLoRA on {where}** (GPU memory or RAM {size}; a setup fits "
    "under 80% of it):":
        "**{where} でのフル・ファインチューニング、LoRA、QLoRA**（GPU メモリまたは RAM "
        "{size}。その 80% 未満なら収まるとします）:",
    "| way to train | fits? | setup | peak memory |":
        "| 学習の方法 | 収まるか | 設定 | ピーク時のメモリ |",
    "| {label} | **{fit}** | {reason} | {size} |": "| {label} | **{fit}** | {reason} | {size} |",
    "**Fit applies {label}:** {reason}.": "**「合わせる」は {label} を適用します:** {reason}。",
    "**Nothing fits there:** shorten max_length, or choose a smaller model or a larger GPU.":
        "**そこには何も収まりません:** max_length を短くするか、もっと小さいモデルか大きい GPU "
        "を選んでください。",
    "**Expected speed there:** {speed} tokens/s (measured).":
        "**そこでの見込みの速度:** {speed} トークン/秒（測定値）。",
    "**Expected speed there:** not measured for this model and setup on {where} yet.":
        "**そこでの見込みの速度:** {where} でのこのモデルと設定ではまだ測定されていません。",
    "**Precision and kernels there:**": "**そこでの精度とカーネル:**",
    "{label}: **{state}**: {reason}": "{label}: **{state}**: {reason}",
    "**Time:** not measured on {device} for these settings yet (Measure speed measures this "
    "machine; a run there remembers its speed).":
        "**時間:** {device} ではこの設定の速度がまだ測定されていません（「速度を測る」はこの"
        "マシンで測ります。そこで実行すれば速度が記録されます）。",
}
