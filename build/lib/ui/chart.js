// A Plotly chart that stays on the page from one rerun to the next and is updated in place
// (Plotly.react), where st.plotly_chart draws a changed figure from nothing (docs/design.md,
// "What a redraw costs the browser"). Streamlit calls this with each run's data:
//   figure  the figure's JSON (plotly.io.to_json), as text
//   config  Plotly's config (the toolbar, the camera button's format)
//   height  the chart's height in px
//   panel   a presenter panel: the figure is laid out for a 1280x720 window (its height in
//           px, its type), and the whole chart is scaled as the player scales its own type,
//           by min(width / 1280, height / 720) (3 at 3840x2160: its text, marks and lines
//           grow with the player's, where a chart laid out at the panel's size kept 720p's
//           16 px type)
//   exact   the figure's own size is part of it (a tree in pixels): kept, then scaled
//   plotly  where Plotly.js is served (loaded once per page, the player's <script> shared)
//   select  whether a click on a point is reported: the trigger "select" gets
//           {selection: {points: [{customdata, curve_number, point_number}]}}
// Loaded with the page's modules it imports (viz.page_js.loader).

import { windowScale } from "../viz/js/dom.js";
import { loadPlotly } from "../viz/js/plotly_load.js";

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let chart = parentElement.querySelector(".boostscope-chart");
  if (!chart) {
    // (a presenter panel: the chart is scaled inside a frame that holds its scaled size)
    const frame = document.createElement("div");
    frame.className = "boostscope-chart-frame";
    chart = document.createElement("div");
    chart.className = "boostscope-chart";
    chart.style.width = "100%";
    frame.appendChild(chart);
    parentElement.appendChild(frame);
    // The column's width changes without a window resize (the sidebar opens or closes).
    // Plotly's resize throws ("Resize must be passed a displayed plot div element") on a
    // chart that is hidden or already removed (a rerun dropping it, a closed tab).
    new ResizeObserver(() => {
      const shown = chart.isConnected && chart.getClientRects().length > 0
        && getComputedStyle(chart).display !== "none";
      if (shown && chart.data && window.Plotly) window.Plotly.Plots.resize(chart);
    }).observe(chart);
  }
  // a presenter panel, laid out for 1280x720 and scaled as the player's type is
  // (Plotly reads the transform for its hover and clicks)
  const scale = data.panel ? Math.max(1, windowScale()) : 1;
  Object.assign(chart.style, { height: `${data.height}px`,
    width: scale === 1 ? "100%" : `${100 / scale}%`,
    transform: scale === 1 ? "" : `scale(${scale})`, transformOrigin: "0 0" });
  chart.parentElement.style.height = `${data.height * scale}px`;
  const figure = JSON.parse(data.figure);
  // Plotly fills the (unscaled) chart, unless the figure's size is part of it (exact)
  if (data.panel && !data.exact) delete figure.layout.height;
  chart.report = data.select ? setTriggerValue : null;
  if (data.select) {
    // As st.plotly_chart does: a click selects the point under the pointer, found at the
    // click itself (a plain click event needs the hover computed first, which a quick click
    // can beat).
    figure.layout.clickmode ??= "event+select";
    figure.layout.hovermode ??= "closest";
  }
  const draw = async (Plotly) => {
    await Plotly.react(chart, figure.data, figure.layout, data.config);
    if (!chart.listening) {  // Plotly's event methods exist once it has drawn
      chart.listening = true;
      chart.on("plotly_selected", (event) => {
        if (!event?.points?.length) return;  // a cleared selection is no click
        chart.report?.("select", {
          selection: {
            points: event.points.map((p) => ({
              customdata: p.customdata, curve_number: p.curveNumber,
              point_number: p.pointNumber,
            })),
          },
        });
      });
    }
  };
  // One redraw at a time, in the order the runs sent them.
  chart.queue = (chart.queue || Promise.resolve())
    .then(() => loadPlotly(data.plotly))
    .then(draw)
    .catch((error) => console.error(error));
}
