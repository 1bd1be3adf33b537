// Every use of Plotly.js's private internals, in this one module: a chart's round drawn by
// moving Plotly's own SVG nodes (gd.calcdata, the nodes' __data__, gd._fullLayout's axes and
// their c2p and _offset), its axes and margins frozen after the first draw
// (gd._fullLayout._size, gd._fullData). None of this is Plotly's public API: a Plotly upgrade
// may move any of it, and then `internalsMissing` names what moved
// (tests/browser/test_page_modules.py draws charts with the packaged plotly.min.js and
// asks it). Everything else in the page uses Plotly.react and Plotly.relayout only.

const CONFIG = { displaylogo: false, responsive: false, scrollZoom: false,
  modeBarButtonsToRemove: ["select2d", "lasso2d"] };

export function react(Plotly, panel) {
  const { figure } = panel;
  return Plotly.react(panel.plot, figure.data, figure.layout, CONFIG);
}

// The axes trace i of a drawn chart is on: {x: "xaxis2", y: "yaxis"} (null if not drawn).
export function traceAxes(gd, i) {
  const trace = (gd._fullData || []).find((t) => t.index === i);
  if (!trace) return null;
  const name = (letter) => `${letter}axis${(trace[`${letter}axis`] || letter).slice(1)}`;
  return { x: name("x"), y: name("y") };
}

// After a chart's first draw at a size: its axes' ranges widened to every round's values
// (as Plotly's autorange pads: 5%) and its margins fixed where automargin put them, so that
// a round's Plotly.react skips the autorange and automargin passes; thaw undoes it when the
// size changes.
export function freeze(Plotly, panel, ranges, key) {
  const layout = panel.figure.layout;
  const full = panel.plot._fullLayout;
  if (!full) return null;
  const own = panel.chart.spec.figure.layout;  // the axes as the figure has them
  panel.thawed ??= structuredClone({ margin: layout.margin, axes: Object.fromEntries(
    Object.keys(full).filter((k) => /^[xy]axis\d*$/.test(k))
      .map((k) => [k, { range: own[k]?.range, autorange: own[k]?.autorange,
        automargin: own[k]?.automargin }])) });
  for (const [name, [lo, hi, rounds]] of Object.entries(ranges)) {
    const axis = full[name];
    // (Plotly writes its autorange back into the layout: the figure's own says if it is fixed)
    if (!axis || !["linear", "log"].includes(axis.type) || own[name]?.range) continue;
    const log = axis.type === "log";
    if (log && !(lo > 0)) continue;
    const [a, b] = log ? [Math.log10(lo), Math.log10(hi)] : [lo, hi];
    const pad = (b - a || 1) * 0.05;  // only where a round reaches beyond the figure's range
    const [r0, r1] = axis.range;
    layout[name] = { ...layout[name], autorange: false,
      range: rounds ? [a, b] : [a < r0 ? a - pad : r0, b > r1 ? b + pad : r1] };
  }
  for (const name of Object.keys(panel.thawed.axes)) {
    if (!ranges[name] && full[name]?.range) {  // an axis no round moves: as drawn
      layout[name] = { ...layout[name], autorange: false, range: [...full[name].range] };
    }
  }
  // drawn once more with those ranges, then the margins automargin found are kept
  return react(Plotly, panel).then(() => {
    const size = panel.plot._fullLayout._size;
    layout.margin = { ...layout.margin, l: size.l, r: size.r, t: size.t, b: size.b };
    for (const name of Object.keys(panel.thawed.axes)) layout[name].automargin = false;
    panel.frozen = key;
  });
}

export function thaw(panel) {  // the figure's own ranges and margins again (a new size)
  if (!panel.thawed) return;
  const layout = panel.figure.layout;
  layout.margin = panel.thawed.margin;
  for (const [name, axis] of Object.entries(panel.thawed.axes)) {
    layout[name] = { ...layout[name], ...axis };
    for (const k of ["range", "autorange", "automargin"]) if (axis[k] === undefined) delete layout[name][k];
  }
  panel.thawed = null;
  panel.frozen = null;
}

// A round's draw without Plotly, when its axes are frozen and the round only moves the points
// of marker or line traces and rewrites names, hover templates and the title: Plotly's SVG
// nodes moved in place (Plotly.react redraws every marker, axis and label: 50-100 ms for the
// fit's 1000 markers on a loaded 2-core machine). gd.data and gd.calcdata are kept in step,
// so hover reads the round's values. Returns false, having touched nothing, for anything
// else (a trace shown or hidden, a heatmap): Plotly.react draws it. Otherwise a promise.
export function moveInPlace(Plotly, panel, changed) {
  const gd = panel.plot;
  const plan = [];
  const shapes = {};  // the round's line on the loss chart: Plotly.relayout redraws shapes only
  for (const [path, value] of changed) {
    const m = /^data\.(\d+)\.(x|y|name|hovertemplate|text)$/.exec(path);
    const shape = /^layout\.shapes\.(\d+)\.([xy][01])$/.exec(path);
    if (shape) { shapes[`shapes[${shape[1]}].${shape[2]}`] = value; continue; }
    if (!m) {
      if (path !== "layout.title.text") return false;
      const title = gd.querySelector(".g-gtitle .gtitle");
      if (!title || /[<&]/.test(value) || title.childElementCount) return false;
      plan.push(() => { title.textContent = value; gd.layout.title.text = value; });
      continue;
    }
    const i = Number(m[1]);
    const attr = m[2];
    const cd = (gd.calcdata || []).find((c) => c[0]?.trace?.index === i);
    const trace = cd?.[0].trace;
    if (!trace || trace.type !== "scatter" || trace.visible !== true) return false;
    if (attr === "text") {  // a text trace's labels (points unmoved): rewritten in its SVG
      const group = [...gd.querySelectorAll(".scatterlayer .trace")]
        .find((g) => g.__data__?.[0]?.trace?.index === i);
      const texts = group ? [...group.querySelectorAll(".textpoint text")] : [];
      if (trace.mode !== "text" || texts.length !== cd.length || value.length !== cd.length
        || texts.some((t) => t.childElementCount) || value.some((v) => /[<&]/.test(v))) {
        return false;
      }
      plan.push(() => {
        gd.data[i].text = value;
        trace.text = value;
        texts.forEach((t, k) => { t.textContent = value[k]; cd[k].tx = value[k]; });
      });
    } else if (attr === "hovertemplate") {
      plan.push(() => { gd.data[i].hovertemplate = value; trace.hovertemplate = value; });
    } else if (attr === "name") {
      const entry = [...gd.querySelectorAll(".legend .traces")]
        .find((g) => g.__data__?.[0]?.trace?.index === i);
      const text = entry?.querySelector(".legendtext");
      if (!trace.showlegend || !text || /[<&]/.test(value) || !fitsLegend(text, value)) return false;
      plan.push(() => { text.textContent = value; gd.data[i].name = value; trace.name = value; });
    } else {
      const group = [...gd.querySelectorAll(".scatterlayer .trace")]
        .find((g) => g.__data__?.[0]?.trace?.index === i);
      const points = group?.querySelectorAll(".points path.point").length;
      if (!group || value.length !== cd.length || !["markers", "lines"].includes(trace.mode)
        || (trace.mode === "markers" && points !== cd.length)
        || (trace.mode === "lines" && !linesInPlace(group, trace, value))) return false;
      plan.push(() => { gd.data[i][attr] = value; for (let k = 0; k < cd.length; k++) cd[k][attr] = value[k]; });
      plan.push(group);  // redrawn once both axes are set
    }
  }
  const groups = new Set();
  for (const step of plan) if (step instanceof Element) groups.add(step); else step();
  for (const group of groups) redrawScatter(gd, group);
  if (!Object.keys(shapes).length || moveLines(gd, shapes)) return Promise.resolve();
  return Plotly.relayout(gd, shapes);
}

// The loss chart's round line (a vertical line shape, x in data, y in paper units) moved in
// place: its path's x set (Plotly.relayout would cost ~20 ms for it). False, touching
// nothing, for any other shape or change.
function moveLines(gd, shapes) {
  const moves = new Map();
  for (const [key, value] of Object.entries(shapes)) {
    const [, i, end] = /^shapes\[(\d+)\]\.(\w+)$/.exec(key);
    if (end !== "x0" && end !== "x1") return false;
    moves.set(Number(i), { ...moves.get(Number(i)), [end]: value });
  }
  const plan = [];
  for (const [i, { x0, x1 }] of moves) {
    const shape = gd._fullLayout.shapes?.[i];
    const path = gd.querySelector(`.shapelayer path[data-index="${i}"]`);
    const xa = shape && gd._fullLayout[`xaxis${shape.xref.slice(1)}`];
    const d = path?.getAttribute("d") ?? "";
    const m = SHAPE_PATH.exec(d);
    if (!xa || !m || shape.type !== "line" || x0 === undefined || x0 !== (x1 ?? x0)
      || xa.type !== "linear") return false;
    const x = xa._offset + xa.c2p(x0);
    plan.push(() => {
      path.setAttribute("d", `M${x},${m[2]}L${x},${m[3]}`);
      for (const s of [gd.layout.shapes[i], shape]) Object.assign(s, { x0, x1: x1 ?? x0 });
    });
  }
  for (const step of plan) step();
  return true;
}

// A vertical line shape's path as Plotly writes it: "M x,y0 L x,y1" (x and the ends captured)
const SHAPE_PATH = /^M([\d.e+-]+),([\d.e+-]+)L[\d.e+-]+,([\d.e+-]+)$/;

const round2 = (v) => Math.round(v * 100) / 100;  // as Plotly writes a path's coordinates
// A line's path as Plotly's Drawing.linearPath and Drawing.steps.hv write it.
const LINE_PATHS = {
  linear: (pts) => `M${pts.map((p) => p.join(",")).join("L")}`,
  hv: (pts) => `M${pts[0].join(",")}${pts.slice(1).map(([x, y]) => `H${x}V${y}`).join("")}`,
};

// Whether a legend entry's text, rewritten to `value`, stays inside the legend's box (Plotly
// sized the box for the text it drew: "tree 10" after "tree 9" would be cut off). Measured
// with the text set, then put back.
function fitsLegend(text, value) {
  const box = text.closest(".legend")?.querySelector(".bg");
  if (!box) return false;
  const old = text.textContent;
  text.textContent = value;
  const fits = text.getBoundingClientRect().right <= box.getBoundingClientRect().right;
  text.textContent = old;
  return fits;
}

// A line can be moved in place when Plotly drew it as one path (no gap: a missing value
// splits it in several) of a shape LINE_PATHS writes, with no fill or the fill to y = 0
// (FILLS); any other fill (to the next trace, to x = 0) is drawn by Plotly.react.
function linesInPlace(group, trace, value) {
  const fill = trace.fill ?? "none";
  return LINE_PATHS[trace.line?.shape ?? "linear"] && (fill === "none" || FILLS[fill])
    && group.querySelectorAll("path.js-line").length === 1
    && group.querySelectorAll("path.js-fill").length === (fill === "none" ? 0 : 1)
    && Array.prototype.every.call(value, Number.isFinite);
}

// The fill of a line as Plotly's scatter plot writes it: to y = 0, from the last point's
// foot to the first's, then up along the line ("M x1,y0 L x0,y0 L" + the line's path).
const FILLS = {
  tozeroy: (line, pts, y0) => `M${pts.at(-1)[0]},${y0}L${pts[0][0]},${y0}L${line.slice(1)}`,
};

function redrawScatter(gd, group) {  // a scatter trace's markers or line at its calcdata
  const cd = group.__data__;
  const trace = cd[0].trace;
  const xa = gd._fullLayout[`xaxis${trace.xaxis.slice(1)}`];
  const ya = gd._fullLayout[`yaxis${trace.yaxis.slice(1)}`];
  const px = (d) => [xa.c2p(d.x), ya.c2p(d.y)];
  if (trace.mode === "markers") {
    const points = group.querySelectorAll(".points path.point");
    points.forEach((node, k) => {
      const [x, y] = px(cd[k]);
      const ok = Number.isFinite(x) && Number.isFinite(y);
      node.setAttribute("transform", ok ? `translate(${x},${y})` : "translate(-1e4,-1e4)");
    });
  } else {
    const line = group.querySelector("path.js-line");
    const pts = cd.map(px).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y))
      .map(([x, y]) => [round2(x), round2(y)]);
    if (!line || !pts.length) return;
    const d = LINE_PATHS[trace.line?.shape ?? "linear"](pts);
    line.setAttribute("d", d);
    const fill = FILLS[trace.fill];
    if (fill) group.querySelector("path.js-fill").setAttribute("d", fill(d, pts, round2(ya.c2p(0))));
  }
}

// What this module reads of Plotly's internals, checked on a drawn chart `gd` (a scatter
// with markers, a line, a legend, a title and a line shape: what the loss and fit charts
// hold). Returns a list of what is missing or changed shape; empty when all is there.
export function internalsMissing(gd) {
  const out = [];
  const need = (ok, what) => { if (!ok) out.push(what); };
  const full = gd._fullLayout;
  need(full && typeof full === "object", "gd._fullLayout");
  if (!full) return out;
  const size = full._size;
  need(size && ["l", "r", "t", "b"].every((k) => Number.isFinite(size[k])),
    "gd._fullLayout._size.{l,r,t,b}");
  const xa = full.xaxis;
  need(xa && typeof xa.type === "string" && Array.isArray(xa.range), "xaxis.type, .range");
  need(xa && typeof xa.c2p === "function" && Number.isFinite(xa.c2p(0)), "xaxis.c2p");
  need(xa && Number.isFinite(xa._offset), "xaxis._offset");
  need(Array.isArray(gd._fullData) && gd._fullData.every((t) => Number.isInteger(t.index)
    && typeof t.xaxis === "string" && typeof t.yaxis === "string"),
  "gd._fullData[].index, .xaxis, .yaxis");
  const cds = gd.calcdata;
  need(Array.isArray(cds) && cds.length > 0, "gd.calcdata");
  for (const cd of cds || []) {
    const t = cd?.[0]?.trace;
    need(t && Number.isInteger(t.index) && typeof t.type === "string" && "visible" in t
      && "mode" in t, "calcdata[i][0].trace.{index,type,visible,mode}");
    need(cd.every((d) => "x" in d && "y" in d), "calcdata[i][k].x, .y");
  }
  const groups = [...gd.querySelectorAll(".scatterlayer .trace")];
  need(groups.length === (cds || []).length, ".scatterlayer .trace: one per trace");
  for (const g of groups) {
    need(g.__data__?.[0]?.trace && (cds || []).includes(g.__data__),
      ".scatterlayer .trace's __data__ is its calcdata");
    const t = g.__data__?.[0]?.trace;
    if (t?.mode === "markers") {
      need(g.querySelectorAll(".points path.point").length === g.__data__.length,
        ".points path.point: one per point");
    }
    if (t?.mode === "lines") {
      const d = g.querySelector("path.js-line")?.getAttribute("d") ?? "";
      const ya = full[`yaxis${t.yaxis.slice(1)}`];
      const pts = g.__data__.map((p) => [round2(xa.c2p(p.x)), round2(ya.c2p(p.y))]);
      const path = LINE_PATHS[t.line?.shape ?? "linear"];
      need(path && d === path(pts), `path.js-line as Plotly writes a ${t.line?.shape} line`);
      if (FILLS[t.fill]) {
        need(g.querySelector("path.js-fill")?.getAttribute("d") === FILLS[t.fill](d, pts, round2(ya.c2p(0))),
          `path.js-fill as Plotly writes a fill ${t.fill}`);
      }
    }
  }
  const legend = [...gd.querySelectorAll(".legend .traces")];
  need(legend.length > 0 && legend.every((e) => Number.isInteger(e.__data__?.[0]?.trace?.index)
    && e.querySelector(".legendtext")), ".legend .traces' __data__ and .legendtext");
  need(gd.querySelector(".g-gtitle .gtitle"), ".g-gtitle .gtitle");
  const shapes = full.shapes || [];
  need(shapes.length > 0, "gd._fullLayout.shapes");
  shapes.forEach((s, i) => {
    const d = gd.querySelector(`.shapelayer path[data-index="${i}"]`)?.getAttribute("d") ?? "";
    const m = SHAPE_PATH.exec(d);
    need(typeof s.xref === "string" && s.type === "line" && m
      && Math.abs(Number(m[1]) - (xa._offset + xa.c2p(s.x0))) < 0.5,
    `shape ${i}: .xref, .type and its path "M x,y L x,y" at xaxis._offset + c2p(x0)`);
  });
  return out;
}
