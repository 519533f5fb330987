"""Japanese for the Evaluate tab, its engine (sft_ui/evaluate/) and the evaluation in a
model card and the Runs history; merged into ja.py's three parts."""

MODULES = ("evaluate/", "ui/evaluate_tab.py")  # whose messages go here (see ja.py)

PAGE = {
    "Evaluate": "評価",
    "(none: evaluate model A only)": "（なし: モデル A だけを評価）",
    "Optional: a second model, scored side by side.":
        "省略可: 2 つ目のモデル。スコアを並べて表示します。",
    "Upload a test set": "テストセットをアップロード",
    "Test set": "テストセット",
    "A file or folder path, a Hub dataset id, or run:<run id> for a run's eval split.":
        "ファイルかフォルダのパス、Hub のデータセット ID、または実行の評価分割なら "
        "`run:<実行 ID>`。",
    "Or a run's eval split": "または実行の評価分割",
    "Split": "分割",
    "For a Hub dataset or a folder with splits.": "Hub のデータセットや分割のあるフォルダ用です。",
    "Rows to evaluate": "評価する行数",
    "0: every row.": "0: すべての行。",
    "Batch size": "バッチサイズ",
    "Test rows answered together.": "まとめて回答させるテスト行の数です。",
    "Scores": "スコア",
    "Answers (rows where they differ first)": "回答（回答が異なる行が先）",
    "Download predictions": "予測をダウンロード",
    # the tables' columns and rows
    "score": "スコア",
    "reference": "参照解答",
    "answer A": "回答 A",
    "answer B": "回答 B",
    "model": "モデル",
    "rows": "行数",
    "Exact match (%)": "完全一致（%）",
    "Answer length (words)": "回答の長さ（単語）",
    "Answer length (characters)": "回答の長さ（文字）",
    "Valid JSON (% of JSON references)": "有効な JSON（参照解答が JSON の行の %）",
    "not valid": "適用外",
    # progress
    "Loading the models...": "モデルを読み込んでいます...",
    "Answering the test rows...": "テスト行に回答させています...",
    "Scoring the answers...": "回答を採点しています...",
    "Done.": "完了。",
    "Failed.": "失敗しました。",
    "Stopped: the rows answered before Stop are scored.":
        "停止しました。停止前に回答した行を採点しました。",
    "Answered {done}/{total} rows": "{done}/{total} 行に回答",
    # the model card and the Runs history
    "Evaluation": "評価",
    "Latest evaluation: {rows} rows of {test_set} ({when}).":
        "最新の評価: {test_set} の {rows} 行（{when}）。",
    "ROUGE-L {rouge}, exact {exact}% ({rows} rows)":
        "ROUGE-L {rouge}、完全一致 {exact}%（{rows} 行）",
}

MESSAGES = {
    # actions.py / ui/evaluate_tab.py: a test set that is the training data
    "**Note:** {note}": "**注意:** {note}",
    "The test set is the data run {run_id} trained on ({name}): its scores will look better "
    "than on data it never saw. For a fair score, choose the run's eval split, or other "
    "data.":
        "テストセットは実行 {run_id} が学習したデータ（{name}）です。見たことのないデータより"
        "スコアが良く見えます。公平に測るには、その実行の評価用データか、別のデータを選んで"
        "ください。",
    "evaluate models": "モデルを評価する",
    "stop an evaluation": "評価を停止する",
    "Cannot evaluate:": "評価できません:",
    "Stopping after the batch being answered...": "回答中のバッチのあとで停止します...",
    "No evaluation is running.": "実行中の評価はありません。",
    "run {run_id} eval row": "実行 {run_id} の評価データの行",
    "run {run_id} eval row {n}": "実行 {run_id} の評価データの {n} 件目",
    "run {run_id} (eval split)": "実行 {run_id}（評価分割）",
    "{where} is plain text: a test set needs a prompt and a reference answer in each row, as "
    "chat messages (the last assistant turn is the reference), prompt/completion columns, or "
    "a question and its answer (question/answer, 質問/回答 and the like).":
        "{where} はプレーンテキストです。テストセットには各行にプロンプトと参照解答が必要です。"
        "チャットメッセージ（最後のアシスタントの発話が参照解答）、prompt/completion の列、"
        "または質問とその回答の列（question/answer、質問/回答 など）にしてください。",
    "{where} matches no format a test set can be read in: each row needs a prompt and a "
    "reference answer, as chat messages (messages or conversations columns), "
    "prompt/completion, instruction/output, or a question and its answer (question/answer, "
    "input/output, 質問/回答 and the like). Columns: {columns}. Rename two of them to one of "
    "these pairs.":
        "{where} はテストセットとして読めるどの形式にも当てはまりません。各行にプロンプトと"
        "参照解答が必要です: チャットメッセージ（messages か conversations の列）、"
        "prompt/completion、instruction/output、または質問とその回答（question/answer、"
        "input/output、質問/回答 など）。列: {columns}。このうち 2 つの列の名前を、これらの"
        "組のどれかに変えてください。",
    # metrics.py: how the scores cut the text (the page's note under the scores)
    "How the text was cut for the scores (most of the references are in {label}):":
        "スコアの計算でのテキストの区切り方（参照解答の大部分は{label}）:",
    "How the text was cut for the scores:": "スコアの計算でのテキストの区切り方:",
    "ROUGE: over words (rouge-score's own tokenizer: Latin letters and digits).":
        "ROUGE: 単語単位（`rouge-score` 自身のトークナイザー: ラテン文字と数字）。",
    "ROUGE: over words of any script (split at spaces, punctuation and symbols).":
        "ROUGE: 文字の種類を問わず単語単位（空白、句読点、記号で区切る）。",
    "ROUGE: over characters (each CJK or Thai character one token, a run of other letters or "
    "digits one).":
        "ROUGE: 文字単位（CJK やタイ語の文字は 1 文字で 1 トークン、それ以外の文字や数字は"
        "続いた分で 1 トークン）。",
    "ROUGE: not valid here: no reference holds a word it counts.":
        "ROUGE: ここでは適用外です。数えられる単語を含む参照解答がありません。",
    "BLEU: over sacrebleu's 13a tokens (words and punctuation).":
        "BLEU: `sacrebleu` の `13a` トークン単位（単語と句読点）。",
    "BLEU: over characters (sacrebleu's char tokenizer).":
        "BLEU: 文字単位（`sacrebleu` の `char` トークナイザー）。",
    "BLEU: over sacrebleu's zh tokens (each Chinese character one token, other words whole).":
        "BLEU: `sacrebleu` の `zh` トークン単位（漢字は 1 文字で 1 トークン、その他の単語は"
        "そのまま）。",
    "BLEU: not valid here: every reference is empty.":
        "BLEU: ここでは適用外です。参照解答がすべて空です。",
    "chrF: over characters, as for every language (sacrebleu's chrF).":
        "`chrF`: どの言語でも文字単位（`sacrebleu` の `chrF`）。",
    "Answer length: in words and in characters.": "回答の長さ: 単語数と文字数。",
    "Answer length: in characters; in words it is not valid (no spaces between words).":
        "回答の長さ: 文字数。単語数は適用外です（単語の間に空白がありません）。",
    "{where} has no assistant turn: a chat test row needs one, the reference the model's "
    "answer is compared with.":
        "{where} にアシスタントの発話がありません。チャットのテスト行には、モデルの回答と比べる"
        "参照解答として 1 つ必要です。",
    "Choose a test set: upload a file, type a path or a Hub dataset id, or pick a run's eval "
    "split.":
        "テストセットを選んでください。ファイルをアップロードするか、パスか Hub のデータセット "
        "ID を入力するか、実行の評価分割を選びます。",
    "The row limit must be a whole number (0: every row).":
        "行数の上限は整数にしてください（0: すべての行）。",
    "The row limit must be 0 (every row) or more.":
        "行数の上限は 0（すべての行）以上にしてください。",
    "Run {run_id} has no eval split: it trained without eval rows (eval fraction 0 and no eval "
    "dataset). Choose a test file instead.":
        "実行 {run_id} には評価分割がありません。評価行なしで学習しました（評価の割合が 0 で"
        "評価データセットもなし）。代わりにテストファイルを選んでください。",
    "Run {run_id} trained on plain text: its eval rows hold no reference answers. Choose a "
    "test file with prompt/completion or chat rows.":
        "実行 {run_id} はプレーンテキストで学習したため、評価行に参照解答がありません。"
        "prompt/completion かチャットの行のテストファイルを選んでください。",
    "No evaluation with id {eval_id} on this server: start one first.":
        "このサーバーに ID {eval_id} の評価はありません。先に評価を始めてください。",
    "Choose one or two models to evaluate.": "評価するモデルを 1 つか 2 つ選んでください。",
    "The batch size must be a whole number from 1 to {n}.":
        "バッチサイズは 1 から {n} までの整数にしてください。",
    "Stopped before any row was answered.": "どの行にも回答する前に停止しました。",
    "An evaluation is running: wait for it to end, or stop it.":
        "評価を実行中です。終わるのを待つか、停止してください。",
    "score needs one answer per reference, and at least one":
        "採点には参照解答ごとに 1 つの回答が必要です（1 つ以上）",
    "Answers of up to {length} tokens: {share} of the test set's reference answers are at "
    "most {most} tokens long (Max new tokens left at {default}, its default, follows them).":
        "回答は最大 {length} トークン: テストセットの参照解答の {share} は {most} トークン以内"
        "です（最大生成トークン数が既定の {default} のままなので、参照解答に合わせました）。",
}
