"""Japanese for training on several processes of this machine (backends/processes.py)."""

MODULES = ("backends/processes.py",)  # whose messages go here (see ja.py)

PAGE = {
    "Where it trains": "学習する場所",
}

SETTINGS = {
    "Processes": "プロセス数",
    "Training processes on this machine, one per GPU (accelerate's num_processes). "
    "Auto: every GPU the machine has, 1 on a CPU. With more than one, Start launches the "
    "run as `accelerate launch` processes of the app; the effective batch grows with them.":
        "このマシンで学習するプロセスの数で、GPU 1 枚に 1 つです（accelerate の "
        "num_processes）。auto: マシンにあるすべての GPU、CPU では 1。2 以上にすると、"
        "開始でアプリの子プロセスとして `accelerate launch` で実行を起動します。"
        "実効バッチサイズはプロセス数に比例して大きくなります。",
    "Strategy": "分散方式",
    "How several processes share the work. ddp: each GPU holds the whole model and "
    "trains on its own rows (fastest when the model's training fits one GPU). fsdp: the "
    "weights, gradients and optimizer state are split across the GPUs, for a model whose "
    "training does not fit one.":
        "複数のプロセスで作業を分ける方法です。ddp: 各 GPU がモデル全体を持ち、別々の行で"
        "学習します（モデルの学習が GPU 1 枚に収まるときに最速）。fsdp: 重み・勾配・"
        "オプティマイザの状態を GPU 間で分割します。GPU 1 枚に収まらないモデル向けです。",
}

MESSAGES = {
    "**{processes} processes:** {reason}": "**{processes} プロセス:** {reason}",
    "ddp: each GPU holds the whole run, about {ddp} of {room}, and no weights travel "
    "between GPUs.":
        "ddp: 各 GPU が実行全体を持ちます（{room} のうち約 {ddp}）。GPU 間で重みを"
        "やりとりしません。",
    "fsdp: under ddp each GPU would need about {ddp} of {room}; fsdp splits the weights, "
    "gradients and optimizer state across the {processes} GPUs, about {fsdp} each.":
        "fsdp: ddp では各 GPU に {room} のうち約 {ddp} が必要です。fsdp は重み・勾配・"
        "オプティマイザの状態を {processes} 枚の GPU に分け、1 枚あたり約 {fsdp} です。",
    "Training on {processes} processes...": "{processes} プロセスで学習中...",
    "Processes ({processes}) is more than the {gpus} GPU(s) of this machine: set it to auto "
    "or at most the number of GPUs.":
        "プロセス数（{processes}）がこのマシンの GPU 数（{gpus}）を超えています。auto に"
        "するか、GPU の数以下にしてください。",
    "The fsdp strategy splits the model across GPUs: it needs a CUDA machine and at least 2 "
    "processes. Choose ddp here.":
        "fsdp はモデルを GPU 間で分割する方式で、CUDA のマシンと 2 つ以上のプロセスが"
        "必要です。ここでは ddp を選んでください。",
    "It was killed: the system ends a process this way when memory runs out.":
        "強制終了されました。メモリが足りなくなると、システムはこの方法でプロセスを終了させます。",
    "A training process ended with exit status {status}. Its last lines:\n{lines}":
        "学習プロセスが終了コード {status} で終わりました。最後の出力:\n{lines}",
}
