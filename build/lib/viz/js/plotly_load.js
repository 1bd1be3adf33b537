// Plotly.js loaded once per page from the URL the host gives (the app serves the packaged
// plotly.min.js; the offline file inlines it, so window.Plotly is there already). The player
// and ui/chart.js share the one <script> element, found by its data-boostscope-plotly
// attribute, not through a global of ours.

export function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  let script = document.head.querySelector("script[data-boostscope-plotly]");
  if (!script) {
    script = document.createElement("script");
    script.dataset.boostscopePlotly = "";
    script.addEventListener("error", () => { script.dataset.failed = "1"; }, { once: true });
    script.src = url;
    document.head.appendChild(script);
  }
  return new Promise((resolve, reject) => {
    const failed = () => reject(new Error(`could not load Plotly.js from ${script.src}`));
    if (script.dataset.failed) { failed(); return; }
    script.addEventListener("load", () => resolve(window.Plotly), { once: true });
    script.addEventListener("error", failed, { once: true });
  });
}
