# The command of a run on Hugging Face Jobs (backends/jobs.py sends it): SFT_UI_REPO is the
# model repo, SFT_UI_STUDIO the run's own folder in it (the studio's code and the run's
# settings; the job adds the model and the run's records).
set -euo pipefail
pip install --quiet --no-cache-dir huggingface_hub
hf download "$SFT_UI_REPO" --include "$SFT_UI_STUDIO/*" --local-dir work
cd "work/$SFT_UI_STUDIO"
pip install --quiet --no-cache-dir -r requirements.txt
python -m sft_ui train --config config.yaml --runs-dir runs --events
run=$(ls -d runs/*/ | head -n 1)
hf upload "$SFT_UI_REPO" "$run/model" "$SFT_UI_STUDIO/model" \
    --commit-message 'SFT Studio: the model of this run'
hf upload "$SFT_UI_REPO" "$run/model" . --commit-message 'Trained with SFT Studio'
hf upload "$SFT_UI_REPO" "$run" "$SFT_UI_STUDIO/run" --include '*.jsonl' \
    --include config.yaml --include train.log --commit-message 'SFT Studio run records'
