"""The page's CSS and a script for its <head>: the run view read top to bottom, its bar
(Start, Stop, progress) in sight as the window scrolls (sticky on wide screens, pinned to
the bottom on a phone), help texts one line long with the rest behind them, a disabled
Stop that looks disabled, and plots and an upload box that show all they hold."""

CSS = """
/* The run column reads top to bottom and the window scrolls it: a column of bounded
   height wraps its later parts into further columns to the right, out of sight, so it is
   never bounded, and it never wraps. On wide screens Start, Stop and the progress bar
   stay in view while the window scrolls the column. (The page's container clips instead
   of hiding its overflow: "hidden" would make it the scroll container that a sticky bar
   sticks to, and it never scrolls.) */
.gradio-container { overflow: clip !important; }
#live-column { flex-wrap: nowrap !important; }
@media (min-width: 769px) {
  /* As tall as the settings beside it: the bar stays in view down to the page's end. */
  #live-column { align-self: stretch; }
  #run-bar { position: sticky; top: 0; z-index: 50; flex-grow: 0 !important;
             background: var(--background-fill-primary);
             /* Continue beside Start, Stop and Resume, the progress and notice under them:
                the bar keeps its height when Continue shows */
             flex-direction: row !important; flex-wrap: wrap !important; }
  #run-pinned { display: contents; }
  /* Room for four labels on one line each ("キューに追加" wrapped at 1366 px once
     Continue showed beside them); where there is less, Continue goes under them. */
  #run-buttons { order: 1; flex: 3 1 440px; }
  #run-buttons button { white-space: nowrap; }
  #continue-row { order: 2; flex: 2 1 160px; }
  #continue-row:not(:has(button)) { display: none; }
  #run-pinned > :not(#run-buttons) { order: 3; flex: 1 1 100%; }
  /* What the page scrolls to (a link, a focused field) lands below the bar. */
  html { scroll-padding-top: 160px; }
}
/* Phones: Start, Stop, Resume, the progress bar and the notice pinned to the bottom, in
   little room (a quarter of a 390x844 screen after a run, with Continue in it); the
   Continue buttons stay above the live view, in the page. */
@media (max-width: 768px) {
  #run-pinned { position: fixed; left: 0; right: 0; bottom: 0; z-index: 50; margin: 0;
                padding: 4px 10px 2px; gap: 2px; background: var(--background-fill-primary);
                box-shadow: 0 -2px 8px rgba(0, 0, 0, 0.15); }
  #run-buttons button { padding-top: 6px; padding-bottom: 6px; }
  /* the progress on one line: the step, elapsed and left first, the rest cut */
  #run-pinned #run-progress > div { white-space: nowrap; overflow: hidden;
                                    text-overflow: ellipsis; }
  #run-pinned #run-progress progress { display: block; height: 8px; }
  #continue-row:not(:has(button)) { display: none; }
  /* The Continue buttons side by side (a label two lines at most). */
  #continue-preference, #continue-also { flex: 1 1 40% !important; }
  /* room under the page's end for the pinned bar (the page's css cannot reach body) */
  #bar-room { height: 120px; }
}
@media (min-width: 769px) { #bar-room { display: none; } }
/* Phones: the model's and data's fields in a smaller font, so that a whole Hub id shows
   (at 390 px "SmolLM2-135M-Instruct" was cut under the arrow); the page's margins in HEAD. */
@media (max-width: 480px) {
  #cfg-model_name_or_path input, #cfg-dataset_name input { font-size: var(--text-sm); }
}
#run-bar #run-progress { font-size: var(--text-sm); }
/* The model list: about eight entries at a time, the rest scrolled (at full height it lay
   over the settings' panels, and a click meant for one picked a model instead). */
#cfg-model_name_or_path ul.option-list { max-height: 20em !important; overflow-y: auto; }
/* What Start or Continue answered, in the bar: a few lines at a time, the rest scrolled. */
#run-bar #start-notice { max-height: 6.5em; overflow-y: auto; }
/* Wide screens: all of it, under the buttons; while it shows, the bar scrolls with the
   page (kept in sight, a long notice lay over the loss chart), and sticks again once it
   goes. (run_controls's SHOW_NOTICE_JS brings it into view.) */
@media (min-width: 769px) {
  #run-bar #start-notice { max-height: none; overflow: visible; }
  #run-bar:has(#start-notice .md > *) { position: static; }
}
/* Help: one line; the whole text in its tooltip, or in place once the line is clicked
   (HEAD). Nothing opens by itself: a text growing under the pointer would move the
   button being clicked. */
.settings .info-text { display: -webkit-box; -webkit-box-orient: vertical;
                       -webkit-line-clamp: 1; overflow: hidden; cursor: help; }
.settings .info-text.open { -webkit-line-clamp: unset; }
/* Gradio's counters over a component while an event runs ("processing | 2.7/20.8s",
   "queue: 1/1 |"): written in English by Gradio whatever the page's language, and not
   translatable (its spinner stays; ui/lang.py's GRADIO_WORDS has the words it lets us
   translate). */
[data-testid="status-tracker"] .progress-text { display: none !important; }
/* A disabled button looks disabled, whatever its variant. */
button:disabled, button[disabled] { opacity: 0.45; filter: grayscale(0.7);
                                    cursor: not-allowed; }
/* Plots with a legend below the chart: it shows below the block (the block's height
   holds the chart alone, and cut the legend off). */
#loss-plot, #reward-plot, #runs-plot, #sweep-curves, #sweep-scores {
  overflow: visible !important; margin-bottom: 36px; }
#data-examples { max-height: 480px; overflow-y: auto; }
/* The samples table's headers on one line ("ステップ" broke in two in its narrow column). */
#samples thead th, #samples thead th * { white-space: nowrap; }
/* Tables in the page's font a size smaller, their lines broken between words where a
   word fits (in the code font a sweep's row "Learning rate 0.002, LoRA r 32" took five
   lines of a 450 px column, "length" broke as "lengt h", the Runs tab's model ids as
   "HuggingFa ceTB/Smol"). */
.table-wrap .body-cell, .table-wrap .body-cell * {
  font-family: var(--font) !important; font-size: var(--text-sm) !important;
  word-break: normal !important; overflow-wrap: anywhere !important; }
/* The sweep's headings too, and a size smaller still, a word never broken ("スコア"
   broke as "スコ/ア"): eight columns in 450 px. */
#sweep-table th, #sweep-table th * { font-family: var(--font) !important;
  font-size: var(--text-xs) !important; overflow-wrap: normal !important;
  word-break: keep-all !important; }
"""

# The page's head (Gradio adds it once its modules have loaded: ui/page_head.py puts what
# must run before them into the page itself). Its style reaches what CSS cannot (Gradio
# scopes CSS inside the page's content): on a phone, narrower margins around the page. A
# help line shows its whole text as a tooltip (in the language shown now), and opens in
# place when clicked (a phone has no hover).
HEAD = """<style>
@media (max-width: 480px) { .gradio-container .main.fillable { padding: 8px 8px; } }
</style>
<script>
document.addEventListener('mouseover', (e) => {
  const help = e.target.closest && e.target.closest('.info-text');
  if (help) help.title = help.textContent.trim();
});
document.addEventListener('click', (e) => {
  const help = e.target.closest && e.target.closest('.settings .info-text');
  if (help) help.classList.toggle('open');
});
</script>"""
