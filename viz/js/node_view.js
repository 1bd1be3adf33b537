// A node drawn from its record (docs/player.md, "The node record"), in every host: the worked
// arithmetic typeset in the page (./tex.js), the candidates chart (Plotly, the record's own
// figure), the best split of each feature and the best candidates as tables. Two shapes:
// panels of the player's grid ("node": the arithmetic, "candidates": the chart) sized to the
// screen, and the tree view's details under the player, at their natural height.

import { fitChart } from "./chart_panel.js";
import { el } from "./dom.js";
import { rounded } from "./format.js";
import { signs, threshold } from "./labels.js";
import { mathml } from "./tex.js";

export const NODE_STYLE = `
.bsn { line-height: 1.3; }
.bsn-title { font-weight: 700; margin: 0 0 0.2em 0; }
.bsn-why { color: #333; margin: 0 0 0.3em 0; }
.bsn-steps math { font-size: 1.21em; }
.bsn-panel :is(msub, msup, msubsup, munder, mover, munderover) > :not(:first-child)
  { font-size: max(16px, 0.71em); }
.bsn-step { margin: 0.3em 0; }
.bsn-steps mtd { padding: 0.14em 0; text-align: left; }
.bsn-steps mtr + mtr > mtd { padding-top: 0.3em; }
.bsn-steps mtd:nth-child(odd):not(:last-child) { text-align: right; }
.bsn-steps details > summary { cursor: pointer; color: #0b5394; margin: 0.1em 0 0.2em 0; }
.bsn-panel { position: absolute; inset: 0; overflow: hidden; padding: 2px 6px; }
.bsn-cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.1fr); gap: 16px;
  align-items: start; }
.bsn-cols > * { min-width: 0; }
.bsn-details { margin-top: 10px; display: flex; flex-direction: column; gap: 8px; }
.bsn-details h4 { font-size: 1em; margin: 0.4em 0 0.2em 0; }
.bsn-table { overflow: auto; max-height: 24em; border: 1px solid #E0E0E0; border-radius: 4px;
  content-visibility: auto; }
.bsn-table table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
.bsn-table th, .bsn-table td { padding: 2px 8px; border-bottom: 1px solid #EEE;
  white-space: nowrap; text-align: left; }
.bsn-table td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bsn-table th { position: sticky; top: 0; background: #F5F5F5; }
.bsn-note { color: #444; font-size: 0.9em; }
.bsn-feature { font: inherit; padding: 2px 4px; border: 1px solid #BDBDBD; border-radius: 6px; }
/* dimmed only if the wait lasts: an answer within 150 ms repaints nothing meanwhile (a
   fade at once repainted the whole details every frame while the record was built) */
.bsn-wait { opacity: 0.5; transition: opacity 0.2s 0.15s; }
/* charts drawn ahead, off screen (NodeDetails.predraw): laid out apart from the page */
.bsn-shelf { position: fixed; left: -20000px; top: 0; width: 1px; height: 1px; overflow: hidden;
  visibility: hidden; contain: strict; pointer-events: none; }
.bsn-bar { display: flex; gap: 10px; flex-wrap: wrap; align-items: center; }
.bsn-bar a { color: #0b5394; }
`;

// The steps whose result the panel is for: never folded away (by the step's name,
// boost/trace/arithmetic.py). A split's own leaf weight and value (what it would have been
// as a leaf) come after its verdict and fold before its results do.
export const RESULTS = new Set(["similarity", "similarity left", "similarity right", "gain",
  "gain minus gamma", "leaf weight", "leaf value", "log-odds to probability"]);
const AS_A_LEAF = new Set(["leaf weight", "leaf value", "log-odds to probability"]);
const SMALLEST = 16;  // px: a panel's formulas (and their scripts) never get smaller

// `className`: which output's tree the node is in, as `treeClass` says it ("class east",
// "α = 0.9"), for a model of several outputs (null otherwise)
export function title(record, className = null) {
  return `Node ${record.node} of round ${record.round}`
    + (className === null ? "" : `, ${className}`);
}

function stepsHtml(steps) {
  return steps.map((s) => `<div class="bsn-step" data-step="${s.name}">${mathml(s.latex)}</div>`)
    .join("");
}

const fold = (steps, label) => (steps.length ? `<details><summary>${label}</summary>`
  + `${stepsHtml(steps)}</details>` : "");

// The worked arithmetic into `box`: the title, why, then the steps. With `height` (a panel):
// earlier steps fold under "k earlier steps", then a split's leaf weight and value under
// "as a leaf", then the type shrinks (never under 16 px) until the results fit. `why`: a
// sentence in place of the record's; `stop` (a step's name): the arithmetic ends before
// that step, a lesson's open question (its answer is that step: a note says so).
export function drawArithmetic(box, record, { height = null, heading = null, why = null,
  stop = null } = {}) {
  box.replaceChildren();
  el("div", { class: "bsn-title", text: `${heading ?? title(record)}, worked out` }, box);
  const said = why ?? (record.why ? `${cap(record.why)}.` : "");
  if (said) el("div", { class: "bsn-why", text: said }, box);
  let steps = record.arithmetic || [];
  const cut = stop ? steps.findIndex((s) => s.name === stop) : -1;
  if (cut >= 0) steps = steps.slice(0, cut);
  const list = el("div", { class: "bsn-steps" }, box);
  if (cut >= 0) {
    el("div", { class: "bsn-why bsn-stop", text: "The rest answers the question: Reveal "
      + "shows it." }, box);
  }
  if (!steps.length) {
    el("div", { class: "bsn-note", text: record.on_sample ? "A model file looked at on a data "
      + "sample: its training arithmetic is not in the file (the sample's candidates are)."
      : "No arithmetic for this node." }, list);
    return;
  }
  const split = !!record.best && !record.numbers?.leaf;
  const first = steps.findIndex((s) => RESULTS.has(s.name));
  const head = first < 0 ? steps.length - 1 : first;  // the steps that may fold on top
  const tail = split ? steps.filter((s) => AS_A_LEAF.has(s.name)) : [];
  const body = steps.filter((s) => !tail.includes(s));
  const draw = (folded, leaf) => {
    list.innerHTML = fold(body.slice(0, folded), `${folded} earlier step${folded > 1 ? "s" : ""}`)
      + stepsHtml(body.slice(folded))
      + (leaf ? fold(tail, "as a leaf: w and η·w") : stepsHtml(tail));
    box.dataset.folded = folded;
  };
  draw(0, false);
  if (height === null) return;
  // (the panel's box has the panel's height: what overflows it does not fit)
  const fits = () => box.scrollHeight <= Math.min(box.clientHeight, height) + 1;
  let folded = 0;
  while (!fits() && folded < head) draw(++folded, false);
  if (!fits() && tail.length) draw(folded, true);
  // the steps' type (the title, why and the folds' labels keep theirs)
  const base = parseFloat(getComputedStyle(list).fontSize);
  for (let px = base - 1; !fits() && px >= SMALLEST; px -= 1) list.style.fontSize = `${px}px`;
}

// A model file looked at on a data sample: the model's own gain and cover (from its training
// rows) beside the sample's split, rows, G and H (the candidates are the sample's).
function sampleTable(box, record) {
  const n = record.numbers;
  const b = record.best;
  const f = (x) => (x === null || x === undefined ? "—" : signs(rounded(x)));
  const cut = (x) => threshold(x, 6);  // a threshold keeps the data's digits
  el("div", { class: "bsn-title", text: `Node ${record.node}: the model's numbers and the `
    + "sample's" }, box);
  el("div", { class: "bsn-note", text: "Candidate splits recomputed on the sample: the model's "
    + "gain and cover come from its training rows; the candidates, G and H below from the "
    + "sample's rows that reach this node." }, box);
  box.append(tableElement({ columns: ["", "model (its training rows)", "sample"], rows: [
    ["split", n.feature ? `${n.feature} < ${cut(n.split)}` : "leaf",
      b ? `${b.feature} < ${cut(b.threshold)}, gain ${f(b.gain)}` : "none"],
    ["gain", f(n.gain), b ? f(b.gain) : "—"],
    ["cover (H)", f(n.cover), b ? f(b.h_left + b.h_right) : "—"],
    ["rows", "—", b ? (b.n_left + b.n_right).toLocaleString("en-US") : "—"],
    ["G", "—", b ? f(b.g_left + b.g_right) : "—"]] }));
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// The output a tree track's trees are of, for a model of several (else null): its class
// ("class east"), or the track's own label (a quantile's "α = 0.9").
export const treeClass = (track) => ((track?.groups ?? 1) > 1
  ? track.group_label ?? `class ${track.class_name ?? track.class_idx}` : null);

// A table of the record ({columns, rows}) as an HTML table; numbers by the rule of every
// number a reader sees (format.js `rounded`, as the arithmetic beside it: 140.17, with its
// minus sign: −951.78, as the tree and the formulas write it), counts
// whole with thousands marked, missing ones blank (a split's threshold is in its label,
// written by Python with the data's digits: its minus sign too, "x < −0.5").
const COUNTS = new Set(["Candidates", "Row"]);
const ROW_EM = 1.5;  // a row's height in the table's em, about (its header's too)
export function tableElement(table) {
  const wrap = el("div", { class: "bsn-table" });
  // Laid out and painted only near the screen (content-visibility): under the player the
  // tables are mostly below the fold when a node is clicked (their style and layout were
  // ~5 of a click's 15 ms). Their height meanwhile, until first drawn: about their rows'.
  wrap.style.containIntrinsicBlockSize = `auto ${Math.min(24, ROW_EM * (table.rows.length + 1))
  }em`;
  const t = el("table", {}, wrap);
  const head = el("tr", {}, el("thead", {}, t));
  for (const c of table.columns) el("th", { text: c }, head);
  const body = el("tbody", {}, t);
  const counts = table.columns.map((c) => COUNTS.has(c));
  for (const row of table.rows) {
    const tr = el("tr", {}, body);
    for (const [k, v] of row.entries()) {
      const numeric = typeof v === "number";
      const number = numeric && counts[k] ? v.toLocaleString("en-US")
        : numeric ? signs(rounded(v)) : null;
      el("td", { text: v === null ? "" : numeric ? number : v === true ? "yes"
        : v === false ? "no" : signs(String(v)), ...(numeric ? { class: "num" } : {}) }, tr);
    }
  }
  return wrap;
}

// The record's candidates chart of `feature` sized to `size` with the player's fonts.
export function chartOf(record, feature, size, fonts) {
  const spec = record.charts?.[feature];
  if (!spec) return null;
  const panel = { figure: structuredClone(spec) };
  fitChart(panel, size, fonts);
  return panel.figure;
}

export function defaultFeature(record) {
  return record.best?.feature ?? Object.keys(record.charts || {})[0] ?? null;
}

// Draw the chart of `feature` into `plot` (Plotly.react); a promise. `like`: the plot whose
// settled margins it starts from (default: its own last ones).
export function drawCandidates(Plotly, plot, record, feature, size, fonts, like = plot) {
  const figure = chartOf(record, feature, size, fonts);
  if (!figure) {
    if (plot.classList.contains("js-plotly-plot")) Plotly.purge(plot);
    Object.assign(plot.style, { width: "", height: "", contain: "" });
    plot.replaceChildren(el("div", { class: "bsn-note", text: record.candidates
      ? `${feature}: its candidates are not in this file (open the model in the app).`
      : `No candidate splits at node ${record.node}: its rows cannot be divided (a single `
        + "row, or each feature has one value among them)." }));
    return Promise.resolve();
  }
  if (!plot.classList.contains("js-plotly-plot")) plot.replaceChildren();
  // The margins the last chart of this size settled on (its axes' automargin): a chart
  // whose labels fit them is drawn in one pass, not two (Plotly draws again when automargin
  // moves a margin); one whose labels need more still gets it.
  const key = `${size.width}x${size.height}|${fonts.chart}`;
  const last = like?._fullLayout?._size;
  if (last && like.dataset.margins === key) {
    const m = figure.layout.margin || {};
    figure.layout.margin = { ...m, l: Math.max(m.l ?? 0, last.l), r: Math.max(m.r ?? 0, last.r),
      t: Math.max(m.t ?? 0, last.t), b: Math.max(m.b ?? 0, last.b) };
  }
  plot.dataset.margins = key;
  // strict: Plotly's measures while it draws lay out the chart alone, not the page
  Object.assign(plot.style, { width: `${size.width}px`, height: `${size.height}px`,
    contain: "strict" });
  return Plotly.react(plot, figure.data, figure.layout, { displayModeBar: false,
    responsive: false });
}

const READY = 16;  // charts drawn ahead and kept (a round's nodes of a depth-3 tree: 15)
const sizeOf = (width) => ({ width: Math.max(300, Math.floor((width - 16) / 2.1)), height: 440 });
const readyKey = (record, feature, size) => `${record.round}:${record.node}:${record.class}|`
  + `${feature}|${size.width}x${size.height}`;

// The tree view's details under the player: the node's title, its candidates chart (a
// feature to choose) beside its worked arithmetic, then its tables; downloads of the
// arithmetic. `ask(feature)`: the record with that feature's chart (a promise), from the host.
export class NodeDetails {
  constructor(parent) {
    this.root = el("div", { class: "bsn bsn-details", "data-testid": "boostscope-node" },
      parent);
    this.shelf = el("div", { class: "bsn-shelf", "aria-hidden": "true" }, parent);
    this.ready = new Map();  // key (readyKey) -> a chart drawn ahead on the shelf
    this.record = null;
    this.feature = null;
  }

  featureOf(record) {  // the feature a record's chart opens on: the one chosen last, if it can
    return this.feature && record.features.includes(this.feature)
      && record.charts?.[this.feature] ? this.feature : defaultFeature(record);
  }

  // A node's chart drawn ahead, at rest, on the shelf (the host's prefetch): a click on the
  // node then moves it into place instead of drawing it. At most READY are kept.
  predraw(Plotly, record, { fonts, width }) {
    if (!record?.candidates || record.error) return Promise.resolve();
    const feature = this.featureOf(record);
    const size = sizeOf(width);
    const key = readyKey(record, feature, size);
    if (!record.charts?.[feature] || this.ready.has(key)
      || (this.record === record && this.feature === feature)) return Promise.resolve();
    const plot = el("div", { class: "bsn-plot" }, this.shelf);
    this.ready.set(key, plot);
    for (const [old, chart] of this.ready) {
      if (this.ready.size <= READY) break;
      this.ready.delete(old);
      Plotly.purge(chart);
      chart.remove();
    }
    return drawCandidates(Plotly, plot, record, feature, size, fonts, this.plot);
  }

  async draw(Plotly, record, { fonts, width, ask, csv = null, className = null }) {
    this.record = record;
    const root = this.root;
    root.classList.remove("bsn-wait");
    const size = sizeOf(width);
    this.feature = this.featureOf(record);
    const t0 = performance.now();
    const key = readyKey(record, this.feature, size);
    const ready = this.ready.get(key);
    if (ready && record.candidates) {  // drawn ahead: moved into place below
      this.ready.delete(key);
      if (this.plot) { Plotly.purge(this.plot); this.plot.remove(); }
      this.plot = ready;
    }
    this.plot ??= el("div", { class: "bsn-plot" });  // kept: Plotly.react, not a new plot
    const plot = this.plot;
    // The chart first, while the page around it is laid out as the last frame left it:
    // Plotly measures its text (a forced layout), which costs the whole page's layout once
    // the new formulas and tables are in.
    if (record.candidates && !plot.isConnected) root.append(plot);
    const drawing = !record.candidates ? null : ready ? Promise.resolve()
      : drawCandidates(Plotly, plot, record, this.feature, size, fonts);
    const t1 = performance.now();
    root.replaceChildren();
    root.dataset.node = record.node;
    root.dataset.round = record.round;
    el("div", { class: "bsn-title", text: `${title(record, className)} — click another `
      + "node of the tree above to see its splits" }, root);
    const cols = el("div", { class: "bsn-cols" }, root);
    const left = el("div", { class: "bsn-left" }, cols);
    const right = el("div", { class: "bsn-right" }, cols);
    if (record.on_sample) sampleTable(right, record);
    else drawArithmetic(right, record, { heading: title(record, className) });
    this.downloads(right, record);
    const t2 = performance.now();
    if (!record.candidates) {
      el("div", { class: "bsn-note", text: `No candidate splits at node ${record.node}: its `
        + "rows cannot be divided (a single row, or each feature has one value among them)." },
      left);
      return;
    }
    const drawn = new Set(record.drawn);
    const bar = el("label", { class: "bsn-bar" }, left);
    bar.append("Feature ");
    const select = el("select", { class: "bsn-feature", "aria-label": "Feature" }, bar);
    for (const f of record.features) {
      el("option", { value: f, text: drawn.has(f) ? f : `${f} (not drawn)` }, select);
    }
    select.value = this.feature;
    if (drawn.size < record.features.length) {
      el("div", { class: "bsn-note", text: `colsample: this node could split only on `
        + `${drawn.size} of ${record.features.length} features; the others' candidates are `
        + "shown but could not be chosen." }, left);
    }
    left.append(plot);
    select.addEventListener("change", async () => {
      const f = select.value;
      this.feature = f;
      let rec = this.record;
      if (!rec.charts[f] && ask) {
        plot.classList.add("bsn-wait");
        try { rec = await ask(f); } catch (e) { rec = null; }
        plot.classList.remove("bsn-wait");
        if (this.record !== record || this.feature !== f) return;  // moved on meanwhile
        if (rec) this.record = rec = { ...this.record, charts: { ...this.record.charts,
          ...rec.charts } };
      }
      await drawCandidates(Plotly, plot, rec || this.record, f, size, fonts);
    });
    const t3 = performance.now();
    this.tables(root, record);
    const all = record.candidates.toLocaleString("en-US");
    if (csv && record.csv) {
      el("a", { class: "bsn-csv", href: csv, download: "", text: `⬇ All ${all} candidates (CSV)` },
        el("div", { class: "bsn-bar" }, root));
    } else {
      el("div", { class: "bsn-note", text: `All ${all} candidates: in Python, `
        + `bst.split_candidates(${record.round}, ${record.node}`
        + `${record.class ? `, ${record.class}` : ""}) gives them all.` }, root);
    }
    const t4 = performance.now();
    await drawing;
    // where a draw's time goes (the page's own clock; tests and benchmarks read it)
    this.drawMs = { chart: t1 - t0, arithmetic: t2 - t1, tables: t4 - t3 };
  }

  tables(root, record) {
    const sampled = record.drawn.length < record.features.length
      ? "; Drawn: could this node split on it (colsample)" : "";
    el("h4", { text: `Best split of each feature at node ${record.node} (sorted by gain`
      + `${sampled})` }, root);
    root.append(tableElement(record.per_feature));
    el("h4", { text: `Best candidate splits of node ${record.node}`
      + `${record.on_sample ? " recomputed on the sample" : ""} (${record.candidates
        .toLocaleString("en-US")} in all; G, H and similarity S of both children)` }, root);
    el("div", { class: "bsn-note", text: record.notes || "" }, root);
    root.append(tableElement(record.top));
  }

  downloads(box, record) {
    if (!record.downloads) return;
    const bar = el("div", { class: "bsn-bar" }, box);
    const name = `round${record.round}_node${record.node}`;
    for (const [kind, text, type] of [["LaTeX", record.downloads.tex, "text/x-tex"],
      ["CSV", record.downloads.csv, "text/csv"]]) {
      const a = el("a", { download: `${name}.${kind === "CSV" ? "csv" : "tex"}`,
        text: `⬇ ${kind}`, href: "#" }, bar);
      // the file made when it is asked for (a click's default action follows its handlers),
      // not at every draw: two Blobs a click cost 2-4 ms of the details' draw
      a.addEventListener("click", () => {
        if (a.href.endsWith("#")) a.href = URL.createObjectURL(new Blob([text], { type }));
      });
    }
  }

  waiting() { this.root.classList.add("bsn-wait"); }
}

// A panel of the player's grid drawn from the selected node's record (the root until a node
// is clicked): "node", the worked arithmetic fitted to the panel; "candidates", the chart of
// the node's split's feature. Drawn at once from a record the player holds, else the last
// drawing stays, dimmed, until the record comes (the player draws again then).
export class NodePanel {
  constructor(name, box, plot, player) {
    this.name = name;
    this.box = box;
    this.plot = plot;
    this.player = player;
    this.drawnKey = null;
    this.size = null;
    this.fonts = null;
    if (name === "node") this.inner = el("div", { class: "bsn bsn-panel" }, plot);
  }

  sized(size, fonts) {
    this.size = size;
    this.fonts = fonts;
  }

  // Round r (at layout `key`): a promise, resolved once drawn (or at once, while waiting).
  // At round 0, the baseline, the arithmetic is of round 1's tree, the one that comes next
  // (its node selected, else its root): its rows' residuals are the baseline's.
  draw(Plotly, r, key) {
    const p = this.player;
    const next = r === 0 && this.name === "node" ? p.nodeNext() : null;
    const node = next ?? p.nodeShown(r);
    const stop = p.question?.round === r ? p.question.stop : null;
    const want = `${r}|${node}|${key}|${stop}`;
    if (this.drawnKey === want) return Promise.resolve();
    if ((r === 0 && next === null) || node === null) {
      this.drawnKey = want;
      this.note(r === 0 ? "Round 0 is the baseline: no tree yet. Step to round 1 for the "
        + "first tree's nodes." : "This round's tree is not in this file.");
      return Promise.resolve();
    }
    const record = p.recordOf(next === null ? r : 1, node);
    if (!record) {  // on its way: the player draws again when it comes
      this.box.classList.add("bsn-wait");
      return Promise.resolve();
    }
    this.box.classList.remove("bsn-wait");
    this.drawnKey = want;
    if (record.error) { this.note(record.error); return Promise.resolve(); }
    if (this.name === "node") {
      this.inner.style.fontSize = `${this.fonts.chart}px`;
      drawArithmetic(this.inner, record, { height: this.size.height, stop,
        heading: title(record, treeClass(p.tree)),
        why: next === null ? null : "Round 0 is the baseline: this is round 1's tree, the one "
          + "that comes next, grown from the baseline's residuals." });
      this.inner.dataset.node = record.node;
      this.inner.dataset.round = record.round;
      return Promise.resolve();
    }
    this.plot.dataset.node = record.node;
    this.plot.dataset.round = record.round;
    return drawCandidates(Plotly, this.plot, record, defaultFeature(record), this.size,
      this.fonts);
  }

  note(text) {
    if (this.name === "node") this.inner.replaceChildren(el("div", { class: "bsn-note", text }));
    else {
      if (this.plot.classList.contains("js-plotly-plot")) window.Plotly?.purge(this.plot);
      this.plot.replaceChildren(el("div", { class: "bsn-note", text }));
    }
  }
}
