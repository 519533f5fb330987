"""Japanese for preference tuning in the page (ui/stage_view.py, runs/next_stage.py, and
the preference parts of the data preview and the live view): the panels that follow the
stage, Continue with preference tuning, the preview of preference rows and the reward
plots; also the labels and help of the preference settings (config/fields.py)."""

MODULES = ("ui/stage_view.py", "runs/next_stage.py")  # whose messages go here (see ja.py)

PAGE = {
    "Preference tuning": "選好チューニング",
    "Continue with preference tuning": "選好チューニングに進む",
    # The live view's reward plots (ui/live_view.py)
    "Rewards (chosen, rejected, margin)": "報酬（選ばれた回答・退けられた回答・差）",
    "Reward accuracy": "報酬の正解率",
    "reward": "報酬",
    "accuracy": "正解率",
}

SETTINGS = {
    "Stage": "学習の段階",
    "What the run trains. sft: supervised fine-tuning, the model learns to write the "
    "examples' answers. dpo, orpo, kto: preference tuning, usually after sft: the model "
    "learns to prefer the chosen answer to the rejected one (DPO: pairs, kept near a "
    "reference model; ORPO: pairs, no reference; KTO: answers labelled good or bad). "
    "Preference data: 'demo-preference' (built in) or prompt/chosen/rejected rows.":
        "この実行で何を学習するかです。`sft`: 教師ありファインチューニング。モデルは例の回答を"
        "書けるように学びます。`dpo`、`orpo`、`kto`: 選好チューニング（ふつうは `sft` のあと）。"
        "モデルは退けられた回答より選ばれた回答を好むように学びます（DPO: 回答の組、参照"
        "モデルの近くにとどめる。ORPO: 回答の組、参照モデルなし。KTO: 良い・悪いのラベル付き"
        "の回答）。選好データ: 'demo-preference'（組み込み）か、prompt/chosen/rejected の行。",
    "'demo' (the built-in set), 'demo-preference' (its preference pairs, for dpo/orpo/kto), "
    "a Hub dataset id, an uploaded file (.jsonl, .json, .csv, .tsv, .parquet, .txt) or a "
    "folder written by save_to_disk.":
        "'demo'（組み込みのデータ）、'demo-preference'（その選好の組。`dpo`/`orpo`/`kto` 用）、Hub "
        "のデータセット ID、アップロードしたファイル（.jsonl、.json、.csv、.tsv、.parquet、"
        ".txt）、または save_to_disk で書き出したフォルダです。",
    "Beta": "ベータ（beta）",
    "Beta: how strongly the preference is weighed. DPO and KTO: how far the model may move "
    "from the reference model (higher: stays nearer; 0.1 is common). ORPO: the weight of "
    "the preference term beside the SFT loss.":
        "選好をどれだけ重く見るかです。DPO と KTO: モデルが参照モデルからどこまで離れてよいか"
        "（大きいほど近くにとどまります。0.1 がよく使われます）。ORPO: SFT の損失に加える選好"
        "の項の重み。",
    "Loss type": "損失の種類",
    "The preference loss. auto: the trainer's own (DPO: sigmoid; KTO: kto). DPO also: ipo, "
    "hinge, robust, apo_zero, apo_down, sigmoid_norm. KTO also: apo_zero_unpaired.":
        "選好の損失関数です。`auto`: トレーナーの既定（DPO: `sigmoid`、KTO: `kto`）。DPO では"
        "ほかに `ipo`、`hinge`、`robust`、`apo_zero`、`apo_down`、`sigmoid_norm`。KTO ではほかに "
        "`apo_zero_unpaired`。",
    "Reference model": "参照モデル",
    "The reference model DPO and KTO keep the model near. Blank: the model training starts "
    "from (with LoRA that is the model with the adapter switched off: no second copy in "
    "memory). Or a run's model folder, another folder or a Hub id: loaded as a second, "
    "frozen copy.":
        "DPO と KTO がモデルをその近くにとどめる参照モデルです。空欄: 学習を始めるモデル"
        "（LoRA ではアダプタを切ったモデルなので、メモリに 2 つ目のコピーを持ちません）。"
        "または実行のモデルフォルダ、ほかのフォルダ、Hub の ID: 凍結した 2 つ目のコピーとして"
        "読み込みます。",
}

MESSAGES = {
    # ui/stage_view.py and runs/next_stage.py: Continue with preference tuning
    "**Filled in a DPO run after run {run_id}.** Check the settings, then press Start.":
        "**実行 {run_id} の続きとして DPO の実行を設定しました。** 設定を確かめてから開始を"
        "押してください。",
    "Cannot continue:": "続けられません:",
    # ui/train_tab.py: Start met an error that is no person-facing one (the page says it)
    "**Start failed:** {error_type}: {error}": "**開始に失敗しました:** {error_type}: {error}",
    "No finished SFT run to continue.": "続きを学習できる、終わった SFT の実行がありません。",
    "Model: the model run {run_id} saved (`{folder}`).":
        "モデル: 実行 {run_id} が保存したモデル（`{folder}`）。",
    "Stage: `{stage}`.": "学習の段階: `{stage}`。",
    "Dataset: `{name}`, the preference pairs of the demo set.":
        "データセット: `{name}`（デモデータの選好の組）。",
    "Dataset: choose preference data (prompt/chosen/rejected rows); run {run_id} trained on "
    "`{name}`, which holds SFT examples.":
        "データセット: 選好データ（prompt/chosen/rejected の行）を選んでください。実行 "
        "{run_id} が学習した `{name}` は SFT の例です。",
    "LoRA: on, as in the SFT run: its adapter trains on, with a frozen copy of it as the "
    "reference model.":
        "LoRA: SFT の実行と同じく有効。そのアダプタを続けて学習し、その凍結コピーを参照"
        "モデルにします。",
    "LoRA: off, as in the SFT run (full fine-tuning).":
        "LoRA: SFT の実行と同じく無効（全体のファインチューニング）。",
    "Learning rate: {rate}, lower than SFT's, as DPO needs.":
        "学習率: {rate}（DPO に合わせて SFT より低くしています）。",
    "Run {run_id} trained {stage}, not sft: preference tuning continues a finished SFT run.":
        "実行 {run_id} が学習したのは sft ではなく {stage} です。選好チューニングは終わった "
        "SFT の実行の続きとして行います。",
    "Run {run_id} is {state}: continue it with preference tuning once it is done.":
        "実行 {run_id} は {state} です。終わってから選好チューニングに進んでください。",
    "Run {run_id} has no saved model to continue from.":
        "実行 {run_id} には、続きを学習できる保存済みのモデルがありません。",
    # data/preview.py and ui/data_panel.py: the preview of preference rows
    "The model has no chat template, so conversational {format} rows cannot be rendered. "
    "Use an instruct model, or rows of plain text.":
        "モデルにチャットテンプレートがないため、会話形式の {format} の行を整形できません。"
        "instruct モデルを使うか、プレーンテキストの行にしてください。",
    "KTO unpairs each pair: the chosen answer becomes a good example and the rejected one a "
    "bad example, so there are twice as many rows.":
        "KTO は組をばらします。選ばれた回答は良い例に、退けられた回答は悪い例になるため、"
        "行数は 2 倍になります。",
    "**Format: {format}** ({description}), for {stage}.":
        "**形式: {format}**（{description}）、{stage} 用。",
    "Conversational rows: the model's chat template renders each turn, as in training.":
        "会話形式の行: 学習のときと同じく、モデルのチャットテンプレートで各発言を整形します。",
    "Plain-text rows: each answer ends with the end-of-text token, as in training.":
        "プレーンテキストの行: 学習のときと同じく、各回答の末尾にテキスト終端トークンを"
        "付けます。",
    "**Rows:** {rows} to train on &middot; source {where} &middot; columns: {columns}":
        "**行数:** 学習用 {rows} &middot; 読み込み元 {where} &middot; 列: {columns}",
    "**Tokens per example** (the prompt with its longer answer): min {low}, median {median}, "
    "max {high}. **{over}** of {measured} exceed max_length {max_length} and will be "
    "truncated.":
        "**1 例あたりのトークン数**（プロンプトと長いほうの回答）: 最小 {low}、中央値 "
        "{median}、最大 {high}。{measured} 例のうち **{over}** 例が max_length {max_length} を"
        "超え、切り詰められます。",
    "Max steps x effective batch covers **{epochs} epochs**.":
        "最大ステップ数 × 実効バッチサイズで **{epochs} エポック** 分になります。",
    "Chosen answer": "選ばれた回答",
    "Rejected answer": "退けられた回答",
    "Answer, labelled good": "回答（良いとラベル付け）",
    "Answer, labelled bad": "回答（悪いとラベル付け）",
    # ui/live_view.py: the reward plots' series
    "chosen": "選ばれた回答",
    "rejected": "退けられた回答",
    "margin": "差",
}
