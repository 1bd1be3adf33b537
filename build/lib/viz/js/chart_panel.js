// A chart panel (the fit or the loss): its one figure object set to round r by the chart's
// patches, texts and shown flags (docs/player.md, "A chart"), drawn by Plotly.react at a new
// size and then with its axes frozen, moved in place when only points and texts change
// (./plotly_patch.js); its fonts scaled to the window.

import { rounded } from "./format.js";
import { freeze, moveInPlace, react, thaw, traceAxes } from "./plotly_patch.js";
import { getPath, rowOf, setPath } from "./trace.js";

export function chartPanel(name, box, plot, chart) {
  const figure = structuredClone(chart.spec.figure);
  return { name, box, plot, chart, figure };
}

// The chart's figure at round r (n: the model's rounds; lo: the window's first round, for an
// array without its own `first`); returns [path, value] of what changed.
function patchFigure(panel, r, n, lo) {
  const { spec, arrays } = panel.chart;
  const fig = panel.figure;
  const changed = [];
  const set = (path, value) => {
    const old = getPath(fig, path);
    if (old === value || (Array.isArray(old) && Array.isArray(value) && old.length === 1
      && value.length === 1 && old[0] === value[0])) return;
    setPath(fig, path, value);
    changed.push([path, value]);
  };
  for (const p of spec.patches || []) {
    let value = r + (p.offset || 0);
    if (!p.round) {
      const a = arrays[p.array];
      const row = r - (a.first ?? lo) + (p.offset || 0);
      if (row < 0 || row >= a.shape[0]) continue;  // e.g. "round r - 1" at round 0 (hidden)
      value = rowOf(a, row);
      // labels ("y − ŷ = {}"): each number written by the reader's rounding rule
      if (p.label) value = Array.from(value, (v) => p.label.replace("{}", rounded(v)));
    }
    set(p.path, p.list ? [value] : value);
  }
  for (const t of spec.texts || []) {
    const text = r === 0 && t.at0 !== undefined ? t.at0 : t.template
      .replaceAll("{r-1}", r - 1).replaceAll("{r}", r).replaceAll("{n}", n);
    set(t.path, text);
  }
  for (const s of spec.shown || []) set(s.path, r >= s.from);
  return changed;
}

// The axis ranges over every round: the trace holds every round's arrays, so a chart's
// axes are fixed once (Plotly's autorange at each redraw costs, and moving axes hide the
// change from one round to the next). {axis name: [min, max, rounds?]} of the patched x, y.
function rangeOf(panel, n) {
  const { spec, arrays } = panel.chart;
  const out = {};
  for (const p of spec.patches || []) {
    const m = /^data\.(\d+)\.([xy])$/.exec(p.path);
    const axes = m && traceAxes(panel.plot, Number(m[1]));
    if (!axes) continue;
    const axis = axes[m[2]];
    let lo = Infinity;
    let hi = -Infinity;
    // a round's marker: the axis of rounds spans them all, exactly (as the loss curves do)
    if (p.round) [lo, hi] = [(p.offset || 0), n + (p.offset || 0)];
    else {
      for (const v of arrays[p.array].data) {
        if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
      }
    }
    const [a, b, rounds] = out[axis] || [Infinity, -Infinity, true];
    out[axis] = [Math.min(a, lo), Math.max(b, hi), rounds && !!p.round];
  }
  return out;
}

// Round r of the chart (at layout `key`); n rounds, lo the window's first. A promise.
export function drawChart(Plotly, panel, r, { n, lo, key }) {
  const at = `${r}|${n}|${lo}|${key}`;  // a draw for another reason (a node clicked): as is
  if (panel.drawnAt === at && panel.frozen === key) return Promise.resolve();
  panel.drawnAt = at;
  if (panel.ahead?.at === at) return swapAhead(Plotly, panel);
  dropAhead(Plotly, panel);
  const changed = patchFigure(panel, r, n, lo);
  if (panel.frozen === key) {
    if (!changed.length) return Promise.resolve();
    // points moved, texts rewritten in Plotly's own SVG when that is all the round changes
    const moved = moveInPlace(Plotly, panel, changed);
    if (moved) return moved;
    return react(Plotly, panel);
  }
  // the first draw at this size: Plotly lays the chart out, then its axes and margins are
  // fixed for the rounds to come (no autorange or automargin pass at each round)
  return react(Plotly, panel).then(() => freeze(Plotly, panel, rangeOf(panel, n), key));
}

// The next round drawn ahead, at rest, where it cannot be drawn in place (a trace shown from
// it on: Plotly.react would redraw the whole chart at the step, ~100-200 ms for the fit's
// markers): a second plot of the panel, hidden under the first, drawn by Plotly.react from
// the figure patched to round r + 1; the step to it swaps the two (a fresh draw of that
// round, as every frame must be).
export function drawAhead(Plotly, panel, r, { n, lo, key }) {
  const next = r + 1;
  const at = `${next}|${n}|${lo}|${key}`;
  if (panel.frozen !== key || next > n || panel.ahead?.at === at
    || !(panel.chart.spec.shown || []).some((s) => s.from === next)) return Promise.resolve();
  dropAhead(Plotly, panel);
  const twin = { chart: panel.chart, figure: structuredClone(panel.figure) };
  patchFigure(twin, next, n, lo);
  const plot = panel.plot;
  twin.plot = document.createElement("div");
  twin.plot.className = plot.className.replace(/\s*js-plotly-plot/, "");
  Object.assign(twin.plot.style, { position: "absolute", left: `${plot.offsetLeft}px`,
    top: `${plot.offsetTop}px`, visibility: "hidden" });
  panel.box.append(twin.plot);
  panel.ahead = { at, plot: twin.plot, figure: twin.figure, drawn: react(Plotly, twin) };
  return panel.ahead.drawn;
}

function swapAhead(Plotly, panel) {
  const { plot, figure, drawn } = panel.ahead;
  panel.ahead = null;
  Object.assign(plot.style, { position: "", left: "", top: "", visibility: "" });
  const old = panel.plot;
  old.remove();
  Plotly.purge(old);
  Object.assign(panel, { plot, figure });
  return drawn;
}

function dropAhead(Plotly, panel) {
  if (!panel.ahead) return;
  Plotly.purge(panel.ahead.plot);
  panel.ahead.plot.remove();
  panel.ahead = null;
}

const ORIGINAL = new WeakMap();  // a trace's marker or line -> its own size or width

// The chart at its panel's size, its fonts scaled to the window.
export function fitChart(panel, size, fonts) {
  thaw(panel);  // the figure's own ranges and margins, to be laid out afresh
  const layout = panel.figure.layout;
  layout.width = size.width;
  layout.height = size.height;
  layout.autosize = false;
  layout.font = { ...layout.font, size: fonts.chart };
  layout.title = { ...layout.title, font: { ...layout.title?.font, size: fonts.title } };
  for (const k of ["legend", "hoverlabel"]) {
    if (layout[k]?.font?.size) layout[k].font.size = fonts.chart;
  }
  for (const note of layout.annotations || []) if (note.font?.size) note.font.size = fonts.chart;
  for (const [name, axis] of Object.entries(layout)) {
    if (!/^[xy]axis\d*$/.test(name) || !axis) continue;
    if (axis.tickfont?.size) axis.tickfont.size = fonts.chart;
    if (axis.title?.font?.size) axis.title.font.size = fonts.chart;
  }
  // marks and lines grow with the type too (`fonts.grow`), from the figure's own sizes
  // however often the chart is fitted
  const k = fonts.grow ?? 1;
  for (const trace of panel.figure.data || []) {
    for (const [part, key] of [["marker", "size"], ["line", "width"]]) {
      const holder = trace[part];
      if (!holder) continue;
      if (!ORIGINAL.has(holder)) ORIGINAL.set(holder, holder[key]);
      const own = ORIGINAL.get(holder);
      if (typeof own === "number") holder[key] = own * k;
      else if (Array.isArray(own)) holder[key] = own.map((v) => v * k);
    }
  }
  // the title needs less room than the figure's 70 px once the legend is not beside it;
  // that margin was set for 17 px type, so it grows with the type too (at 3840 px a 54 px
  // title in 70 px was cut at the panel's top)
  const m = layout.margin || {};
  layout.margin = { ...m, t: Math.round(Math.min((m.t ?? 70) * k,
    fonts.title * 1.3 + fonts.chart * 2)) };
}
