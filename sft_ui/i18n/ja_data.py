"""Japanese for the data's messages (data/load.py, data/formats.py, data/preference.py,
data/language.py): sources, rows and formats that cannot train, and what to do; the
language of the data against the model's."""

MODULES = ("data/load.py", "data/formats.py", "data/preference.py",
           "data/preference_demo.py", "data/language.py",
           "data/sized.py")  # whose messages go here (see ja.py)

PAGE = {}

SETTINGS = {}

MESSAGES = {
    "'{name}' is not a local file or folder, and the Hugging Face Hub cannot be reached to "
    "load it as a dataset id: this machine is offline. Use '{PREFERENCE_DEMO}', or upload "
    "a .jsonl/.csv/.parquet file of preference rows.":
        "'{name}' はローカルのファイルやフォルダではなく、データセット ID として読み込むための "
        "Hugging Face Hub にも接続できません（このマシンはオフラインです）。"
        "'{PREFERENCE_DEMO}' を使うか、選好データの行を含む .jsonl/.csv/.parquet ファイルを"
        "アップロードしてください。",
    # data/load.py
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
    "{file} was read as {encoding}, not UTF-8.":
        "{file} は UTF-8 ではなく {encoding} として読み込みました。",
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
    # data/formats.py
    "plain text: the model learns every token": "プレーンテキスト: モデルはすべてのトークンを学習します",
    "chat messages (role/content), rendered with the model's chat template":
        "チャットのメッセージ（role/content）。モデルのチャットテンプレートで整形します",
    "prompt and completion": "プロンプトと回答",
    "Alpaca style instruction/input/output, turned into prompt and completion":
        "Alpaca 形式の instruction/input/output。プロンプトと回答に変換します",
    "ShareGPT style conversations (from/value), turned into chat messages":
        "ShareGPT 形式の conversations（from/value）。チャットのメッセージに変換します",
    "your template over the columns": "列に当てはめたあなたのテンプレート",
    "a question and its answer, turned into prompt and completion":
        "質問とその回答。prompt と completion に変換します",
    "Text prompts are given to {model} as the user's turn of its chat template, as Chat, "
    "Compare and Evaluate ask it (Text prompts as chat, in Dataset).":
        "テキストのプロンプトは、{model} のチャットテンプレートでユーザーの発言として渡します。"
        "チャット・比較・評価が尋ねるのと同じ形です（「データセット」の「テキストのプロンプトを"
        "チャット形式で渡す」）。",
    "{where}: no question and answer columns (such as question/answer or input/output).":
        "{where}: 質問と回答の列（question/answer や input/output など）がありません。",
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
    "(messages, conversations, prompt/completion, instruction/output, question/answer). "
    "Columns: {columns}. "
    "Set 'Text field' (in the Dataset panel) to one of them, or choose the format "
    "'template' there and write a template.":
        "{where} はどの形式にも当てはまりません: '{field}' 列もチャット用の列（messages、"
        "conversations、prompt/completion、instruction/output、question/answer）もありません。"
        "列: {columns}。"
        "「データセット」パネルの「テキスト列」をこのどれかにするか、そこで形式 'template' を"
        "選んでテンプレートを書いてください。",
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
    # data/preference.py
    "implicit preference": "暗黙プロンプトの選好",
    "unpaired preference": "ペアなしの選好",
    "preference demo set": "選好デモデータ",
    "row {n}": "{n} 件目",
    "a prompt with a chosen and a rejected answer":
        "プロンプトと、選ばれた回答（'chosen'）・退けられた回答（'rejected'）",
    "chosen and rejected conversations that start with the same prompt":
        "同じプロンプトで始まる 'chosen' と 'rejected' の会話",
    "a prompt and one answer labelled good (true) or bad (false)":
        "プロンプトと、良い（true）か悪い（false）かのラベルが付いた回答 1 つ",
    "prompt/completion/label columns (or prompt/chosen/rejected)":
        "prompt/completion/label の列（または prompt/chosen/rejected）",
    "prompt/chosen/rejected columns": "prompt/chosen/rejected の列",
    "add a label, true or false, to each prompt and completion":
        "各プロンプトと回答に true か false の 'label' を付ける",
    "add a chosen and a rejected answer to each prompt":
        "各プロンプトに 'chosen' と 'rejected' の回答を加える",
    "This file has no preference data: its columns are {columns}. Preference data has "
    "prompt/chosen/rejected columns (DPO, ORPO) or prompt/completion/label (KTO).":
        "このファイルには選好データがありません。列は {columns} です。選好データには "
        "prompt/chosen/rejected の列（DPO、ORPO）か prompt/completion/label の列（KTO）が"
        "必要です。",
    "'{stage}' is not a preference stage: use one of {stages}.":
        "'{stage}' は選好学習の段階ではありません。{stages} のどれかを使ってください。",
    "{name} needs prompt/chosen/rejected columns; this file has prompt/completion/label "
    "(unpaired preference, for KTO): choose KTO, or pair each prompt's good and bad answers "
    "as chosen and rejected.":
        "{name} には prompt/chosen/rejected の列が必要ですが、このファイルは "
        "prompt/completion/label（KTO 用のペアなしの選好）です。KTO を選ぶか、プロンプト"
        "ごとに良い回答と悪い回答を 'chosen' と 'rejected' の組にしてください。",
    "{name} needs {what}; this file has {columns} ({description}), which is data for SFT: "
    "use it for SFT, or {action}.":
        "{name} には {what}が必要ですが、このファイルにあるのは {columns}（{description}）"
        "で、SFT 用のデータです。SFT に使うか、次のようにしてください: {action}。",
    "{name} needs {what}; this file has {columns}. Rename its columns, or choose another "
    "file.":
        "{name} には {what}が必要ですが、このファイルにあるのは {columns} です。列の名前を"
        "変えるか、別のファイルを選んでください。",
    "Mixed forms: {where} is {form} but {where2} is {form2}. Keep one form per file.":
        "形式が混ざっています: {where} は {form} ですが、{where2} は {form2} です。"
        "1 つのファイルでは形式をそろえてください。",
    "Every label is {value}: {stage} needs good answers (true) and bad ones (false) to "
    "learn from. Add rows with the other label.":
        "ラベルがすべて {value} です。{stage} の学習には良い回答（true）と悪い回答（false）の"
        "両方が必要です。もう一方のラベルの行を加えてください。",
    "{where}: '{first}' is {form} but '{column}' is {form2}. Use text for every column of "
    "a row, or messages for every one.":
        "{where}: '{first}' は {form} ですが、'{column}' は {form2} です。1 つの行では"
        "すべての列をテキストにするか、すべてをメッセージにしてください。",
    "{where}: '{column}' is a {type}; it must be text or a list of messages.":
        "{where}: '{column}' が {type} です。文字列かメッセージのリストにしてください。",
    "{where}: the last message of 'prompt' is from {role}; a prompt must end with the "
    "user's message.":
        "{where}: 'prompt' の最後のメッセージが {role} からです。プロンプトはユーザーの"
        "メッセージで終わる必要があります。",
    "{where}: 'label' must be true or false (it is {value}): true for a good answer, false "
    "for a bad one.":
        "{where}: 'label' は true か false にしてください（今は {value}）。良い回答には "
        "true、悪い回答には false です。",
    "{where}: 'chosen' and 'rejected' are the same answer; a preference needs two "
    "different answers. Fix the row or remove it.":
        "{where}: 'chosen' と 'rejected' が同じ回答です。選好には異なる 2 つの回答が"
        "必要です。行を直すか、削除してください。",
    "{where}: '{column}' is missing. Every row needs '{column}'; fill it in or remove the "
    "row.":
        "{where}: '{column}' がありません。すべての行に '{column}' が必要です。値を入れるか、"
        "行を削除してください。",
    "{where}: '{column}' is an empty list of messages.":
        "{where}: '{column}' がメッセージの空のリストです。",
    "{where}: message {n} of '{column}' needs a 'role' and a 'content'.":
        "{where}: '{column}' の {n} 番目のメッセージには 'role' と 'content' が必要です。",
    "{where}: message {n} of '{column}' has role '{role}'; use one of {roles}.":
        "{where}: '{column}' の {n} 番目のメッセージの role が '{role}' です。{roles} の"
        "どれかにしてください。",
    "{where}: message {n} of '{column}' has a content that is not text.":
        "{where}: '{column}' の {n} 番目のメッセージの content が文字列ではありません。",
    "{where}: 'chosen' and 'rejected' do not start with the same prompt. Without a "
    "'prompt' column, both must hold the same prompt (the same first messages, up to the "
    "user's) followed by a different answer; or add a 'prompt' column.":
        "{where}: 'chosen' と 'rejected' が同じプロンプトで始まっていません。'prompt' 列が"
        "ない場合は、両方に同じプロンプト（ユーザーのメッセージまでの同じ先頭メッセージ）を"
        "入れ、その後に異なる回答を続けてください。または 'prompt' 列を加えてください。",
    # data/language.py
    "Most of this data is in {label}, which {model} was not trained for: its answers in "
    "{label} will be poor. A small model trained for {label}: {suggested} ({size} "
    "parameters).":
        "このデータの大部分は{label}ですが、{model} は{label}向けに学習されていません。"
        "{label}での回答は質の低いものになります。{label}を学習した小さなモデル: "
        "{suggested}（パラメータ数 {size}）。",
    "Japanese": "日本語",
    "Chinese": "中国語",
    "Korean": "韓国語",
    "Thai": "タイ語",
    "Cyrillic script": "キリル文字の言語",
    "Arabic script": "アラビア文字の言語",
    "Devanagari script": "デーヴァナーガリー文字の言語",
    "Latin script": "ラテン文字の言語",
    # data/sized.py
    "Sample prompts: the questions of the first {count} eval rows, which the run does not "
    "train on: the samples show how it answers questions it has not seen.":
        "サンプル用プロンプト: 評価用の行のうち最初の {count} 行の質問です（この実行はこれらで"
        "学習しません）。まだ見ていない質問にどう答えるかがサンプルでわかります。",
    "Sample prompts: the last {count} questions of the data. The run trains on them too (it "
    "has no eval rows), so the samples show how it learns them, not how it answers new "
    "questions: set Held-out eval fraction (Eval data) to ask questions it does not train "
    "on.":
        "サンプル用プロンプト: データの最後の {count} 件の質問です。評価用の行がないため、"
        "これらでも学習します。サンプルでわかるのは新しい質問への答え方ではなく、これらを"
        "どう覚えたかです。学習に使わない質問で試すには、「評価データ」の「評価用に取り分ける"
        "割合」を設定してください。",
    "Sample prompts: the demo's English questions, as the data holds no questions (plain "
    "text): write a few of your own in Sample prompts (Logging, checkpoints and samples).":
        "サンプル用プロンプト: データに質問がない（プレーンテキスト）ため、デモの英語の質問の"
        "ままです。「ログ・チェックポイント・サンプル」の「サンプル用プロンプト」に自分の質問を"
        "いくつか書いてください。",
    "Sample length {length} tokens: {share} of the data's answers are at most {most} tokens "
    "long, and {default}, the default, would cut them before their end.":
        "サンプルの長さ {length} トークン: データの回答の {share} は {most} トークン以内です。"
        "既定の {default} では回答が最後まで書かれる前に切れてしまいます。",
}
