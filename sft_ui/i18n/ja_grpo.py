"""Japanese for GRPO, reinforcement learning from rewards (its room: the modules of
MODULES): the Rewards (GRPO) panel and the labels and help of its settings
(config/fields.py), the stage's plots, the prompt-only data and its preview, the built-in
and written rewards and their checks, its plan; also the reward-code refusal of
access.py."""

MODULES = ("stages/grpo.py", "config/grpo.py", "train/grpo.py", "data/prompts.py",
           "data/grpo_demo.py", "data/prompt_preview.py", "plan/generation.py",
           "share/grpo_script.py", "ui/rewards_panel.py", "rewards/")  # (see ja.py)

PAGE = {
    "Continue with GRPO (rewards)": "GRPO（報酬による学習）に進む",
    "Rewards (GRPO)": "報酬（GRPO）",
    # The stage's plots and their lines (stages/grpo.py, ui/live_view.py)
    "Reward (total and each reward function's mean)": "報酬（合計と各報酬関数の平均）",
    "The mean reward of the answers the model wrote, and each reward function's own mean. "
    "Good: rising. The loss staying near 0 is normal in GRPO: it is relative to each "
    "prompt's group of answers.":
        "モデルが書いた回答の平均報酬と、報酬関数ごとの平均。良い学習: 上がっていきます。"
        "GRPO では損失が 0 付近にとどまるのがふつうです。損失は各プロンプトの回答のグループ"
        "に対する相対的な値だからです。",
    "Prompts with no reward spread; answers cut at the length limit":
        "報酬に差がないプロンプト・長さの上限で打ち切られた回答",
    "No spread: the share of prompts whose answers all got the same reward, from which "
    "nothing is learned. Near 1: raise the generations or the temperature, or make the task "
    "easier (or harder, when every answer already scores the most). Cut: answers that "
    "reached Max completion length.":
        "差なし: 回答がすべて同じ報酬だったプロンプトの割合で、そこからは何も学べません。"
        "1 に近いとき: プロンプトあたりの回答数か温度を上げるか、タスクをやさしくしてください"
        "（どの回答もすでに最高点なら、難しくします）。打ち切り: 回答の最大長に達した回答。",
    "eval reward": "評価データの報酬",
    "no spread": "差なし",
    "cut at the limit": "上限で打ち切り",
    "share": "割合",  # that plot's value axis: of the prompts, of the answers
    # the family's kind of training, as the model card says it (share/card.py)
    "reinforcement learning from rewards": "報酬による強化学習",
    # Test rewards (ui/rewards_panel.py)
    "An example reward function": "報酬関数の例",
    "Test rewards": "報酬をテスト",
    "Answers of the model now, and their rewards": "今のモデルの回答とその報酬",
}

SETTINGS = {
    # Labels
    "Reward functions": "報酬関数",
    "Reward weights": "報酬の重み",
    "Answers per prompt": "プロンプトあたりの回答数",
    "Max completion length (tokens)": "回答の最大長（トークン）",
    "Required keys": "必須のキー",
    "Answer column": "正解の列",
    "Pattern": "パターン",
    "Words to contain": "含める語",
    "Words to avoid": "避ける語",
    "Target length": "目標の長さ",
    "Written reward function": "自作の報酬関数",
    # Help texts
    "The reward functions that score the answers the model writes (their scores add up, "
    "times Reward weights). json_answer: 1 for a JSON object with the Required keys (part "
    "marks for JSON inside other text); exact_match: 1 when the answer equals the row's "
    "Answer column; regex: 1 when the Pattern matches; contains_words / avoids_words; "
    "length_near: near Target length; think_format: <think>...</think> then the answer; "
    "soft_overlong: penalises answers near Max completion length; written: the function "
    "written below.":
        "モデルが書いた回答を採点する報酬関数です（点数に報酬の重みを掛けて合計します）。"
        "json_answer: 必須のキーを持つ JSON オブジェクトなら 1（ほかのテキストの中の JSON "
        "には部分点）。exact_match: 回答が行の正解の列と等しければ 1。`regex`: パターンに"
        "一致すれば 1。contains_words / avoids_words: 含める語・避ける語。length_near: "
        "目標の長さに近いほど高い。think_format: `<think>...</think>` のあとに答え。"
        "soft_overlong: 回答の最大長に近い回答を罰します。'written': 下に書いた関数。",
    "One weight per reward function, in their order, e.g. '1, 2'. Blank: 1 each.":
        "報酬関数ごとに 1 つの重みを、その順に書きます（例: '1, 2'）。空欄: すべて 1。",
    "How many answers the model writes to each prompt. GRPO learns from the differences "
    "within a prompt's group: more answers, more chance that they differ, and more time per "
    "step. Must divide Batch size per device x Gradient accumulation.":
        "モデルが各プロンプトに書く回答の数です。GRPO はプロンプトごとの回答のグループの中"
        "の違いから学びます。回答が多いほど違いが出やすくなり、1 ステップの時間も長くなり"
        "ます。デバイスあたりのバッチサイズ × 勾配累積ステップ数を割り切れる数にして"
        "ください。",
    "Longest answer the model writes, in tokens. Time per step grows with it.":
        "モデルが書く回答の最大の長さ（トークン）です。長いほど 1 ステップの時間も長く"
        "なります。",
    "Sampling temperature of the answers: higher, more varied answers (more to learn from, "
    "and more nonsense).":
        "回答をサンプリングするときの温度です。高いほど回答が多様になります（学べることが"
        "増え、でたらめも増えます）。",
    "Warm-up examples": "ウォームアップの例",
    "A JSON lines file of prompts and replies in the form the rewards ask (\"prompt\", "
    "\"completion\"): the run first trains on them with a few SFT steps, then GRPO. GRPO "
    "learns nothing where the model never writes the form; a time budget writes such a file "
    "itself, from the model's own answers put in a regex reward's form.":
        "報酬が求める形式で書かれたプロンプトと返答の JSON Lines ファイル（\"prompt\"、"
        "\"completion\"）。実行はまずこれで SFT を数ステップ学習し、それから GRPO に進みます。"
        "モデルがその形式を一度も書かなければ GRPO は何も学べません。時間予算があるときは、"
        "モデル自身の回答を `regex` 報酬の形式に入れて、このファイルを自動で作ります。",
    "Generate with vLLM": "vLLM で生成",
    "Write the answers with vLLM (TRL's colocate mode: in the training process, on the same "
    "GPU), far faster than transformers' generation on long answers. Needs a CUDA GPU and the "
    "vllm package (pip install vllm); vLLM keeps 30% of the GPU's memory for itself.":
        "回答を vLLM で書きます（TRL の colocate モード: 学習プロセスの中で同じ GPU を使います）。"
        "長い回答では transformers の生成よりずっと速くなります。CUDA GPU と vllm パッケージ"
        "（pip install vllm）が必要で、vLLM は GPU のメモリの 30% を自分用に確保します。",
    "Generate with vLLM (GRPO)": "vLLM で生成（GRPO）",
    "json_answer: the keys the JSON object must have, comma-separated.":
        "json_answer: JSON オブジェクトが持つべきキー（カンマ区切り）。",
    "exact_match: the data column holding the right answer.":
        "exact_match: 正解が入っているデータの列。",
    "regex: a Python regular expression the answer should contain.":
        "`regex`: 回答に含まれるべき Python の正規表現。",
    "contains_words: words the answer should contain, comma-separated.":
        "contains_words: 回答に含めるべき語（カンマ区切り）。",
    "avoids_words: words the answer should not contain, comma-separated.":
        "avoids_words: 回答に含めるべきでない語（カンマ区切り）。",
    "length_near: the answer length (characters) that scores 1.":
        "length_near: 点数が 1 になる回答の長さ（文字数）。",
    "Your own reward function, in Python: def my_reward(completions, **kwargs) returning "
    "one number (or None) per completion; the data's columns arrive by name (for example "
    "answer=[...]). Choose 'written' in Reward functions to use it. It runs in a separate "
    "process with a time limit, and only where the studio is your own (refused on a shared "
    "server or a Space unless it was started to allow it).":
        "自分で書く Python の報酬関数です。`def my_reward(completions, **kwargs)` が回答"
        "ごとに 1 つの数値（または `None`）を返します。データの列は名前で渡されます（たとえば "
        "`answer=[...]`）。使うには報酬関数で 'written' を選びます。制限時間付きの別の"
        "プロセスで実行され、スタジオが自分専用のときだけ使えます（共有サーバーや Space "
        "では、許可して起動した場合を除き使えません）。",
}

MESSAGES = {
    # rewards/check.py's stalled: a run that learns nothing (the live view, the summary)
    "Nothing learnt: over the last {count} logged steps, {share} of the prompts got the "
    "same reward for all their answers (no spread), and GRPO learns only from the "
    "differences between a prompt's answers. Raise Answers per prompt or Temperature, give "
    "partial credit in the reward (or make the task harder, if every answer already scores "
    "the most), or give a few examples of the form the reward wants in Warm-up examples.":
        "何も学習できていません: 直近 {count} 回の記録ステップで、プロンプトの {share} は"
        "回答がすべて同じ報酬でした（差なし）。GRPO はプロンプトの回答どうしの差からしか"
        "学びません。プロンプトあたりの回答数か温度を上げるか、報酬に部分点を与えるか（どの"
        "回答もすでに最高点なら、タスクを難しくします）、報酬が求める形の例を少し"
        "「ウォームアップの例」に入れてください。",
    # Test rewards (actions.py, ui/rewards_panel.py)
    "test rewards (the model writes answers)": "報酬をテストする（モデルが回答を書きます）",
    "Cannot test the rewards:": "報酬をテストできません:",
    "**{rows} answers scored** by {join}.": "**{rows} 個の回答を採点しました**（{join}）。",
    "Every prompt's answers got different rewards: there is something to learn from.":
        "どのプロンプトの回答にも異なる報酬が付きました。学べることがあります。",
    "total": "合計",
    # stages/grpo.py: the stage's data
    "prompt (text, or messages ending with the user's turn); other columns reach the "
    "rewards by name":
        "prompt（テキスト、またはユーザーの発言で終わるメッセージ）。ほかの列は名前で報酬に"
        "渡されます",
    # train/grpo.py
    "Eval: {held} prompts from {eval_name}.": "評価: {eval_name} からプロンプト {held} 個。",
    "Eval: {held} prompts held out (seed {seed}).":
        "評価: プロンプト {held} 個を取り分けました（シード {seed}）。",
    # data/preview.py: the preview of prompt-only data (ui/data_panel.py's summary of it)
    "**Format: {format}** ({description}).": "**形式: {format}**（{description}）。",
    "**Rows:** {rows} prompts &middot; source {where} &middot; columns the rewards can read: "
    "{columns}":
        "**行数:** プロンプト {rows} 個 &middot; 読み込み元 {where} &middot; 報酬が読める列: "
        "{columns}",
    "**Rows:** {rows} prompts &middot; source {where} &middot; no other column for the "
    "rewards to read":
        "**行数:** プロンプト {rows} 個 &middot; 読み込み元 {where} &middot; 報酬が読める"
        "ほかの列はありません",
    "**Prompt tokens:** min {low}, median {median}, max {high}; each answer up to {answer} "
    "tokens. {prompts} prompts a step: Max steps covers **{epochs} epochs**.":
        "**プロンプトのトークン数:** 最小 {low}、中央値 {median}、最大 {high}。回答はそれぞれ"
        "最大 {answer} トークン。1 ステップに {prompts} 個のプロンプトなので、最大ステップ数で "
        "**{epochs} エポック** 分になります。",
    "prompts only: the model writes the answers, the rewards score them":
        "プロンプトのみ: 回答はモデルが書き、報酬がそれを採点します",
    # access.py: a written reward on a shared server
    "A written reward function runs Python on this server, so it is refused on a shared "
    "server or a Space: choose built-in reward functions, or run the studio on your own "
    "machine (or start this server with --allow-reward-code, or {ALLOW_CODE}=1, if everyone "
    "who can sign in may run code on it).":
        "自作の報酬関数はこのサーバーで Python を実行するため、共有サーバーや Space では"
        "使えません。組み込みの報酬関数を選ぶか、自分のマシンでスタジオを動かしてください"
        "（ログインできる全員がこのサーバーでコードを実行してよいなら、--allow-reward-code "
        "か {ALLOW_CODE}=1 を付けてこのサーバーを起動することもできます）。",
    # config/checks.py: the settings of a GRPO run
    "Reward functions is empty: choose at least one (for example json_answer) or write one "
    "and choose 'written'.":
        "報酬関数が空です。1 つ以上選ぶか（たとえば json_answer）、関数を書いて 'written' を"
        "選んでください。",
    "Reward functions names a function twice: choose each once (its weight says how much "
    "it counts).":
        "報酬関数に同じ関数が 2 回あります。それぞれ 1 回だけ選んでください（どれだけ重く"
        "数えるかは重みで決めます）。",
    "Reward weights ({shorten}) must be numbers separated by commas, e.g. '1, 2'.":
        "報酬の重み（{shorten}）はカンマ区切りの数値にしてください（例: '1, 2'）。",
    "Reward weights has {weights} numbers for {rewards} reward functions: give one weight "
    "per function, in their order (or leave it blank: 1 each).":
        "報酬の重みが {weights} 個ありますが、報酬関数は {rewards} 個です。関数ごとに 1 つの"
        "重みを、その順に書いてください（または空欄にします: すべて 1）。",
    "Reward functions includes 'written' but Written reward function is empty: write the "
    "function, or take 'written' out.":
        "報酬関数に 'written' がありますが、自作の報酬関数が空です。関数を書くか、'written' "
        "を外してください。",
    "Answers per prompt ({num_generations}) must divide the answers generated at once, "
    "Batch size per device x Gradient accumulation ({batch}): for example set Answers per "
    "prompt to {divisor_near}.":
        "プロンプトあたりの回答数（{num_generations}）は、一度に生成する回答の数（デバイス"
        "あたりのバッチサイズ × 勾配累積ステップ数 = {batch}）を割り切れる数にしてください。"
        "たとえばプロンプトあたりの回答数を {divisor_near} にします。",
    "Gradient accumulation: {accumulation} (was {before}): the answers written at once, "
    "Batch size per device x Gradient accumulation ({total}), must be a multiple of "
    "Answers per prompt ({answers}).":
        "勾配累積ステップ数: {accumulation}（元は {before}）。一度に書く回答の数（デバイスあたり"
        "のバッチサイズ × 勾配累積ステップ数 = {total}）は、プロンプトあたりの回答数"
        "（{answers}）の倍数である必要があるためです。",
    # data/prompts.py: prompt-only data
    "GRPO demo set": "GRPO デモデータ",
    "GRPO demo set (held-out problems)": "GRPO デモデータ（取り分けた問題）",
    "chosen and rejected answers: preference data, for DPO, ORPO or KTO":
        "選ばれた回答と退けられた回答: DPO、ORPO、KTO 用の選好データ",
    "written answers: data for SFT or KTO": "書かれた回答: SFT か KTO 用のデータ",
    "chat conversations: data for SFT": "チャットの会話: SFT 用のデータ",
    "plain text: data for SFT": "プレーンテキスト: SFT 用のデータ",
    "'{name}' is not a local file or folder, and the Hugging Face Hub cannot be reached to "
    "load it as a dataset id: this machine is offline. Use '{GRPO_DEMO}', or upload a "
    ".jsonl/.csv/.parquet file of prompts.":
        "'{name}' はローカルのファイルでもフォルダでもなく、データセット ID として読み込もうにも"
        "Hugging Face Hub に接続できません（このマシンはオフラインです）。'{GRPO_DEMO}' を"
        "使うか、プロンプトの .jsonl/.csv/.parquet ファイルをアップロードしてください。",
    "{where}: 'prompt' is missing. Every row needs a 'prompt'; fill it in or remove the "
    "row.":
        "{where}: 'prompt' がありません。すべての行に 'prompt' が必要です。値を入れるか、"
        "行を削除してください。",
    "{where}: 'prompt' is empty. Write the question the model should answer, or remove the "
    "row.":
        "{where}: 'prompt' が空です。モデルに答えさせる質問を書くか、行を削除してください。",
    "{where}: 'prompt' is an empty list of messages. Add the user's message, or remove the "
    "row.":
        "{where}: 'prompt' がメッセージの空のリストです。ユーザーのメッセージを加えるか、"
        "行を削除してください。",
    "{where}: the last message of 'prompt' is from {role}; a prompt must end with the "
    "user's message (the model writes the answer). Remove the answer from the prompt; keep "
    "it in another column, e.g. 'answer', for a reward to compare.":
        "{where}: 'prompt' の最後のメッセージが {role} からです。プロンプトはユーザーの"
        "メッセージで終わる必要があります（回答はモデルが書きます）。プロンプトから回答を"
        "取り除いてください。報酬が比べられるよう、回答は別の列（たとえば 'answer'）に残せ"
        "ます。",
    "{where}: the user's message at the end of 'prompt' is empty.":
        "{where}: 'prompt' の最後にあるユーザーのメッセージが空です。",
    "Mixed forms: {where} is {form} but {where2} is {form2}. Keep one form per file: every "
    "prompt text, or every prompt a list of messages.":
        "形式が混ざっています: {where} は {form} ですが、{where2} は {form2} です。1 つの"
        "ファイルでは形式をそろえてください。すべてのプロンプトをテキストにするか、すべてを"
        "メッセージのリストにします。",
    "GRPO reads prompts only, and the model writes the answers: the data needs a 'prompt' "
    "column (text, or messages ending with the user's turn); this file has {has}. Put each "
    "question in a 'prompt' column; answers may stay in another column, e.g. 'answer', for "
    "a reward to compare. Or use '{GRPO_DEMO}'.":
        "GRPO はプロンプトだけを読み、回答はモデルが書きます。データには 'prompt' 列"
        "（テキスト、またはユーザーの発言で終わるメッセージ）が必要ですが、このファイルに"
        "あるのは {has} です。各質問を 'prompt' 列に入れてください。報酬が比べられるよう、"
        "回答は別の列（たとえば 'answer'）に残せます。または '{GRPO_DEMO}' を使ってください。",
    # ... the same, the file's columns with what they look like (its kind translated too)
    "GRPO reads prompts only, and the model writes the answers: the data needs a 'prompt' "
    "column (text, or messages ending with the user's turn); this file has {columns} "
    "({kind}). Put each question in a 'prompt' column; answers may stay in another column, "
    "e.g. 'answer', for a reward to compare. Or use '{GRPO_DEMO}'.":
        "GRPO はプロンプトだけを読み、回答はモデルが書きます。データには 'prompt' 列"
        "（テキスト、またはユーザーの発言で終わるメッセージ）が必要ですが、このファイルに"
        "あるのは {columns}（{kind}）です。各質問を 'prompt' 列に入れてください。報酬が"
        "比べられるよう、回答は別の列（たとえば 'answer'）に残せます。または "
        "'{GRPO_DEMO}' を使ってください。",
    # rewards/builtin.py: the built-in rewards
    "characters": "文字",
    "tokens": "トークン",
    "{key} must be a whole number of {what} (e.g. 200), not {value}.":
        "{key} は{what}数を整数で指定してください（例: 200）。今は {value} です。",
    "{key} must be more than 0 {what}; it is {number}.":
        "{key} は 0 {what}より大きくしてください（今は {number}）。",
    "The reward {reward} reads the column '{column}', which the data does not have (its "
    "other columns: {have}). Choose one of them, or add the column to the data.":
        "報酬 {reward} は列 '{column}' を読みますが、データにその列がありません（ほかの列: "
        "{have}）。そのどれかを選ぶか、データにその列を加えてください。",
    "The column '{column}' has {values} values for {n} completions: give one value per "
    "completion.":
        "列 '{column}' の値が {values} 個ありますが、回答は {n} 個です。回答ごとに 1 つの値を"
        "渡してください。",
    "The reward regex needs a pattern (a Python regular expression, e.g. \\bParis\\b): "
    "write one in Pattern.":
        "報酬 `regex` にはパターン（Python の正規表現。例: `\\bParis\\b`）が必要です。"
        "パターンに書いてください。",
    "The pattern {pattern} is not a valid regular expression ({e}): fix it, or escape "
    "special characters such as ( [ . * with \\.":
        "パターン {pattern} は正しい正規表現ではありません（{e}）。直すか、( [ . * などの"
        "特殊文字を \\ でエスケープしてください。",
    "The reward {name} needs words: write them in {key}, separated by commas (e.g. "
    "because, therefore).":
        "報酬 {name} には語が必要です。{key} にカンマ区切りで書いてください（例: "
        "`because, therefore`）。",
    "There is no built-in reward {name}. The built-in rewards are: {join}.":
        "組み込みの報酬 {name} はありません。組み込みの報酬: {join}。",
    "The reward {name} needs the Python package {needs}, which is not installed: install it "
    "(pip install {install}) and restart the app, or choose another reward.":
        "報酬 {name} には Python パッケージ {needs} が必要ですが、インストールされていません。"
        "インストールして（pip install {install}）アプリを再起動するか、別の報酬を選んで"
        "ください。",
    "JSON answer": "JSON の回答",
    "1.0 when the whole answer is a JSON object (a ```json fence allowed) with every key of "
    "Keys; 0.5 when such an object is inside other text; 0.25 when some JSON object, or a "
    "key in quotes between { and }, is there but not every key; else 0.":
        "回答全体が、必須のキーをすべて持つ JSON オブジェクトなら 1.0（```json と ``` で"
        "囲んでもかまいません）。そのようなオブジェクトがほかのテキストの中にあれば 0.5。"
        "何かの JSON オブジェクト、または { と } のあいだに引用符付きのキーがあっても、"
        "キーがそろっていなければ 0.25。それ以外は 0。",
    "Pattern found": "パターンがある",
    "1.0 when the regular expression Pattern is found in the answer, else 0.":
        "正規表現のパターンが回答の中に見つかれば 1.0、見つからなければ 0。",
    "Exact answer": "答えが一致",
    "1.0 when the answer equals the row's value in the answer column (case, spaces and a "
    "final period aside; numbers by value); when the answer holds a JSON object with that "
    "key (or \"answer\"), its value is compared. Else 0.":
        "回答が行の正解の列の値と等しければ 1.0（大文字・小文字、空白、最後のピリオドは"
        "区別せず、数値は値で比べます）。回答がそのキー（または \"answer\"）を持つ JSON "
        "オブジェクトを含むときは、その値を比べます。それ以外は 0。",
    "Uses words": "語を使う",
    "The share of Words (comma-separated, any case, whole words) the answer uses.":
        "含める語（カンマ区切り、大文字・小文字を区別せず、単語単位）のうち、回答が使って"
        "いる割合。",
    "Avoids words": "語を避ける",
    "1.0 minus the share of Avoid words (comma-separated, any case) the answer uses.":
        "1.0 から、避ける語（カンマ区切り、大文字・小文字を区別しない）のうち回答が使って"
        "いる割合を引いた値。",
    "Length near target": "目標に近い長さ",
    "1.0 at Target characters, falling linearly to 0 at none or twice as many.":
        "目標の長さ（文字数）ちょうどで 1.0、0 文字か 2 倍の文字数に向かって直線的に 0 まで"
        "下がります。",
    "Thinks first (<think>...</think>)": "先に考える（`<think>...</think>`）",
    "TRL's think_format_reward: 1.0 when the answer starts with one <think>...</think> "
    "block followed by the answer, else 0.":
        "TRL の think_format_reward: 回答が `<think>...</think>` のブロック 1 つで始まり、"
        "そのあとに答えが続けば 1.0、それ以外は 0。",
    "Not too long (DAPO)": "長すぎない（DAPO）",
    "TRL's soft overlong punishment: 0 up to three quarters of Max completion length (in "
    "tokens), then falling to -1 at the limit; -1 beyond it.":
        "TRL の長すぎる回答への緩やかな罰: 回答の最大長（トークン）の 4 分の 3 までは 0、"
        "そこから上限で -1 まで下がり、上限を超えると -1。",
    "No repetition": "繰り返しなし",
    "TRL's repetition penalty: 0 when no 3 tokens repeat, down to -1 for an answer that "
    "only repeats itself.":
        "TRL の繰り返しペナルティ: 3 トークンの並びが繰り返されなければ 0、同じことを繰り返す"
        "だけの回答では -1 まで下がります。",
    "Math answer correct": "数学の答えが正しい",
    "TRL's accuracy_reward: 1.0 when the answer's final \\boxed{} (LaTeX) equals the row's "
    "solution mathematically, else 0; skipped when the solution cannot be read.":
        "TRL の accuracy_reward: 回答の最後の `\\boxed{}` が行の 'solution' と数学的に"
        "等しければ 1.0、それ以外は 0。'solution' を読み取れない行はスキップします。",
    # rewards/check.py: Test rewards, and the checks before a GRPO run
    "{prompts} prompts for {n} completions: give each completion its prompt (repeat a "
    "prompt for each of its answers).":
        "回答 {n} 個に対してプロンプトが {prompts} 個です。各回答にそのプロンプトを渡して"
        "ください（プロンプトを回答の数だけ繰り返します）。",
    "{weights} weights for {functions} rewards: give one weight per reward, in their "
    "order.":
        "報酬 {functions} 個に対して重みが {weights} 個です。報酬ごとに 1 つの重みを、報酬の"
        "順に渡してください。",
    "The reward {label} gave {got} scores for {n} completions: it must give one per "
    "completion.":
        "報酬 {label} が回答 {n} 個に対して {got} 個の点数を返しました。回答ごとに 1 つ"
        "返す必要があります。",
    "Prompt {prompt}: every reward skipped all {group} answers (None), so nothing is "
    "learned from it. Check that its columns hold what the rewards read.":
        "プロンプト {prompt}: どの報酬も {group} 個の回答すべてをスキップした（`None`）ため、"
        "このプロンプトからは何も学べません。その列に報酬が読む値が入っているか確かめて"
        "ください。",
    "Prompt {prompt}: all {group} answers scored {value}, so there is no learning signal "
    "from it. Raise the number of generations or the temperature, or change the reward or "
    "the task so that some answers score better than others.":
        "プロンプト {prompt}: {group} 個の回答がすべて {value} 点だったため、このプロンプト"
        "からは学習の手がかりが得られません。プロンプトあたりの回答数か温度を上げるか、"
        "一部の回答がほかより高い点数になるように報酬かタスクを変えてください。",
    "Generations is {num_generations}: GRPO compares several answers to each prompt, so it "
    "must be at least 2 (4 to 16 is usual).":
        "プロンプトあたりの回答数が {num_generations} です。GRPO は各プロンプトへの複数の"
        "回答を比べるので、2 以上にしてください（ふつうは 4〜16）。",
    ", or Generations to one of {join}": "、またはプロンプトあたりの回答数を {join} のどれかに",
    "The generation batch ({generation_batch} answers a step) must be a multiple of "
    "Generations ({num_generations}), so that each prompt gets all its answers in one "
    "batch: set it to {sizes}{also}.":
        "生成バッチ（1 ステップで {generation_batch} 個の回答）はプロンプトあたりの回答数"
        "（{num_generations}）の倍数にしてください。各プロンプトの回答がすべて 1 つのバッチ"
        "に入るようにするためです。生成バッチを {sizes}{also} にしてください。",
    # ... the same as the code writes it out: two sizes, and other generations
    "The generation batch ({generation_batch} answers a step) must be a multiple of "
    "Generations ({num_generations}), so that each prompt gets all its answers in one "
    "batch: set it to {lower} or {upper}.":
        "生成バッチ（1 ステップで {generation_batch} 個の回答）はプロンプトあたりの回答数"
        "（{num_generations}）の倍数にしてください。各プロンプトの回答がすべて 1 つのバッチ"
        "に入るようにするためです。生成バッチを {lower} か {upper} にしてください。",
    "The generation batch ({generation_batch} answers a step) must be a multiple of "
    "Generations ({num_generations}), so that each prompt gets all its answers in one "
    "batch: set it to {sizes}, or Generations to one of {join}.":
        "生成バッチ（1 ステップで {generation_batch} 個の回答）はプロンプトあたりの回答数"
        "（{num_generations}）の倍数にしてください。各プロンプトの回答がすべて 1 つのバッチ"
        "に入るようにするためです。生成バッチを {sizes} にするか、プロンプトあたりの回答数を"
        " {join} のどれかにしてください。",
    "The generation batch ({generation_batch} answers a step) must be a multiple of "
    "Generations ({num_generations}), so that each prompt gets all its answers in one "
    "batch: set it to {lower} or {upper}, or Generations to one of {join}.":
        "生成バッチ（1 ステップで {generation_batch} 個の回答）はプロンプトあたりの回答数"
        "（{num_generations}）の倍数にしてください。各プロンプトの回答がすべて 1 つのバッチ"
        "に入るようにするためです。生成バッチを {lower} か {upper} にするか、プロンプト"
        "あたりの回答数を {join} のどれかにしてください。",
    "Max completion length is {max_completion_length}: give the answers at least 1 token "
    "(64 to 1024 is usual).":
        "回答の最大長が {max_completion_length} です。回答には 1 トークン以上を与えて"
        "ください（ふつうは 64〜1024）。",
    "Max completion length ({max_completion_length} tokens) leaves no room for the prompt "
    "within Max length ({max_length}): lower it, or raise Max length.":
        "回答の最大長（{max_completion_length} トークン）では、最大長（{max_length}）の中に"
        "プロンプトの入る余地がありません。回答の最大長を下げるか、最大長を上げてください。",
    "lower Max completion length to {room}, ": "回答の最大長を {room} に下げるか、",
    "The longest prompt ({max_prompt_tokens} tokens) plus an answer "
    "({max_completion_length} tokens) is {total} tokens, more than Max length "
    "({max_length}): {fix}shorten the prompts, or raise Max length.":
        "いちばん長いプロンプト（{max_prompt_tokens} トークン）と回答"
        "（{max_completion_length} トークン）で {total} トークンになり、最大長"
        "（{max_length}）を超えます。{fix}プロンプトを短くするか、最大長を上げてください。",
    # ... the same with the fix the code puts in front
    "The longest prompt ({max_prompt_tokens} tokens) plus an answer "
    "({max_completion_length} tokens) is {total} tokens, more than Max length "
    "({max_length}): lower Max completion length to {room}, shorten the prompts, or raise "
    "Max length.":
        "いちばん長いプロンプト（{max_prompt_tokens} トークン）と回答"
        "（{max_completion_length} トークン）で {total} トークンになり、最大長"
        "（{max_length}）を超えます。回答の最大長を {room} に下げるか、プロンプトを短く"
        "するか、最大長を上げてください。",
    "The reward {name} needs the columns {which}, which the data does not have (it has: "
    "{value}). Choose a column it has, or add the column to the data.":
        "報酬 {name} には列 {which} が必要ですが、データにありません（データの列: {value}）。"
        "データにある列を選ぶか、データにその列を加えてください。",
    "The reward {name} needs the column {which}, which the data does not have (it has: "
    "{value}). Choose a column it has, or add the column to the data.":
        "報酬 {name} には列 {which} が必要ですが、データにありません（データの列: {value}）。"
        "データにある列を選ぶか、データにその列を加えてください。",
    "Choose at least one reward: a built-in one, or a function of your reward code.":
        "報酬を 1 つ以上選んでください。組み込みの報酬か、自作の報酬コードの関数です。",
    "The reward {name} is chosen {times} times: keep it once (to count it more, give it a "
    "higher weight).":
        "報酬 {name} が {times} 回選ばれています。1 回だけにしてください（より重く数える"
        "には、重みを大きくします）。",
    "Your function {name} has the name of a built-in reward: rename it.":
        "関数 {name} の名前が組み込みの報酬と同じです。名前を変えてください。",
    "; your code defines: {join}": "、コードで定義されている関数: {join}",
    "There is no reward {name}. The built-in rewards are: {join}{code}.":
        "報酬 {name} はありません。組み込みの報酬: {join}{code}。",
    # ... the same with the functions of the written code
    "There is no reward {name}. The built-in rewards are: {join}; your code defines: "
    "{join2}.":
        "報酬 {name} はありません。組み込みの報酬: {join}。コードで定義されている関数: "
        "{join2}。",
    # rewards/sandbox.py and rewards/written.py: the reward written in the page
    "the code defines no function {call}": "コードに関数 {call} がありません",
    "at line {line}": "（{line} 行目）",
    "The reward code has a syntax error at line {lineno}: {msg}{where}. Fix it and test "
    "the rewards again.":
        "報酬コードの {lineno} 行目に構文エラーがあります: {msg}{where}。直して、報酬を"
        "もう一度テストしてください。",
    "The reward code defines no reward function. Define one at the top level, for "
    "example:\n\n{EXAMPLE}\n\nIt gets the completions (texts, or message lists: text_of(c) "
    "gives the text), the prompts and every column of the data by name, and returns one "
    "number per completion (None to skip one). Names starting with _ are helpers.":
        "報酬コードに報酬関数がありません。たとえば次のように、トップレベルで定義して"
        "ください:\n\n{EXAMPLE}\n\n関数は回答（テキスト、またはメッセージのリスト。"
        "text_of(c) でテキストが得られます）、プロンプト、データの各列を名前で受け取り、"
        "回答ごとに 1 つの数値を返します（スキップするには `None`）。_ で始まる名前は補助"
        "関数です。",
    # ... its lines, as the page shows it (the example code between them stays as it is)
    "The reward code defines no reward function. Define one at the top level, for "
    "example:":
        "報酬コードに報酬関数がありません。たとえば次のように、トップレベルで定義して"
        "ください:",
    "It gets the completions (texts, or message lists: text_of(c) gives the text), the "
    "prompts and every column of the data by name, and returns one number per completion "
    "(None to skip one). Names starting with _ are helpers.":
        "関数は回答（テキスト、またはメッセージのリスト。text_of(c) でテキストが得られ"
        "ます）、プロンプト、データの各列を名前で受け取り、回答ごとに 1 つの数値を返します"
        "（スキップするには `None`）。_ で始まる名前は補助関数です。",
    "The reward {name} returned {repr} ({type}), not a list: return a list with one number "
    "per completion (None to skip one), e.g. [1.0 if ... else 0.0 for c in completions].":
        "報酬 {name} が返したのは {repr}（{type}）で、リストではありません。回答ごとに 1 つの"
        "数値を入れたリストを返してください（スキップするには `None`）。例: "
        "`[1.0 if ... else 0.0 for c in completions]`。",
    "completion {scores} ({preview}) got none": "回答 {scores}（{preview}）に点数がありません",
    "there are only {n}": "回答は {n} 個しかありません",
    "The reward {name} returned {scores} scores for {n} completions ({where}): return "
    "exactly one number per completion, in their order (None to skip one).":
        "報酬 {name} が回答 {n} 個に対して {scores} 個の点数を返しました（{where}）。回答"
        "ごとにちょうど 1 つの数値を、回答の順に返してください（スキップするには `None`）。",
    "The reward {name} gave completion {i} ({preview}) the score {repr} ({bad}), not a "
    "number: return an int or float per completion, or None to skip it.":
        "報酬 {name} が回答 {i}（{preview}）に返した点数 {repr}（{bad}）は数値ではありません。"
        "回答ごとに `int` か `float` を返すか、スキップするには `None` を返してください。",
    "The reward {name} gave completion {i} ({preview}) the score {score}: a score must be "
    "a finite number; return None to skip a completion that cannot be scored.":
        "報酬 {name} が回答 {i}（{preview}）に返した点数は {score} です。点数は有限の数値に"
        "してください。採点できない回答をスキップするには `None` を返します。",
    "The reward {name} raised": "報酬 {name} で例外が発生しました",
    "The reward code failed when loaded with": "報酬コードの読み込みで例外が発生しました",
    "{what} {type}: {message}{where}{source}. Fix the code and test the rewards again.":
        "{what}（{type}）: {message}{where}{source}。コードを直して、報酬をもう一度テスト"
        "してください。",
    # ... the same, for each of the two beginnings the code gives it
    "The reward {name} raised {type}: {message}{where}{source}. Fix the code and test the "
    "rewards again.":
        "報酬 {name} で {type} が発生しました: {message}{where}{source}。コードを直して、"
        "報酬をもう一度テストしてください。",
    "The reward code failed when loaded with {type}: {message}{where}{source}. Fix the code "
    "and test the rewards again.":
        "報酬コードの読み込みで {type} が発生しました: {message}{where}{source}。コードを"
        "直して、報酬をもう一度テストしてください。",
    # ... and with the line of the code (and its text) that raised, as the worker reports it
    "The reward {name} raised {type}: {message} at line {line} (`{code}`). Fix the code and "
    "test the rewards again.":
        "報酬 {name} で {type} が発生しました（{line} 行目: `{code}`）: {message}。コードを"
        "直して、報酬をもう一度テストしてください。",
    "The reward {name} raised {type}: {message} at line {line}. Fix the code and test the "
    "rewards again.":
        "報酬 {name} で {type} が発生しました（{line} 行目）: {message}。コードを直して、"
        "報酬をもう一度テストしてください。",
    "The reward code failed when loaded with {type}: {message} at line {line} (`{code}`). "
    "Fix the code and test the rewards again.":
        "報酬コードの読み込みで {type} が発生しました（{line} 行目: `{code}`）: {message}。"
        "コードを直して、報酬をもう一度テストしてください。",
    "The reward code failed when loaded with {type}: {message} at line {line}. Fix the code "
    "and test the rewards again.":
        "報酬コードの読み込みで {type} が発生しました（{line} 行目）: {message}。コードを"
        "直して、報酬をもう一度テストしてください。",
    "The reward {name} took more than {timeout} s for {n} completions, so it was stopped. "
    "Make it faster (no endless loop, no slow calls per completion), or raise its time "
    "limit.":
        "報酬 {name} が回答 {n} 個に {timeout} 秒より長くかかったため、停止しました。"
        "速くする（無限ループや、回答ごとの遅い呼び出しをなくす）か、制限時間を延ばして"
        "ください。",
    "The reward code's process ended while {name} ran (exit status {returncode}): the code "
    "may exit the process or use too much memory. Fix it and test the rewards again.":
        "{name} の実行中に報酬コードのプロセスが終了しました（終了コード {returncode}）。"
        "コードがプロセスを終了させたか、メモリを使いすぎた可能性があります。直して、報酬を"
        "もう一度テストしてください。",
    "took more than {value} s to load": "読み込みに {value} 秒より長くかかりました",
    "The reward code {slow}: it runs once when loaded, so keep slow work inside the "
    "functions.":
        "報酬コード: {slow}。コードのトップレベルは読み込み時に 1 回実行されるので、時間の"
        "かかる処理は関数の中に入れてください。",
    "The reward code took more than {value} s to load: it runs once when loaded, so keep "
    "slow work inside the functions.":
        "報酬コードの読み込みに {value} 秒より長くかかりました。コードのトップレベルは読み込み"
        "時に 1 回実行されるので、時間のかかる処理は関数の中に入れてください。",
    "The reward code could not start: it runs once when loaded, so keep slow work inside "
    "the functions.":
        "報酬コードを開始できませんでした。コードのトップレベルは読み込み時に 1 回実行される"
        "ので、時間のかかる処理は関数の中に入れてください。",
    "After the code ran, {join} is no function: give each reward function a name of its "
    "own.":
        "コードを実行したあと、{join} が関数ではなくなっています。報酬関数にはそれぞれ別の"
        "名前を付けてください。",
    # The plan of the answers a step writes (plan/generation.py)
    "GRPO writes {batch} answers at once ({per} a batch x {accumulation} accumulation steps, "
    "{generations} per prompt), each of up to {prompt} prompt tokens and {completion} new "
    "ones.":
        "GRPO は回答を一度に {batch} 本書きます（バッチ {per} × 勾配累積 {accumulation} ステップ、"
        "プロンプトごとに {generations} 本）。各回答は最大でプロンプト {prompt} トークンと新しい "
        "{completion} トークンです。",
    "The prompts' length is the longest in the data.":
        "プロンプトの長さはデータ中の最長のものです。",
    "The prompts' length is assumed: the data is not measured.":
        "プロンプトの長さは仮の値です（データを測っていません）。",
    "Their KV cache takes up to {size}, held while they are written, before the backward "
    "pass.":
        "その KV キャッシュは最大 {size} で、書いている間だけ、逆伝播の前に保持します。",
    "It then trains on them a batch at a time, with the logits of the answers' tokens only; "
    "no reference model (beta 0, TRL's default).":
        "そのあと 1 バッチずつ学習します。ロジットは回答のトークンの分だけです。参照モデルは"
        "ありません（beta 0、TRL の既定）。",
    "GRPO writes its answers with vLLM, in the training process: vLLM keeps {share} of the "
    "GPU's memory ({size}) for its own copy of the weights and the answers' KV cache.":
        "GRPO は学習プロセスの中で vLLM を使って回答を書きます。vLLM は GPU のメモリの {share}"
        "（{size}）を、自分の重みのコピーと回答の KV キャッシュのために確保します。",
    "The first prompt as the model reads it:": "最初のプロンプト（モデルが読む形）:",
    "Trying the rewards on a few prompts...": "いくつかのプロンプトで報酬を試しています...",
    "{prompts} prompts x {answers} answers at temperature {temperature}, up to {tokens} "
    "tokens":
        "{prompts} 個のプロンプト × {answers} 個の回答、温度 {temperature}、最大 {tokens} "
        "トークン",
    "{tried}; {rounds} rounds of answers tried": "{tried}。回答を {rounds} 回試しました",
    "Nothing to learn: every answer the model wrote ({where}) got the same reward, {alike}: "
    "the rewards never told one answer from another, so GRPO would learn nothing. What "
    "helps: a reward with partial credit (for example 0.5 for part of the form), a few "
    "examples of the form in Warm-up examples (a time budget writes them itself where a "
    "regex reward's Pattern holds the form), or a prompt that asks for the form more "
    "plainly. Test rewards shows the answers and their scores.":
        "学習できるものがありません: モデルが書いた回答（{where}）はすべて同じ報酬 {alike} "
        "でした。報酬が回答の良し悪しを区別していないため、GRPO は何も学びません。役に立つこと: "
        "部分点のある報酬（たとえば形式の一部を満たせば 0.5）、「ウォームアップの例」に形式の例を"
        "少し入れる（`regex` 報酬のパターンが形式を表していれば、時間予算がこれを自動で作ります）、"
        "または形式をもっとはっきり求めるプロンプト。"
        "「報酬を試す」で回答と点数を確認できます。",
    "Nothing to learn: every answer the model wrote ({where}) got the same reward, {alike}: "
    "it may already do what the rewards ask. GRPO learns from answers that score "
    "differently: make the task harder, add a reward that tells good answers from better "
    "ones, or use the model as it is.":
        "学習できるものがありません: モデルが書いた回答（{where}）はすべて同じ報酬 {alike} "
        "でした。すでに報酬の求めることができているのかもしれません。GRPO は点数に差のある回答"
        "から学びます: 課題を難しくする、良い回答とより良い回答を区別する報酬を加える、"
        "またはモデルをそのまま使ってください。",
    "At these settings (temperature {temperature}), about {spread} of groups of {n} "
    "answers would hold different rewards: GRPO learns from those only.":
        "この設定（温度 {temperature}）では、{n} 個の回答のグループのうち約 {spread} で報酬に"
        "差が出ます。GRPO が学ぶのはそのグループからだけです。",
    "temperature {temperature}: the answers' rewards differ most there, of the "
    "temperatures tried ({tried})":
        "温度 {temperature}: 試した温度のうち、回答の報酬の差が最も大きかった温度（{tried}）",
    "a warm-up of {steps_for} SFT steps on {examples} examples of the form before GRPO: "
    "{spread} of groups of {most} answers would differ ({tried}), too few to learn from; the "
    "examples are the model's own answers and the data's own values put in the Pattern's "
    "form, the best your rewards scored":
        "GRPO の前に形式の例 {examples} 件で SFT を {steps_for} ステップのウォームアップ: "
        "{most} 個の回答のグループで差が出るのは {spread}（{tried}）で、学ぶには少なすぎます。"
        "例はモデル自身の回答とデータ自身の値をパターンの形式に入れたもので、報酬の点が"
        "最も高いものです",
    "{most} answers per prompt: the most the quick path gives, as a warmed-up model's "
    "answers differ less":
        "プロンプトごとの回答数 {most}: ウォームアップ後のモデルの回答は差が出にくいため、"
        "クイックパスで選べる最大の数",
    "Warm-up examples: {path} holds no examples.":
        "ウォームアップの例: {path} に例がありません。",
    "Warm-up examples: {path} cannot be read ({strerror}). Give a JSON lines file of prompt "
    "and completion, or clear the setting.":
        "ウォームアップの例: {path} を読めません（{strerror}）。prompt と completion の "
        "JSON Lines ファイルを指定するか、設定を空にしてください。",
    "Warm-up examples: line {number} of {path} is not a JSON object with \"prompt\" and "
    "\"completion\".":
        "ウォームアップの例: {path} の {number} 行目が \"prompt\" と \"completion\" を持つ "
        "JSON オブジェクトではありません。",
    "{n} answers per prompt: {spread} of groups of {n} would hold different rewards (GRPO "
    "learns from those)":
        "プロンプトごとの回答数 {n}: {n} 個のグループの {spread} で報酬に差が出ます"
        "（GRPO はそこから学びます）",
    "answers of at most {needed} tokens: the rewarded answers keep their reward within "
    "that length, and shorter answers make more steps fit":
        "回答は最大 {needed} トークン: 報酬を得た回答はこの長さで報酬を保ち、短い回答ほど"
        "多くのステップが収まります",
    "learning rate {rate}: a LoRA adapter that has minutes of GRPO steps needs a rate that "
    "moves it within them":
        "学習率 {rate}: 数分の GRPO ステップしかない LoRA アダプタには、その間に動く学習率が"
        "必要です",
    "gradient accumulation {accumulation}: two prompts' groups of {n} answers a step "
    "({total} answers)":
        "勾配累積 {accumulation}: 1 ステップに 2 つのプロンプトの {n} 個ずつの回答のグループ"
        "（{total} 個の回答）",
    "Dataset: the {count} questions of `{label}` as prompts (`{path}`), their answers in "
    "the 'answer' column, which exact_match reads; write a reward for what a good answer "
    "is.":
        "データセット: `{label}` の {count} 個の質問をプロンプトにしました（`{path}`）。回答は "
        "'answer' 列にあり、exact_match が読みます。良い回答とは何かを報酬に書いてください。",
    # Answers cut at Max completion length (data/prompts.py, rewards/check.py,
    # train/grpo_signal.py)
    "Max completion length {length} tokens: {share} of the answers in the column "
    "'{reward_column}' are at most {most} tokens long, and {default}, the default, would cut "
    "the model's answers before their end.":
        "回答の最大長 {length} トークン: 列 '{reward_column}' の回答の {share} は {most} "
        "トークン以内です。既定の {default} ではモデルの回答が最後まで書かれる前に切れてしまい"
        "ます。",
    "{share} of the answers were cut at Max completion length ({limit} tokens) before they "
    "ended, so a reward for how an answer ends (a sign-off, a closing tag, a final answer) "
    "cannot be earned: raise it to {need} tokens, what the data's answers need. More answers "
    "or a higher temperature would not help.":
        "回答の {share} が、終わる前に回答の最大長（{limit} トークン）で切れました。そのため、"
        "回答の終わり方（結びの言葉、閉じタグ、最後の答え）に対する報酬は得られません。"
        "データの回答が必要とする {need} トークンまで上げてください。回答数を増やしたり温度を"
        "上げたりしても解決しません。",
    "{share} of the answers were cut at Max completion length ({limit} tokens) before they "
    "ended, so a reward for how an answer ends (a sign-off, a closing tag, a final answer) "
    "cannot be earned: raise it. More answers or a higher temperature would not help.":
        "回答の {share} が、終わる前に回答の最大長（{limit} トークン）で切れました。そのため、"
        "回答の終わり方（結びの言葉、閉じタグ、最後の答え）に対する報酬は得られません。"
        "回答の最大長を上げてください。回答数を増やしたり温度を上げたりしても解決しません。",
    "Prompt {prompt}: all {group} answers scored {value}, and {cuts} of them were cut at Max "
    "completion length before they ended: a reward for how an answer ends (a sign-off, a "
    "closing tag, a final answer) cannot be earned by a cut answer. Raise Max completion "
    "length.":
        "プロンプト {prompt}: {group} 個の回答がすべて {value} 点で、そのうち {cuts} 個は終わる"
        "前に回答の最大長で切れていました。切れた回答では、回答の終わり方（結びの言葉、閉じ"
        "タグ、最後の答え）に対する報酬は得られません。回答の最大長を上げてください。",
    "Answers cut at the length limit: over the last {count} logged steps, {share} of the "
    "answers reached Max completion length before they ended, so a reward for how an answer "
    "ends (a sign-off, a closing tag, a final answer) cannot be earned. Raise Max completion "
    "length (Test rewards shows how long the answers are), or ask for shorter answers in "
    "the prompts.":
        "回答が長さの上限で切れています: 直近 {count} 回の記録ステップで、回答の {share} が"
        "終わる前に回答の最大長に達しました。そのため、回答の終わり方（結びの言葉、閉じタグ、"
        "最後の答え）に対する報酬は得られません。回答の最大長を上げるか（「報酬をテスト」で"
        "回答の長さを確認できます）、プロンプトでもっと短い回答を求めてください。",
    "Nothing to learn: every answer the model wrote ({where}) got the same reward, {alike}. "
    "{advice}":
        "学習できるものがありません: モデルが書いた回答（{where}）はすべて同じ報酬 {alike} "
        "でした。{advice}",
}
