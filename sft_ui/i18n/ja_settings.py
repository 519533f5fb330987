"""Japanese for the settings: the label and help text of each RunConfig field
(config/fields.py), but those of a feature with a part of its own (ja_jobs.py,
ja_processes.py, ja_gpu.py). config/fields.py's other messages go into ja.py."""

PAGE = {}

SETTINGS = {
    # Labels
    "Trust remote code": "リモートコードを信頼",
    "Dataset config": "データセットの構成",
    "Train split": "学習用スプリット",
    "Data format": "データ形式",
    "Text field": "テキスト列",
    "Template": "テンプレート",
    "Loss on answers only": "回答部分だけで損失を計算",
    "Text prompts as chat": "テキストのプロンプトをチャット形式で渡す",
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
    "QLoRA: the frozen base model in 4 bits, about a quarter of its memory, a little slower "
    "per step. NF4 through bitsandbytes, under the LoRA adapter; needs LoRA, a CUDA GPU and "
    "the bitsandbytes package.":
        "QLoRA: 凍結したベースモデルを 4 ビットで持ちます。メモリは約 4 分の 1 になり、1 "
        "ステップは少し遅くなります。bitsandbytes の NF4 で、LoRA アダプタの下に置きます。"
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
    "conversations, prompt/completion, instruction/output, else the text field, else a "
    "question and its answer: question/answer, input/output, 質問/回答 and the like).":
        "各行を学習用のテキストにする方法。auto: 列から自動で選びます（messages、"
        "conversations、prompt/completion、instruction/output、次にテキスト列、どれもなければ"
        "質問と回答の列: question/answer、input/output、質問/回答 など）。",
    "For a model with a chat template: each text prompt (prompt/completion and "
    "question/answer files, a preference file's prompt, GRPO's prompts) becomes the "
    "user's turn and its answer the assistant's, in the chat template: the form Chat, "
    "Compare, Evaluate and the samples ask the model in. Off: the text reaches the "
    "model as it is (a base model's plain continuation).":
        "チャットテンプレートを持つモデルでは、テキストのプロンプト（prompt/completion や "
        "question/answer のファイル、選好データの prompt、GRPO のプロンプト）をユーザーの"
        "発言に、その回答をアシスタントの発言にして、チャットテンプレートで渡します。"
        "チャット・比較・評価・サンプルがモデルに尋ねるのと同じ形です。オフ: テキストを"
        "そのままモデルに渡します（ベースモデルに続きを書かせる場合）。",
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
    "Fixed prompts answered during training, one per line. Left as they are (the demo's "
    "questions) with data of your own, the run asks questions of that data instead "
    "(Preview data shows which).":
        "学習中に答えさせる固定のプロンプト。1 行に 1 つ。自分のデータで学習するときにこのまま"
        "（デモの質問）にしておくと、代わりにそのデータの質問を使います（どれを使うかは"
        "「データをプレビュー」に表示されます）。",
    "Length of each sample answer in tokens. Left at 48 with data of your own, the run "
    "raises it to what the data's answers need (Preview data says so).":
        "サンプル回答 1 つの長さ（トークン）。自分のデータで学習するときに 48 のままにしておくと、"
        "データの回答が必要とする長さまで引き上げます（「データをプレビュー」に表示されます）。",
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

MESSAGES = {}
