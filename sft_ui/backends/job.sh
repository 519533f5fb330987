# The command of a run on Hugging Face Jobs (backends/jobs.py sends it; SFT_UI_REPO is the
# model repo, whose .studio folder holds the studio's code and the run's settings).
set -euo pipefail
pip install --quiet --no-cache-dir huggingface_hub
hf download "$SFT_UI_REPO" --include '.studio/*' --local-dir work
cd work/.studio
pip install --quiet --no-cache-dir -r requirements.txt
python -m sft_ui train --config config.yaml --runs-dir runs --events
run=$(ls -d runs/*/ | head -n 1)
hf upload "$SFT_UI_REPO" "$run/model" . --commit-message 'Trained with SFT Studio'
hf upload "$SFT_UI_REPO" "$run" run --include '*.jsonl' --include config.yaml \
    --include train.log --commit-message 'SFT Studio run records'
