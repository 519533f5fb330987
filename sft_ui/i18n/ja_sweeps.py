"""Japanese for sweeps (sweeps/, ui/sweep_panel.py, and their actions and endpoints)."""

MODULES = ("sweeps/", "ui/sweep_panel.py")  # whose messages go here (see ja.py)

PAGE = {
    "Sweep: try several settings, keep the best": "スイープ: 複数の設定を試して最良のものを使う",
    "Each trial is a run in the queue, judged on held-out data, never on its training "
    "loss; the time budget holds for the whole sweep.":
        "各試行はキューに入る 1 つの実行で、学習の損失ではなく取り分けたデータで評価します。"
        "時間予算はスイープ全体に対するものです。",
    "Add a setting to vary": "変える設定を追加",
    "Settings to vary": "変える設定",
    "One a line: 'setting: value, value' (a list) or 'setting: low .. high' (a range; "
    "'log' after it spreads it by ratio).":
        "1 行に 1 つ: 'setting: value, value'（値の一覧）または 'setting: low .. high'"
        "（範囲。後ろに 'log' を付けると比で均等に分けます）。",
    "Eval file": "評価ファイル",
    "For an Evaluate score or the rewards' mean: a file of held-out rows (blank: the rows "
    "each trial holds out).":
        "評価タブのスコアや報酬の平均に使う、取り分けた行のファイルです（空欄: 各試行が"
        "取り分ける行）。",
    "Start sweep": "スイープを開始",
    "Stop sweep": "スイープを停止",
    "Use the best": "最良のものを使う",
    "Eval loss by trial": "試行ごとの評価損失",
    "Score against": "スコアの横軸",
    "Score against a varied setting": "変えた設定に対するスコア",
    "Search": "探索",
    "Judged by": "評価の基準",
    "Time for the whole sweep (minutes)": "スイープ全体の時間（分）",
    "Trials (0: as many as fit)": "試行数（0: 時間内に収まるだけ）",
    "Grid": "グリッド",
    "Random": "ランダム",
    "Model-based (Optuna)": "モデルに基づく探索（Optuna）",
    "Eval loss": "評価損失",
    "Eval loss (held-out rows)": "評価損失（取り分けた行）",
    "Exact match": "完全一致",
    "ROUGE-L": "ROUGE-L",
    "JSON valid": "JSON として正しい",
    "Rewards' mean (held-out prompts)": "報酬の平均（取り分けたプロンプト）",
    "Place": "順位",
    "Trial": "試行",
    "Score": "スコア",
    "Run": "実行",
}

MESSAGES = {
    "start a sweep": "スイープを開始",
    "stop a sweep": "スイープを停止",
    "pruned": "打ち切り",
    "scoring": "採点中",
    "removed": "取り消し",
    "interrupted": "中断",
    "This sweep has no scored trial yet: its ranked table fills as its trials end.":
        "このスイープにはまだ採点された試行がありません。順位表は試行が終わるごとに"
        "埋まります。",
    "The evaluation of run {id} failed: {error}": "実行 {id} の評価に失敗しました: {error}",
    "Search: '{method}' is not one of {join}.":
        "探索: '{method}' は {join} のいずれでもありません。",
    "Vary at least one setting: one a line, e.g. 'learning_rate: 1e-4, 3e-4, 1e-3'.":
        "変える設定を 1 つ以上、1 行に 1 つ書いてください（例: "
        "'learning_rate: 1e-4, 3e-4, 1e-3'）。",
    "The sweep's time budget must be more than 0 and at most 1440 minutes.":
        "スイープの時間予算は 0 より大きく 1440 分以下にしてください。",
    "Trials must be from 0 (as many as fit) to {MAX_TRIALS}.":
        "試行数は 0（時間内に収まるだけ）から {MAX_TRIALS} までにしてください。",
    "Score: '{score}' is not one of {join}.":
        "スコア: '{score}' は {join} のいずれでもありません。",
    "Line {number} ('{value}'): write 'setting: value, value' or 'setting: low .. high'.":
        "{number} 行目（'{value}'）: 'setting: value, value' または "
        "'setting: low .. high' の形で書いてください。",
    "A sweep cannot vary '{name}'. It varies: {join}.":
        "スイープでは '{name}' を変えられません。変えられる設定: {join}。",
    "{name}: give at least one value.": "{name}: 値を 1 つ以上書いてください。",
    "{name} does not apply to a {stage} run: vary another setting, or choose its stage.":
        "{name} は {stage} の実行には使われません。別の設定を変えるか、その設定を使う"
        "ステージを選んでください。",
    "A {stage} run is not scored by rewards: choose eval_loss or an Evaluate score.":
        "{stage} の実行は報酬では採点できません。`eval_loss` か評価タブのスコアを選んで"
        "ください。",
    "Unknown sweep setting(s): {join}. Known: {join2}.":
        "不明なスイープの設定: {join}。使える設定: {join2}。",
    "{path} is not a mapping of sweep settings.":
        "{path} はスイープの設定の対応表ではありません。",
    "{name}: a range spread by ratio (log) needs values above 0.":
        "{name}: 比で分ける範囲（`log`）には 0 より大きい値が必要です。",
    "A {stage} run has no eval loss: score its trials by the rewards' mean on held-out "
    "prompts (reward).":
        "{stage} の実行には評価損失がありません。取り分けたプロンプトでの報酬の平均"
        "（`reward`）で採点してください。",
    "The rewards' mean is taken on held-out prompts: give an eval file of prompts the run "
    "does not train on.":
        "報酬の平均は取り分けたプロンプトで求めます。学習に使わないプロンプトの評価"
        "ファイルを指定してください。",
    "The app stopped while this sweep ran: its trials so far are kept.":
        "このスイープの実行中にアプリが止まりました。それまでの試行は残っています。",
    "No sweep {value} of yours: the sweep panel lists yours.":
        "あなたのスイープ {value} はありません。スイープのパネルにあなたのスイープが"
        "表示されます。",
    "Sweep {id} is running: stop it, or wait until it ends, before starting another.":
        "スイープ {id} が実行中です。別のスイープを始める前に、停止するか終わるまで"
        "お待ちください。",
    "Sweep {id} did not stop within 60 s.": "スイープ {id} が 60 秒以内に止まりませんでした。",
    "It left the queue.": "キューから外れました。",
    "No sweep was sent: send a mapping with base, vary and budget_minutes.":
        "スイープが送られていません。`base`、`vary`、`budget_minutes` を含む対応表を"
        "送ってください。",
    "Cannot start the sweep:": "スイープを開始できません:",
    "Only a run on Hugging Face Jobs starts beside another: one run trains on this machine "
    "at a time.":
        "ほかの実行と並んで始められるのは Hugging Face Jobs での実行だけです。このマシンで"
        "学習できる実行は一度に 1 つです。",
    "Trials at once (on Hugging Face Jobs) must be from 1 to {MAX_AT_ONCE}.":
        "同時に行う試行の数（Hugging Face Jobs）は 1 から {MAX_AT_ONCE} までにして"
        "ください。",
    "Cannot stop the sweep:": "スイープを停止できません:",
    "No best trial yet:": "最良の試行はまだありません:",
    "Sweep {id}: {state}, {done} of {planned} trials, {seconds} of {budget}.":
        "スイープ {id}: {state}、試行 {planned} 件中 {done} 件、{budget} のうち {seconds}。",
    "Best: trial {number} (run {run})": "最良: 試行 {number}（実行 {run}）",
    "The page holds the best trial's settings (run {run}, with what its time budget "
    "chose). Its model is run {run2} in Chat, Compare, Evaluate and Export.":
        "ページに最良の試行の設定（実行 {run}、時間予算が選んだ値を含む）を読み込み"
        "ました。そのモデルはチャット・比較・評価・エクスポートで実行 {run2} として"
        "選べます。",
}
