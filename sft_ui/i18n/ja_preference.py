"""Japanese for preference tuning in the page (ui/stage_view.py, runs/next_stage.py, and
the preference parts of the data preview and the live view): the panels that follow the
stage, Continue with preference tuning, the preview of preference rows and the reward
plots; also the labels and help of the preference settings (config/fields.py)."""

MODULES = ("ui/stage_view.py", "runs/next_stage.py",  # whose messages go here (see ja.py)
           "train/stalled.py")

PAGE = {
    "Preference tuning": "選好チューニング",
    "Continue with preference tuning": "選好チューニングに進む",
    # The live view's reward plots (ui/live_view.py)
    "Rewards (chosen, rejected, margin)": "報酬（選ばれた回答・退けられた回答・差）",
    "Reward accuracy": "報酬の正解率",
    "reward": "報酬",
    "accuracy": "正解率",
    "eval accuracy": "評価データの正解率",
    "eval margin": "評価データの差",
    # Each preference stage's plots and their lines (stages/preference.py)
    "How far the model moved each answer from the reference model, times beta. Good: the "
    "margin rises above 0, chosen above rejected.":
        "参照モデルから各回答がどれだけ動いたか（beta 倍）。良い学習: 差が 0 より上がり、"
        "選ばれた回答が退けられた回答より上になります。",
    "The share of a batch's pairs whose chosen answer gets the higher reward. It starts at "
    "0 (no move yet) and often jumps to 1 within a few steps on easy pairs; the margin says "
    "by how much.":
        "バッチの組のうち、選ばれた回答の報酬のほうが高い割合。はじめは 0（まだ動いていない）"
        "で、やさしい組では数ステップで 1 に跳ぶこともよくあります。どれだけの差かは報酬の差が"
        "示します。",
    "Answer log-probabilities x beta (chosen, rejected, margin)":
        "回答の対数確率 × beta（選ばれた回答・退けられた回答・差）",
    "Not rewards against a reference (ORPO has none): beta times each answer's average "
    "log-probability per token. Good: the margin grows.":
        "参照モデルに対する報酬ではありません（ORPO には参照モデルがありません）。各回答の"
        "トークンあたり平均対数確率の beta 倍です。良い学習: 差が広がります。",
    "Chosen answer more likely (share of pairs)": "選ばれた回答のほうが確率が高い組の割合",
    "The share of pairs whose chosen answer the model already finds more likely than the "
    "rejected one; near 1 even before training on easy pairs.":
        "選ばれた回答を退けられた回答より確からしいとモデルがみなす組の割合。やさしい組では"
        "学習前から 1 に近くなります。",
    "Rewards (good, bad answers, margin)": "報酬（良い回答・悪い回答・差）",
    "How far the model moved the good and the bad answers from the reference, times beta. "
    "Good: good answers rise above bad ones.":
        "参照モデルから良い回答と悪い回答がどれだけ動いたか（beta 倍）。良い学習: 良い回答が"
        "悪い回答より上になります。",
}

SETTINGS = {
    "Stage": "学習の段階",
    "What the run trains. sft: supervised fine-tuning, the model learns to write the "
    "examples' answers. dpo, orpo, kto: preference tuning, usually after sft: the model "
    "learns to prefer the chosen answer to the rejected one (DPO: pairs, kept near a "
    "reference model; ORPO: pairs, no reference; KTO: answers labelled good or bad). "
    "Preference data: 'demo-preference' (built in) or prompt/chosen/rejected rows. grpo: "
    "reinforcement learning from rewards: the model writes several answers to each prompt "
    "and learns from the ones your reward functions score higher (data: 'demo-grpo' or "
    "rows with a prompt).":
        "この実行で何を学習するかです。`sft`: 教師ありファインチューニング。モデルは例の回答を"
        "書けるように学びます。`dpo`、`orpo`、`kto`: 選好チューニング（ふつうは `sft` のあと）。"
        "モデルは退けられた回答より選ばれた回答を好むように学びます（DPO: 回答の組、参照"
        "モデルの近くにとどめる。ORPO: 回答の組、参照モデルなし。KTO: 良い・悪いのラベル付き"
        "の回答）。選好データ: 'demo-preference'（組み込み）か、prompt/chosen/rejected の行。"
        "`grpo`: 報酬による強化学習。モデルが各プロンプトに複数の回答を書き、報酬関数の点数が"
        "高い回答から学びます（データ: 'demo-grpo' か、プロンプトのある行）。",
    "The data to train on: pick it from the list or type it. 'demo', 'demo-preference' and "
    "'demo-grpo' are built in (examples; preference pairs for dpo/orpo/kto; arithmetic "
    "prompts for grpo); also a Hub dataset id, an uploaded file (.jsonl, .json, .csv, .tsv, "
    ".parquet, .txt) or a folder written by save_to_disk.":
        "学習するデータです。一覧から選ぶか、入力してください。'demo'、'demo-preference'、"
        "'demo-grpo' は組み込みです（例、`dpo`/`orpo`/`kto` 用の選好の組、`grpo` 用の算数の"
        "プロンプト）。ほかに Hub のデータセット "
        "ID、アップロードしたファイル（.jsonl、.json、.csv、.tsv、.parquet、.txt）、または "
        "save_to_disk で書き出したフォルダ。",
    "Beta": "ベータ（beta）",
    "Beta: how strongly the preference is weighed. DPO and KTO: how far the model may move "
    "from the reference model (higher: stays nearer; 0.1 is common). ORPO: the weight of "
    "the preference term beside the SFT loss.":
        "選好をどれだけ重く見るかです。DPO と KTO: モデルが参照モデルからどこまで離れてよいか"
        "（大きいほど近くにとどまります。0.1 がよく使われます）。ORPO: SFT の損失に加える選好"
        "の項の重み。",
    "Loss type": "損失の種類",
    "The preference loss. auto: the trainer's own (DPO: sigmoid, plus the SFT term on the "
    "chosen answers when the starting model finds them far less likely than the rejected "
    "ones: a form it does not write yet, then at SFT's learning rate where the rate is left "
    "at DPO's; KTO: kto). DPO also: sigmoid+sft (DPO's loss and "
    "the SFT loss on the chosen answers), ipo, hinge, robust, apo_zero, apo_down, "
    "sigmoid_norm. KTO also: apo_zero_unpaired.":
        "選好の損失関数です。`auto`: トレーナーの既定（DPO: `sigmoid`。開始時のモデルにとって選ばれた"
        "回答が却下された回答よりずっと起こりにくい、つまりまだ書かない形のときは、選ばれた回答への "
        "SFT 項を加え、学習率が DPO の既定のままなら SFT の学習率で学習します。KTO: `kto`）。DPO ではほかに `sigmoid+sft`（DPO の損失と選ばれた回答の "
        "SFT 損失）、`ipo`、`hinge`、`robust`、`apo_zero`、`apo_down`、`sigmoid_norm`。KTO では"
        "ほかに `apo_zero_unpaired`。",
    "The starting model finds the chosen answers far less likely than the rejected ones "
    "({chosen} against {rejected} nats a token over {pairs} pairs): it does not write them "
    "yet, and DPO alone tends to rank the pairs without writing the chosen form. Loss type "
    "auto adds the SFT term on the chosen answers (sigmoid + sft).":
        "開始時のモデルにとって、選ばれた回答は却下された回答よりずっと起こりにくい値です"
        "（1 トークンあたり {chosen} 対 {rejected} ナット、{pairs} ペアで測定）。モデルはまだその形を"
        "書かず、DPO だけではペアの順位を覚えても選ばれた形を書かないことが多いため、損失関数 "
        "`auto` は選ばれた回答への SFT 項を加えます（`sigmoid + sft`）。",
    "The starting model finds the chosen answers about as likely as the rejected ones or "
    "more ({chosen} against {rejected} nats a token over {pairs} pairs): DPO's own loss "
    "(sigmoid).":
        "開始時のモデルにとって、選ばれた回答は却下された回答と同じくらいかそれ以上に起こりやすい"
        "値です（1 トークンあたり {chosen} 対 {rejected} ナット、{pairs} ペアで測定）: DPO の損失"
        "（`sigmoid`）のまま学習します。",
    "Learning rate {rate} with the SFT term: the chosen form is learnt at an SFT rate "
    "({title}'s {own} learns little of it); a learning rate you set stays.":
        "SFT 項を加えるときの学習率は {rate} です。選ばれた形は SFT の学習率で覚えます（{title} の "
        "{own} ではほとんど覚えません）。自分で設定した学習率はそのまま使います。",
    "Loss type auto: the run checks at its start whether the model writes the chosen "
    "answers yet (this model is too large to load for the preview).":
        "損失関数 `auto`: モデルが選ばれた回答をもう書くかどうかは、実行の開始時に確かめます（この"
        "モデルはプレビューで読み込むには大きすぎます）。",
    "Reference model": "参照モデル",
    "The reference model DPO and KTO keep the model near. Blank: the model training starts "
    "from (with LoRA that is the model with the adapter switched off: no second copy in "
    "memory). Or a run's model folder, another folder or a Hub id: loaded as a second, "
    "frozen copy.":
        "DPO と KTO がモデルをその近くにとどめる参照モデルです。空欄: 学習を始めるモデル"
        "（LoRA ではアダプタを切ったモデルなので、メモリに 2 つ目のコピーを持ちません）。"
        "または実行のモデルフォルダ、ほかのフォルダ、Hub の ID: 凍結した 2 つ目のコピーとして"
        "読み込みます。",
    "Good answers' weight": "良い回答の重み",
    "KTO: the weight of the good answers' loss. 0: auto, from the label counts, so that "
    "good and bad answers weigh alike (TRL advises desirable_weight x good answers / "
    "(undesirable_weight x bad answers) between 1 and 4/3).":
        "KTO: 良い回答の損失の重み。0: 自動（ラベルの数から、良い回答と悪い回答が同じ重さに"
        "なるように決めます。TRL の目安: desirable_weight × 良い回答の数 ÷"
        "（undesirable_weight × 悪い回答の数）が 1 から 4/3 のあいだ）。",
    "Bad answers' weight": "悪い回答の重み",
    "KTO: the weight of the bad answers' loss. 0: auto, from the label counts.":
        "KTO: 悪い回答の損失の重み。0: 自動（ラベルの数から決めます）。",
}

MESSAGES = {
    # train/preference.py: a named reference model, checked before Start
    "Reference model: {error}": "参照モデル: {error}",
    "The reference model {name} does not load ({kind}: {error}): choose a model folder or "
    "Hub id that loads, or leave Reference model blank (the model training starts from).":
        "参照モデル {name} を読み込めません（{kind}: {error}）。読み込めるモデルのフォルダか "
        "Hub の ID を選ぶか、参照モデルを空欄にしてください（学習を始めるモデルを使います）。",
    "The reference model {name} reads another vocabulary than the trained model ({n} and "
    "{m} tokens): the reference must share its tokenizer. Choose a model of the same family "
    "(for example the SFT run's model), or leave Reference model blank (the model training "
    "starts from).":
        "参照モデル {name} の語彙は学習するモデルと違います（{n} と {m} トークン）。参照モデル"
        "はトークナイザを共有している必要があります。同じ系統のモデル（たとえば SFT の実行の"
        "モデル）を選ぶか、参照モデルを空欄にしてください（学習を始めるモデルを使います）。",
    # ui/stage_view.py and runs/next_stage.py: Continue with preference tuning
    "{choice} does not follow {title}: choose one of {offered}.":
        "{choice} は {title} の次には選べません: {offered} のどれかを選んでください。",
    "**Filled in a {title} run after run {run_id}.** Check the settings, then press Start.":
        "**実行 {run_id} の続きとして {title} の実行を設定しました。** 設定を確かめてから開始を"
        "押してください。",
    "Learning rate: {rate}, {stage}'s.": "学習率: {rate}（{stage} の値）。",
    "Cannot continue:": "続けられません:",
    # ui/train_tab.py: Start met an error that is no person-facing one (the page says it)
    "**Start failed:** {error_type}: {error}": "**開始に失敗しました:** {error_type}: {error}",
    "No finished SFT run to continue.": "続きを学習できる、終わった SFT の実行がありません。",
    "Model: the model run {run_id} saved (`{folder}`).":
        "モデル: 実行 {run_id} が保存したモデル（`{folder}`）。",
    "Stage: `{stage}`.": "学習の段階: `{stage}`。",
    "Dataset: `{name}`, the {stage} rows of the demo set.":
        "データセット: `{name}`（デモデータの {stage} 用の行）。",
    "Dataset: choose {stage} data ({columns} rows); run {run_id} trained on `{name}`, which "
    "holds {stage2} examples.":
        "データセット: {stage} のデータ（{columns} の行）を選んでください。実行 {run_id} が"
        "学習した `{name}` は {stage2} の例です。",
    "LoRA: on, as in the {stage} run: its adapter trains on, with a frozen copy of it as "
    "the reference model.":
        "LoRA: {stage} の実行と同じく有効。そのアダプタを続けて学習し、その凍結コピーを参照"
        "モデルにします。",
    "LoRA: on, as in the {stage} run: its adapter trains on.":
        "LoRA: {stage} の実行と同じく有効。そのアダプタを続けて学習します。",
    "LoRA: off, as in the {stage} run (full fine-tuning).":
        "LoRA: {stage} の実行と同じく無効（全体のファインチューニング）。",
    "Learning rate: {rate}, lower than {stage}'s, as {next} needs.":
        "学習率: {rate}（{next} に合わせて {stage} より低くしています）。",
    "Run {run_id} trained {stage}, which has no next stage: continue a finished SFT run.":
        "実行 {run_id} が学習したのは {stage} で、次の段階はありません。終わった SFT の実行の"
        "続きとして学習してください。",
    "Run {run_id} is {state}: continue it with {stage} once it is done.":
        "実行 {run_id} は {state} です。終わってから {stage} に進んでください。",
    "Run {run_id} has no saved model to continue from.":
        "実行 {run_id} には、続きを学習できる保存済みのモデルがありません。",
    # data/preview.py and ui/data_panel.py: the preview of preference rows
    "The model has no chat template, so conversational {format} rows cannot be rendered. "
    "Use an instruct model, or rows of plain text.":
        "モデルにチャットテンプレートがないため、会話形式の {format} の行を整形できません。"
        "instruct モデルを使うか、プレーンテキストの行にしてください。",
    "{stage} unpairs each pair: the chosen answer becomes a good example and the rejected "
    "one a bad example, so there are twice as many rows.":
        "{stage} は組をばらします。選ばれた回答は良い例に、退けられた回答は悪い例になるため、"
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
    # ui/run_frames.py: the reward plots' series
    "chosen": "選ばれた回答",
    "rejected": "退けられた回答",
    "margin": "差",
    # train/stalled.py: a preference run that learns nothing (the live view, the summary)
    "Nothing learnt from the preferences: over the last {count} logged steps the margin "
    "between the chosen and the rejected answers averaged {margin} and the reward accuracy "
    "{accuracy}, so the chosen answers are no more preferred than the rejected ones. Raise "
    "the learning rate, check that the chosen and the rejected answers really differ, or "
    "train more steps.":
        "選好から何も学習できていません: 直近 {count} 回の記録ステップで、選ばれた回答と"
        "退けられた回答の差は平均 {margin}、報酬の正解率は {accuracy} で、選ばれた回答が"
        "退けられた回答より好まれるようになっていません。学習率を上げるか、選ばれた回答と"
        "退けられた回答が本当に違うかを確かめるか、ステップ数を増やしてください。",
    "Nothing learnt from the preferences: over the last {count} logged steps the margin "
    "between the good and the bad answers' rewards averaged {margin} and was above 0 on "
    "{above} of them, so the model does not favour the good answers yet. Raise the learning "
    "rate, check that the good and the bad answers really differ, or train more steps.":
        "選好から何も学習できていません: 直近 {count} 回の記録ステップで、良い回答と悪い"
        "回答の報酬の差は平均 {margin}、0 を上回ったのは {above} 回で、モデルはまだ良い回答を"
        "好むようになっていません。学習率を上げるか、良い回答と悪い回答が本当に違うかを確かめ"
        "るか、ステップ数を増やしてください。",
}
