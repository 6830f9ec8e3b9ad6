// Figures for slides: every plotly chart of the app gets both downloads in its own mode bar, drawn by the browser
// from the chart on screen (no server work). Plotly's own download button takes one format (the app's charts set
// SVG: specviz/app/figure_config.py; a chart with plotly's default config has PNG): this script adds a button for
// the other one beside it, at twice the chart's size for a PNG. Installed once per tab from the top document
// (app.py); a MutationObserver puts the button back whenever plotly redraws a mode bar.
(() => {
  const w = window;
  if (w.__specvizDownloads) return;
  w.__specvizDownloads = true;
  const SCALE = 2;
  const add = (gd) => {
    const bar = gd.querySelector(".modebar");
    if (!bar || bar.querySelector(".specviz-download") || !w.Plotly || !gd._context) return;
    const own = ((gd._context.toImageButtonOptions || {}).format || "png").toLowerCase();
    const other = own === "svg" ? "png" : "svg";
    const group = w.document.createElement("div");
    group.className = "modebar-group specviz-download";
    const button = w.document.createElement("a");
    button.className = "modebar-btn";
    button.setAttribute("rel", "tooltip");
    button.setAttribute("data-title", "Download plot as a " + other);
    button.setAttribute("data-specviz-format", other);
    button.textContent = other.toUpperCase();
    button.style.cssText = "font: 600 11px sans-serif; padding: 3px 4px; color: rgba(68,68,68,0.7); cursor: pointer;";
    button.addEventListener("click", () => {
      const options = gd._context.toImageButtonOptions || {};
      const size = gd._fullLayout || {};
      w.Plotly.downloadImage(gd, {format: other, filename: options.filename || "specviz-figure",
                                  width: size.width, height: size.height, scale: other === "png" ? SCALE : 1});
    });
    group.appendChild(button);
    bar.appendChild(group);
  };
  let queued = false;
  const scan = () => {
    queued = false;
    w.document.querySelectorAll(".js-plotly-plot").forEach(add);
  };
  new MutationObserver(() => {
    if (!queued) { queued = true; w.requestAnimationFrame(scan); }
  }).observe(w.document.body, {childList: true, subtree: true});
  scan();
})();
