// The step player's reporter: an invisible component mounted with the Playground's page (not in the Animation
// fragment), through which the player (player.js) says its step before the user touches the rest of the page.
// Its report then reruns the whole page, in the same batch as the click it precedes (a fragment's report would pull
// a full rerun's widget change into a fragment-only run: Streamlit flushes one batch under one fragment id).
export default function mount(component) {
  window.__specvizReport = (value) => component.setStateValue("at", value);
  return () => { if (window.__specvizReport) delete window.__specvizReport; };
}
