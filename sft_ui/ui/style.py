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
             background: var(--background-fill-primary); }
  /* What the page scrolls to (a link, a focused field) lands below the bar. */
  html { scroll-padding-top: 160px; }
}
/* Phones: Start, Stop, Resume and the progress bar pinned to the bottom. */
@media (max-width: 768px) {
  #run-bar { position: fixed; left: 0; right: 0; bottom: 0; z-index: 50; margin: 0;
             padding: 6px 10px; background: var(--background-fill-primary);
             box-shadow: 0 -2px 8px rgba(0, 0, 0, 0.15); }
  /* The Continue buttons side by side on a row of their own, under Start, Stop and
     Resume (a label two lines at most). */
  #continue-preference, #continue-also { flex: 1 1 40% !important; }
  /* room under the page's end for the bar (the page's css cannot reach body) */
  #bar-room { height: 220px; }
}
@media (min-width: 769px) { #bar-room { display: none; } }
/* Phones: the model's and data's fields in a smaller font, so that a whole Hub id shows
   (at 390 px "SmolLM2-135M-Instruct" was cut under the arrow); the page's margins in HEAD. */
@media (max-width: 480px) {
  #cfg-model_name_or_path input, #cfg-dataset_name input { font-size: var(--text-sm); }
}
#run-bar #run-progress { font-size: var(--text-sm); }
/* What Start or Continue answered, in the bar: a few lines at a time, the rest scrolled. */
#run-bar #start-notice { max-height: 6.5em; overflow-y: auto; }
/* Help: one line; the whole text in its tooltip, or in place once the line is clicked
   (HEAD). Nothing opens by itself: a text growing under the pointer would move the
   button being clicked. */
.settings .info-text { display: -webkit-box; -webkit-box-orient: vertical;
                       -webkit-line-clamp: 1; overflow: hidden; cursor: help; }
.settings .info-text.open { -webkit-line-clamp: unset; }
/* A disabled button looks disabled, whatever its variant. */
button:disabled, button[disabled] { opacity: 0.45; filter: grayscale(0.7);
                                    cursor: not-allowed; }
/* Plots with a legend below the chart: it shows below the block (the block's height
   holds the chart alone, and cut the legend off). */
#loss-plot, #reward-plot, #runs-plot { overflow: visible !important; margin-bottom: 36px; }
#data-examples { max-height: 480px; overflow-y: auto; }
/* The samples table's headers on one line ("ステップ" broke in two in its narrow column). */
#samples thead th, #samples thead th * { white-space: nowrap; }
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
