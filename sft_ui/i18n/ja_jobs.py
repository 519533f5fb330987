"""Japanese for runs on Hugging Face Jobs (backends/jobs.py)."""

MODULES = ("backends/jobs.py",)  # whose messages go here (see ja.py)

PAGE = {
    "Hugging Face token": "Hugging Face のトークン",
    "For a run on Hugging Face Jobs: a token with write access. It goes to the job as a "
    "secret, for this launch only; it is never saved.":
        "Hugging Face Jobs で実行するときの、書き込み権限のあるトークンです。この起動に"
        "限りシークレットとしてジョブに渡し、保存はしません。",
}

SETTINGS = {
    "Run on": "実行場所",
    "local: this machine. hf_jobs: Hugging Face Jobs, on the hardware chosen below, billed "
    "to your Hugging Face account; the page follows the job like a run here, and the "
    "trained model is pushed to the Hub repo below.":
        "local: このマシン。hf_jobs: Hugging Face Jobs で、下で選ぶハードウェアを使い、"
        "料金は Hugging Face のアカウントに請求されます。ページはこのマシンでの実行と"
        "同じようにジョブを追い、学習したモデルは下の Hub リポジトリにプッシュされます。",
    "Jobs hardware": "Jobs のハードウェア",
    "The hardware of a Hugging Face Job, e.g. cpu-basic, t4-small, l4x1, a10g-small, "
    "a100-large, h200 (huggingface.co/docs/hub/jobs).":
        "Hugging Face Jobs のハードウェアです。例: `cpu-basic`、`t4-small`、`l4x1`、"
        "`a10g-small`、`a100-large`、`h200`（huggingface.co/docs/hub/jobs）。",
    "Hub repo for the model": "モデルの Hub リポジトリ",
    "The Hub repo (your-name/my-model) a run on Hugging Face Jobs pushes its model, "
    "metrics and samples to; created private if it does not exist.":
        "Hugging Face Jobs での実行が、モデル・指標・サンプルをプッシュする Hub "
        "リポジトリ（your-name/my-model）です。なければ非公開で作成します。",
}

MESSAGES = {
    "Hugging Face Jobs pushes the trained model to a Hub repo: fill in 'Hub repo for the "
    "model' (hub_model_id), e.g. your-name/my-model.":
        "Hugging Face Jobs は学習したモデルを Hub リポジトリにプッシュします。"
        "「モデルの Hub リポジトリ」（hub_model_id）を入力してください（例: "
        "your-name/my-model）。",
    "Hugging Face Jobs needs a token with write access: paste it in 'Hugging Face token' "
    "(it is used for this launch only, never saved).":
        "Hugging Face Jobs には書き込み権限のあるトークンが必要です。「Hugging Face の"
        "トークン」に貼り付けてください（この起動にだけ使い、保存しません）。",
    "The model {model} is a folder on this machine, which a job cannot see: push it to "
    "the Hub and use its repo id.":
        "モデル {model} はこのマシンのフォルダで、ジョブからは見えません。Hub に"
        "プッシュして、そのリポジトリ ID を使ってください。",
    "The eval dataset is a file on this machine: on Jobs use a Hub dataset or a held-out "
    "eval fraction.":
        "評価データセットはこのマシンのファイルです。Jobs では Hub のデータセットか、"
        "評価用に取り分ける割合を使ってください。",
    "Hugging Face Jobs: this machine is offline (huggingface.co cannot be reached), so no "
    "job can be sent from here. Train on this machine, or start the app where it has "
    "internet.":
        "Hugging Face Jobs: このマシンはオフラインで（huggingface.co に接続できません）、"
        "ここからジョブを送れません。このマシンで学習するか、インターネットにつながる"
        "場所でアプリを起動してください。",
    "The Hub refused the token: {reason}. Paste a token with write access "
    "(huggingface.co/settings/tokens).":
        "Hub がトークンを受け付けませんでした: {reason}。書き込み権限のあるトークンを"
        "貼り付けてください（huggingface.co/settings/tokens）。",
    "Jobs hardware {flavor} is not one Hugging Face Jobs offers: choose one of {names}.":
        "Jobs のハードウェア {flavor} は Hugging Face Jobs にありません。次のどれかを選んで"
        "ください: {names}。",
    "Could not start the job: {reason}.": "ジョブを開始できませんでした: {reason}。",
    "The job {job_id} ended with {stage}. Its last lines:\n{lines}":
        "ジョブ {job_id} は {stage} で終わりました。最後の出力:\n{lines}",
    "A run on Hugging Face Jobs cannot be resumed: start it again.":
        "Hugging Face Jobs での実行は再開できません。もう一度開始してください。",
    "Training on Hugging Face Jobs ({flavor}), job {job_id}...":
        "Hugging Face Jobs（{flavor}）で学習中、ジョブ {job_id}...",
    "Run {run_id} trained on Hugging Face Jobs: a job cannot be resumed (its checkpoints stay in the job). Start it again.":
        "実行 {run_id} は Hugging Face Jobs で学習しました。ジョブは再開できません"
        "（チェックポイントはジョブに残ります）。もう一度開始してください。",
    "Stopped at step {step}: the job was cancelled before it saved a model.":
        "ステップ {step} で停止しました。ジョブはモデルを保存する前に取り消されました。",
}
