"""Few steps in the budget, measured: long Japanese support tickets (about 210 tokens
each with the chat template) routed to one of five teams, where a 5-minute budget on a
2-core CPU buys only a few dozen optimizer steps. Does the quick path's choice (it
measures the speed first and trains few steps one batch each: plan/budget.py FEW_STEPS)
reach the best of a hand grid in the same minutes?

The task (written to --dir): 200 training tickets, 40 a team, each the question, a
greeting, a problem sentence of its team in one of four wordings, a detail and a
closing; the answer is the team's name. The 20 test tickets (4 a team) say their problem
in a fifth wording no training ticket uses. Asked as the Chat tab asks (the
ticket as the user's turn), greedy; right when the reply is the team's name.

Each side trains in a fresh process through the command line with the same budget:
  quick     the studio's own choices
  old       LoRA at 5e-4 with an effective batch of 8 (2 x 4): the quick path's choice
            before it counted the steps it buys
  2e-3      LoRA at 2e-3, batch 4 x 1
  r32-1e-3  LoRA rank 32 at 1e-3, batch 4 x 1

    .venv/bin/python scripts/bench_long_rows.py [--minutes 5] [--sides quick,old,2e-3]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_text import side  # noqa: E402  (a side: a fresh `sft_ui train` process)

BASE = "HuggingFaceTB/SmolLM2-135M-Instruct"
TEAMS = {  # team: (four training wordings of its problem, the test's fifth)
    "billing": (["先月の請求額が普段の倍になっていて、内訳がよく分かりません。",
                 "同じ注文なのにクレジットカードに二重で課金されているようです。",
                 "領収書の金額と明細の金額が一致していません。",
                 "解約したはずのプランの料金がまだ引き落とされています。"],
                "支払った覚えのない料金がカード明細に載っていました。"),
    "shipping": (["注文した商品がまだ届かず、追跡番号でも動きがありません。",
                  "配達予定日を三日過ぎても荷物が届いていません。",
                  "届け先の住所を間違えて入力してしまい、変更したいです。",
                  "荷物が配送中のまま一週間止まっています。"],
                 "発送済みと連絡があったのに、いつまでも受け取れません。"),
    "technical": (["アプリを開くとすぐに落ちてしまい、何も操作できません。",
                   "最新のアップデート後に同期がエラーで止まるようになりました。",
                   "ログイン画面で読み込みが終わらず先に進めません。",
                   "設定を保存しようとすると不明なエラーと表示されます。"],
                  "画面が真っ白になったまま固まって反応しなくなります。"),
    "account": (["パスワードを忘れてしまい、再設定のメールも届きません。",
                 "登録しているメールアドレスを新しいものに変えたいです。",
                 "二段階認証の端末をなくしてしまいログインできません。",
                 "家族と共有しているアカウントの名義を変更したいです。"],
                "自分のアカウントに他の人が入った形跡があり心配です。"),
    "returns": (["届いた商品のサイズが合わなかったので返品したいです。",
                 "商品に傷があったため交換をお願いしたいです。",
                 "イメージと違ったので未開封のまま返送したいです。",
                 "返品した商品の返金がまだ確認できません。"],
                "買った品物を送り返して代金を戻してもらいたいです。"),
}
OPENINGS = ["いつもお世話になっております。", "お忙しいところ失礼いたします。",
            "はじめてご連絡いたします。", "先日はご対応ありがとうございました。"]
DETAILS = ["注文番号は控えてありますので、必要であればお知らせします。",
           "スマートフォンとパソコンの両方で同じ状況です。",
           "できれば今週中に解決していただけると大変助かります。",
           "お手数ですが、確認のうえご連絡いただけますでしょうか。",
           "何度か自分で調べてみましたが、解決方法が見つかりませんでした。"]
CLOSINGS = ["どうぞよろしくお願いいたします。", "ご返信をお待ちしております。",
            "お手数をおかけしますが、よろしくお願いします。"]
INSTRUCTION = "担当チーム（billing, shipping, technical, account, returns）は？\n\n"
SIDES = {"old": {"use_peft": True, "learning_rate": 5e-4, "per_device_train_batch_size": 2,
                 "gradient_accumulation_steps": 4},
         "2e-3": {"use_peft": True, "learning_rate": 2e-3, "gradient_accumulation_steps": 1},
         "r32-1e-3": {"use_peft": True, "lora_r": 32, "lora_alpha": 64,
                      "learning_rate": 1e-3, "gradient_accumulation_steps": 1}}


def ticket(rng: random.Random, problem: str) -> str:
    return INSTRUCTION + "".join([rng.choice(OPENINGS), problem, rng.choice(DETAILS),
                                  rng.choice(CLOSINGS)])


def make(seed: int = 3) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    train = [{"prompt": ticket(rng, rng.choice(said)), "completion": team}
             for team, (said, _) in TEAMS.items() for _ in range(40)]
    rng.shuffle(train)
    test = [{"prompt": ticket(rng, unseen), "completion": team}
            for team, (_, unseen) in TEAMS.items() for _ in range(4)]
    return train, test


def routed(model_path: str, test: list[dict]) -> int:
    """Test tickets whose greedy reply, asked as Chat asks, is the team's name."""
    import torch

    from sft_ui.chat import render_prompt
    from sft_ui.models import load_model_and_tokenizer, resolve_model
    model, tokenizer = load_model_and_tokenizer(resolve_model(model_path))
    model.eval()
    right = 0
    for row in test:
        enc = tokenizer(render_prompt(tokenizer, [{"role": "user", "content": row["prompt"]}]),
                        return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=6, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id)
        reply = tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        right += reply.strip().lower() == row["completion"]
    return right


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--sides", default="quick,old,2e-3,r32-1e-3")
    parser.add_argument("--dir", default=str(ROOT / "runs" / "bench-long-rows"))
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    train, test = make()
    data = folder / "train.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in train),
                    encoding="utf-8")
    from sft_ui.models import load_tokenizer, resolve_model
    tokens = load_tokenizer(resolve_model(BASE))([r["prompt"] for r in train])["input_ids"]
    print(f"load {open('/proc/loadavg').read().split()[:3]}; {len(train)} tickets of about "
          f"{sum(map(len, tokens)) // len(tokens)} tokens, {len(test)} test tickets",
          flush=True)
    print(f"base: {routed(BASE, test)}/{len(test)}", flush=True)
    for name in args.sides.split(","):
        result = side(name, args.minutes, data, folder, SIDES.get(name, {}))
        result["right"] = routed(str(Path(result["run"]) / "model"), test) \
            if result["state"] == "done" else None
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
