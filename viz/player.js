// The round's player: the fit, the loss curves and the tree of any round, drawn in the page
// from one round trace (docs/player.md). Stepping, scrubbing and Play never reach the
// server; the host hears of the round only at rest.
//
// Two ways in:
//   export default (component)   Streamlit's components v2: {data: {id, trace (JSON, or
//                                null once the page holds it), goto, keys, plotly},
//                                parentElement, setTriggerValue}; runs again whenever data
//                                changes, so everything here is idempotent per trace id.
//   mount(element, trace, {plotly, report})   any other host (the offline file).

// ---------------------------------------------------------------- Python's number formats
// Labels must read exactly as viz/tree_layout.py writes them, so Python's format specs
// ("{:.4g}", "{:,.0f}") are reproduced here, ties rounded half to even on the exact binary
// value as Python does (toPrecision and toFixed round ties away from zero).

function exactDigits(x) {  // x > 0, finite: its leading 101 decimal digits and exponent
  const [mantissa, exp] = x.toExponential(100).split("e");
  return { digits: mantissa.replace(".", ""), exp: Number(exp) };
}

function roundDigits(digits, exp, p) {  // to p >= 1 significant digits, half to even
  const keep = digits.slice(0, p).padEnd(p, "0");
  const rest = digits.slice(p);
  const up = rest[0] > "5" || (rest[0] === "5"
    && (/[1-9]/.test(rest.slice(1)) || Number(keep[p - 1]) % 2 === 1));
  if (!up) return { digits: keep, exp };
  const d = keep.split("").map(Number);
  let i = p - 1;
  while (i >= 0 && d[i] === 9) d[i--] = 0;
  if (i < 0) return { digits: "1" + "0".repeat(p - 1), exp: exp + 1 };
  d[i] += 1;
  return { digits: d.join(""), exp };
}

function special(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  return null;
}

const signOf = (x) => (x < 0 || Object.is(x, -0) ? "-" : "");

// Python's f"{x:.{p}g}"
export function pyG(x, p) {
  const s = special(x);
  if (s) return s;
  p = Math.max(1, p);
  const sign = signOf(x);
  if (x === 0) return sign + "0";
  const { digits, exp: e0 } = exactDigits(Math.abs(x));
  const { digits: d, exp } = roundDigits(digits, e0, p);
  if (exp >= -4 && exp < p) {
    const int = exp >= 0 ? d.slice(0, exp + 1) : "0";
    const frac = (exp >= 0 ? d.slice(exp + 1) : "0".repeat(-exp - 1) + d).replace(/0+$/, "");
    return sign + int + (frac ? "." + frac : "");
  }
  const frac = d.slice(1).replace(/0+$/, "");
  const e = String(Math.abs(exp)).padStart(2, "0");
  return `${sign}${d[0]}${frac ? "." + frac : ""}e${exp < 0 ? "-" : "+"}${e}`;
}

// Python's f"{x:.0f}" (and f"{x:,.0f}" with comma)
export function pyF0(x, comma = false) {
  const s = special(x);
  if (s) return s;
  const sign = signOf(x);
  let int = "0";
  if (x !== 0) {
    const { digits, exp } = exactDigits(Math.abs(x));
    const p = exp + 1;  // the integer's digits
    if (p === 0) {  // 0.1 <= |x| < 1: 0 or 1, a tie (0.5) goes to 0
      int = digits[0] > "5" || (digits[0] === "5" && /[1-9]/.test(digits.slice(1))) ? "1" : "0";
    } else if (p > 0) {
      const r = roundDigits(digits, exp, p);
      int = r.digits + "0".repeat(r.exp - exp);
    }
  }
  if (comma) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return sign + int;
}

// ------------------------------------------------------------ labels (viz/tree_layout.py)
const CHAR_WIDTH = 0.6;
const LINE_HEIGHT = 1.2;
const GAP = 6;
const ORDER = [[0, 1], [1, 1], [2, 1], [1, 2], [2, 2], [3, 1], [3, 2], [3, 3], [4, 1], [4, 2],
  [4, 3]];
const LAST_FORMAT = 4;

export const short = (x) => (Number.isNaN(x) ? "n/a"
  : Math.abs(x) >= 1000 ? pyF0(x, true) : pyG(x, 4));

export function num(x, digits) {
  if (digits >= 4 || Number.isNaN(x)) return short(x);
  const a = Math.abs(x);
  for (const [div, suffix] of [[1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
    if (a >= div) return pyG(x / div, digits) + suffix;
  }
  if (a >= 10 ** digits) return pyF0(x);
  return pyG(x, digits);
}

const trunc = (name, n) => (name.length <= n ? name : name.slice(0, n - 1) + "…");

function textSize(text, font) {
  const lines = text.split("<br>");
  return [Math.max(...lines.map((l) => l.length)) * CHAR_WIDTH * font,
    lines.length * LINE_HEIGHT * font];
}

function gainLine(n, gamma, fmt) {
  const digits = [4, 3, 2, 2, 2][fmt];
  const gain = num(n.gain, digits);
  const below = (n.pruned || n.leaf) && n.gain < gamma;  // why the node was cut
  if (fmt >= 3) return below ? `${gain} < γ` : "";
  return below ? `gain ${gain} < γ ${num(gamma, digits)}` : `gain ${gain}`;
}

function nameLines(name, width) {  // as viz.tree_layout.name_lines: at most two lines
  if (name.length <= width) return [name];
  let k = width;
  for (let i = width; i >= Math.floor(width / 2); i--) {
    if (" _-".includes(name[i - 1])) { k = i; break; }
  }
  return [name.slice(0, k).replace(/ +$/, ""), trunc(name.slice(k).replace(/^ +/, ""), width)];
}

function splitLine(n, fmt) {
  const [width, digits] = [[18, 4], [10, 3], [6, 2], [4, 2], [4, 0]][fmt];
  if (fmt === LAST_FORMAT) return trunc(n.name, width);  // the threshold is in the hover text
  if (fmt >= 2) return `${trunc(n.name, width)}<${num(n.split, digits)}`;
  return `${nameLines(n.name, width).join("<br>")} < ${num(n.split, digits)}`;
}

// A node's label in format fmt, as viz.tree_layout.node_text writes it.
export function nodeText(n, fmt, gamma, hidden = 0) {
  let lines;
  if (n.name !== "Leaf" && !n.leaf) {
    lines = [splitLine(n, fmt), gainLine(n, gamma, fmt)];
  } else {
    const v = n.value;
    lines = [[`w ${short(n.weight)}`, `η·w ${short(v)}`], [`η·w ${num(v, 3)}`], [num(v, 3)],
      [num(v, 2)], [num(v, 2)]][fmt];
    if (n.name !== "Leaf") {  // pruned to a leaf, or hist refused the split
      const refusedWord = n.yes < 0 && fmt === 0 ? " refused" : "";
      if (fmt < 2) lines.push(splitLine(n, fmt) + refusedWord);
      lines.push(gainLine(n, gamma, fmt));
    }
  }
  if (hidden) lines.push(fmt < 2 ? `+ ${hidden} hidden` : `+${hidden}`);
  return lines.filter((l) => l).join("<br>");
}

// The hover text and the click panel's lines, as viz/tree.py _hover writes them.
function hoverText(n, track) {
  const g6 = (x) => pyG(x, 6);
  const lines = [`<b>node ${n.id}</b> (depth ${n.depth})`,
    `G = ${g6(n.G)}, H (cover) = ${g6(n.H)}`,
    `similarity = G²/(H+λ) = ${g6(n.similarity)}`,
    `w = −G/(H+λ) = ${g6(n.weight)}, η·w = ${g6(n.value)}`];
  if (n.name !== "Leaf") {
    let missing = "";
    if (n.yes >= 0 && (!track.missing_features || track.missing_features.includes(n.name))) {
      missing = ` (missing → ${n.missing === n.yes ? "yes" : "no"})`;
    }
    lines.splice(1, 0, `split: ${n.name} < ${g6(n.split)}${missing}`);
    lines.push(`gain = ${g6(n.gain)}, gain − γ = ${g6(n.gain - track.gamma)}`);
  }
  const reason = track.reasons?.[n.reason] || "";
  if (n.pruned) lines.push("<b>removed by pruning</b>: an ancestor's gain < γ");
  else if (n.name !== "Leaf" && n.yes < 0) {
    lines.push("<b>split refused</b>: gain < γ, so hist never grew it");
  } else if (reason) lines.push(`leaf because: ${reason}`);
  return lines.join("<br>");
}

// -------------------------------------------------------------------------- the trace
function decode(spec) {  // {dtype, shape, b64[, first]} -> {data: typed array, shape, first}
  const bytes = Uint8Array.from(atob(spec.b64), (c) => c.charCodeAt(0));
  const Type = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int16: Int16Array,
    uint8: Uint8Array }[spec.dtype];
  if (!Type) throw new Error(`player: unknown dtype ${spec.dtype}`);
  // first: the round of row 0 (an array by round); "whole" arrays hold every round
  const first = spec.first ?? (spec.whole ? 0 : null);
  return { data: new Type(bytes.buffer), shape: spec.shape, first };
}

const isTyped = (v) => v && typeof v === "object" && typeof v.b64 === "string" && v.dtype;

function rowOf(array, i) {  // row i of an array by round: a scalar, a row, or rows of rows
  const { data, shape } = array;
  if (shape.length === 1) return data[i];
  const size = shape.slice(1).reduce((a, b) => a * b, 1);
  const row = data.subarray(i * size, (i + 1) * size);
  if (shape.length === 2) return row;
  const w = shape[shape.length - 1];
  return Array.from({ length: size / w }, (_, k) => row.subarray(k * w, (k + 1) * w));
}

function setPath(obj, path, value) {  // "data.2.y" -> obj.data[2].y = value
  const keys = path.split(".");
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    if (o[k] === undefined || o[k] === null) o[k] = {};
    o = o[k];
  }
  o[keys[keys.length - 1]] = value;
}

const TRACK_ARRAYS = ["node", "parent", "yes", "no", "missing", "depth", "slot", "kind",
  "feature", "split", "gain", "sum_grad", "sum_hess", "similarity", "weight", "value", "reason",
  "offsets", "slots"];

const decodedTraces = new WeakMap();  // by the trace's tree (or fit): a host showing one
// trace with other panels or another goto (the lesson file) decodes it once

function decodeTrace(trace) {
  const key = trace.tree || trace.fit || trace.loss;
  if (key && decodedTraces.has(key)) return decodedTraces.get(key);
  const decoded = decodeArrays(trace);
  if (key) decodedTraces.set(key, decoded);
  return decoded;
}

function decodeArrays(trace) {
  const charts = {};
  for (const name of ["fit", "loss"]) {
    const c = trace[name];
    if (!c) continue;
    const arrays = {};
    for (const [k, v] of Object.entries(c.arrays || {})) arrays[k] = isTyped(v) ? decode(v) : v;
    charts[name] = { spec: c, arrays };
  }
  let tree = null;
  if (trace.tree) {
    tree = { ...trace.tree, cache: new Map() };
    for (const k of TRACK_ARRAYS) if (isTyped(trace.tree[k])) tree[k] = decode(trace.tree[k]).data;
  }
  return { charts, tree };
}

// The nodes of round r (kind: 0 split, 1 leaf, 2 cut by γ, 3 refused, 4/5 ghosts).
function treeNodes(tree, r, lo) {
  if (tree.cache.has(r)) return tree.cache.get(r);
  const i = r - lo;
  const nodes = [];
  if (i >= 0 && i + 1 < tree.offsets.length) {
    for (let j = tree.offsets[i]; j < tree.offsets[i + 1]; j++) {
      const kind = tree.kind[j];
      const f = tree.feature[j];
      nodes.push({
        id: tree.node[j], parent: tree.parent[j], yes: tree.yes[j], no: tree.no[j],
        missing: tree.missing[j], depth: tree.depth[j], slot: tree.slot[j], kind,
        name: f >= 0 ? tree.features[f] : "Leaf", split: tree.split[j], gain: tree.gain[j],
        G: tree.sum_grad[j], H: tree.sum_hess[j], similarity: tree.similarity[j],
        weight: tree.weight[j], value: tree.value[j], reason: tree.reason[j],
        leaf: kind === 1 || kind === 2 || kind === 3 || kind === 5, pruned: kind >= 4,
      });
    }
  }
  tree.cache.set(r, nodes);
  return nodes;
}

// ------------------------------------------------------------- the tree's layout (port)
// viz/tree_layout.plan_tree: x in leaf slots, y in px below the plot's top (negative).

function visible(nodes, collapsed) {  // (drawn nodes, {collapsed id: nodes it hides})
  const parent = new Map(nodes.map((n) => [n.id, n.parent]));
  const hidden = new Map();
  const keep = nodes.filter((n) => {
    let up = n.parent;
    let top = null;
    while (up >= 0) {
      if (collapsed.has(up)) top = up;
      up = parent.has(up) ? parent.get(up) : -1;
    }
    if (top !== null) hidden.set(top, (hidden.get(top) || 0) + 1);
    return top === null;
  });
  return [keep, hidden];
}

function slotsOf(nodes) {  // leaves in order left to right, a split centred over its children
  const kids = new Map(nodes.map((n) => [n.id, []]));
  for (const n of nodes) if (kids.has(n.parent)) kids.get(n.parent).push(n.id);
  const x = new Map();
  let next = 0;
  const place = (id) => {
    const children = kids.get(id).sort((a, b) => a - b);
    const v = children.length ? children.map(place).reduce((a, b) => a + b) / children.length
      : next++;
    x.set(id, v);
    return v;
  };
  if (kids.has(0)) place(0);
  return x;
}

function fits(px, widths, rows, lo, hi) {
  for (let i = 0; i < px.length; i++) {
    if (px[i] - widths[i] / 2 < lo || px[i] + widths[i] / 2 > hi) return false;
  }
  for (let i = 0; i + rows < px.length; i++) {
    const j = i + rows;
    if (px[j] - px[i] < (widths[i] + widths[j]) / 2 + GAP) return false;
  }
  return true;
}

function chooseFormat(px, texts, font, lo, hi) {  // [format, rows, labels] of one band
  for (const [fmt, rows] of ORDER) {
    const labels = texts(fmt);
    if (fits(px, labels.map((t) => textSize(t, font)[0]), rows, lo, hi)) return [fmt, rows, labels];
  }
  const labels = texts(LAST_FORMAT);
  const widths = labels.map((t) => textSize(t, font)[0]);
  let rows = ORDER[ORDER.length - 1][1] + 1;
  while (rows < px.length && !fits(px, widths, rows, lo, hi)) rows++;
  return [LAST_FORMAT, rows, labels];
}

function xScale(nSlots, plotW, pad) {  // [px per slot, x of the plot's left edge]
  if (nSlots <= 1) return [plotW / 2, -1];
  const s = (plotW - 2 * pad) / (nSlots - 1);
  return [s, -pad / s];
}

function bands(nodes, x, hidden, gamma, font, s, xLo, lo, hi) {
  const out = new Map();
  const depths = [...new Set(nodes.map((n) => n.depth))].sort((a, b) => a - b);
  for (const depth of depths) {
    const band = nodes.filter((n) => n.depth === depth).sort((a, b) => x.get(a.id) - x.get(b.id));
    const px = band.map((n) => (x.get(n.id) - xLo) * s);
    const texts = (fmt) => band.map((n) => nodeText(n, fmt, gamma, hidden.get(n.id) || 0));
    const [fmt, rows, labels] = chooseFormat(px, texts, font, lo, hi);
    out.set(depth, { band, fmt, rows, labels });
  }
  return out;
}

function edgeText(parent, child, fmt, missingFeatures) {
  const side = parent.yes === child ? "yes" : "no";
  const missing = parent.missing === child
    && (!missingFeatures || missingFeatures.includes(parent.name));
  if (fmt === 0) return side + (missing ? " + missing" : "");
  return missing ? "missing" : "";
}

function planTree(all, collapsed, opts) {
  const { gamma, width, font, marker: maxMarker, margin, missingFeatures } = opts;
  const [nodes, hidden] = visible(all, collapsed);
  const x = collapsed.size ? slotsOf(nodes) : new Map(nodes.map((n) => [n.id, n.slot]));
  const plotW = width - margin.l - margin.r;
  const nSlots = Math.round(Math.max(...x.values())) + 1;
  let pad = 2 * font;
  let [s, xLo] = xScale(nSlots, plotW, pad);
  const last = nSlots - 1;
  for (const { band, labels } of bands(nodes, x, hidden, gamma, font, s, xLo, -Infinity,
    Infinity).values()) {  // room outside the outer leaves for their labels
    band.forEach((n, k) => {
      const reach = Math.min(x.get(n.id), last - x.get(n.id)) * s;
      pad = Math.max(pad, textSize(labels[k], font)[0] / 2 - reach + 2);
    });
  }
  [s, xLo] = xScale(nSlots, plotW, Math.min(pad, plotW / 4));
  const placed = bands(nodes, x, hidden, gamma, font, s, xLo, 0, plotW);
  const plan = { nodes, hidden, x, y: new Map(), label: new Map(), leaveY: new Map(),
    edgeLabels: [], xRange: [xLo, xLo + plotW / s], slotPx: s,
    marker: Math.min(Math.max(s - 2, 8), maxMarker), fonts: new Map() };
  const r = plan.marker / 2;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const kids = new Map();
  for (const n of nodes) if (byId.has(n.parent)) kids.set(n.parent, [...(kids.get(n.parent) || []), n.id]);
  let top = 4;
  for (const { band, fmt, rows, labels } of placed.values()) {
    band.forEach((n) => plan.fonts.set(n.id, fmt));
    const bottom = placeBand(plan, band, rows, labels, top, r, font);
    let gap = band.some((n) => n.kind === 3) ? 34 : 0;
    if (band.some((n) => kids.has(n.id))) {
      gap = placeEdgeLabels(plan, byId, kids, band, bottom, font, plotW, missingFeatures);
    }
    top = bottom + gap;
  }
  plan.height = Math.ceil(top + 4 + margin.t + margin.b);
  return plan;
}

function placeBand(plan, band, rows, labels, top, r, font) {
  const rowH = Math.max(...labels.map((t) => textSize(t, font)[1])) + 2;
  const labelTop = top + 2 * r + 6;  // room for the selection ring around the marker
  band.forEach((n, i) => {
    plan.y.set(n.id, -(top + r));
    const upper = labelTop + (i % rows) * rowH;
    const h = textSize(labels[i], font)[1];
    plan.label.set(n.id, [plan.x.get(n.id), -(upper + h / 2), labels[i]]);
    plan.leaveY.set(n.id, -(upper + h + 2));
  });
  return labelTop + rows * rowH + 2;
}

function placeEdgeLabels(plan, byId, kids, band, bottom, font, plotW, missingFeatures) {
  const tall = LINE_HEIGHT * font + 18;
  const mid = bottom + tall / 2;
  const childTop = bottom + tall;
  const edges = [];
  for (const n of band) {
    const x0 = plan.x.get(n.id);
    const y0 = -plan.leaveY.get(n.id);
    for (const c of kids.get(n.id) || []) {
      const t = (mid - y0) / (childTop - y0);
      edges.push([n, c, x0 + (plan.x.get(c) - x0) * t]);
    }
  }
  for (const fmt of [0, 1]) {
    const placed = edges.map(([p, c, x]) => [x, edgeText(p, c, fmt, missingFeatures)])
      .filter(([, t]) => t).sort((a, b) => a[0] - b[0]);
    const px = placed.map(([x]) => (x - plan.xRange[0]) * plan.slotPx);
    if (fits(px, placed.map(([, t]) => textSize(t, font)[0]), 1, 0, plotW)) {
      plan.edgeLabels.push(...placed.map(([x, t]) => [x, -mid, t]));
      return tall;
    }
  }
  return 34;
}

// ------------------------------------------------------------- the tree, drawn as SVG
// The tree is new at every round: it is written as one SVG (a few hundred elements, a
// millisecond or two), not handed to Plotly, whose layout pass costs 30-40 ms a round. It
// draws what viz/tree.py draws, in the colours the trace brings (track.style, viz.tree's).

const esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const f1 = (v) => (Math.round(v * 10) / 10).toString();

// Where plan coordinates (x in leaf slots, y in px below the plot's top, negative) are drawn
function geometry(plan, margin) {
  return { l: margin.l, t: margin.t, x0: plan.xRange[0], s: plan.slotPx };
}
const gx = (g, x) => g.l + (x - g.x0) * g.s;
const gy = (g, y) => g.t - y;

function shape(kind, cx, cy, size, attrs) {  // a marker: "square" or "circle", centred
  const r = size / 2;
  return kind === "square"
    ? `<rect x="${f1(cx - r)}" y="${f1(cy - r)}" width="${f1(size)}" height="${f1(size)}" ${attrs}/>`
    : `<circle cx="${f1(cx)}" cy="${f1(cy)}" r="${f1(r)}" ${attrs}/>`;
}

function cross(cx, cy, r, color, width) {  // "+": a folded node
  return `<path d="M${f1(cx - r)} ${f1(cy)}H${f1(cx + r)}M${f1(cx)} ${f1(cy - r)}V${f1(cy + r)}" `
    + `stroke="${color}" stroke-width="${width}" fill="none"/>`;
}

function xMark(cx, cy, r, color) {  // "×": a split γ refused
  return `<path d="M${f1(cx - r)} ${f1(cy - r)}L${f1(cx + r)} ${f1(cy + r)}M${f1(cx - r)} `
    + `${f1(cy + r)}L${f1(cx + r)} ${f1(cy - r)}" stroke="${color}" stroke-width="2" fill="none"/>`;
}

function textLines(text, cx, cy, font, attrs) {  // "<br>"-separated lines centred on (cx, cy)
  const lines = text.split("<br>");
  const lh = LINE_HEIGHT * font;
  const first = cy - ((lines.length - 1) * lh) / 2;
  const spans = lines.map((line, i) => `<tspan x="${f1(cx)}" y="${f1(first + i * lh)}">`
    + `${esc(line)}</tspan>`).join("");
  return `<text ${attrs} font-size="${font}" text-anchor="middle" dominant-baseline="central" `
    + `paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round">${spans}</text>`;
}

// The marker groups of viz/tree.py, in its legend's order: [name, test, fill, kind(n)]
function markerGroups(plan, style) {
  const folded = (n) => plan.hidden.has(n.id);
  const box = (n) => (n.name !== "Leaf" ? "square" : "circle");
  return [
    ["split", (n) => n.name !== "Leaf" && !n.leaf && !n.pruned && !folded(n),
      () => style.split, () => "square"],
    ["collapsed (+ hidden)", (n) => folded(n) && !n.pruned,  // pruned to a leaf: ghosts below
      (n) => (n.leaf ? style.leaf : style.split), (n) => (n.leaf ? "circle" : "square")],
    ["leaf", (n) => n.leaf && !n.pruned && !folded(n), () => style.leaf, () => "circle"],
    ["pruned (ghost)", (n) => n.pruned, () => style.pruned, box],
  ];
}

// The whole tree panel as SVG markup: title, legend, edges, markers, labels, selection.
function treeSvg(plan, track, selected, fonts, size, margin, title) {
  const style = track.style;
  const out = [];
  const { width, height } = size;
  out.push(`<text class="bsp-title" x="${margin.l}" y="8" font-size="${fonts.title}" `
    + `dominant-baseline="hanging" fill="${style.text}">${esc(title)}</text>`);
  if (!plan) return wrapSvg(out, width, height);
  const g = geometry(plan, margin);
  const r = plan.marker / 2;
  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const legend = [];  // [name, (cx, cy, size) => its symbol's markup]
  // edges: kept and pruned (dotted)
  const edge = [];
  const ghost = [];
  for (const n of plan.nodes) {
    if (!byId.has(n.parent)) continue;
    const d = `M${f1(gx(g, plan.x.get(n.parent)))} ${f1(gy(g, plan.leaveY.get(n.parent)))}`
      + `L${f1(gx(g, plan.x.get(n.id)))} ${f1(gy(g, plan.y.get(n.id) + r))}`;
    (n.pruned ? ghost : edge).push(d);
  }
  if (edge.length) out.push(`<path d="${edge.join("")}" stroke="${style.edge}" stroke-width="2" fill="none"/>`);
  if (ghost.length) {
    out.push(`<path d="${ghost.join("")}" stroke="${style.ghost}" stroke-width="1.5" `
      + `stroke-dasharray="2 3" fill="none"/>`);
  }
  // hist/approx: a split γ refused before growing it, as two dotted stubs with a cross
  const refused = plan.nodes.filter((n) => n.kind === 3);
  if (refused.length) {
    const dx = Math.min(0.3, 18 / plan.slotPx);
    const tip = fonts.label * 0.3;
    for (const n of refused) {
      const x0 = gx(g, plan.x.get(n.id));
      const y0 = gy(g, plan.leaveY.get(n.id));
      for (const side of [-dx, dx]) {
        const x1 = x0 + side * plan.slotPx;
        out.push(`<path d="M${f1(x0)} ${f1(y0)}L${f1(x1)} ${f1(y0 + 22)}" stroke="${style.ghost}" `
          + `stroke-width="1.5" stroke-dasharray="2 3" fill="none"/>`, xMark(x1, y0 + 22, tip, style.ghost));
      }
    }
    legend.push(["refused by γ", (cx, cy) => xMark(cx, cy, tip, style.ghost)]);
  }
  // markers, one group per node (data-node: the node's id, for tests and the hover)
  for (const [name, test, fill, kind] of markerGroups(plan, style)) {
    const part = plan.nodes.filter(test);
    if (!part.length) continue;
    for (const n of part) {
      const cx = gx(g, plan.x.get(n.id));
      const cy = gy(g, plan.y.get(n.id));
      let m = shape(kind(n), cx, cy, plan.marker, `fill="${fill(n)}" stroke="#fff" stroke-width="1.5"`);
      if (name.startsWith("collapsed")) m += cross(cx, cy, r * 0.55, "#fff", 2);
      if (n.pruned) {
        m += shape(kind(n), cx, cy, plan.marker + 2, `fill="none" stroke="${style.ghost_text}" `
          + `stroke-width="1.5" stroke-dasharray="4 3"`);
      }
      out.push(`<g class="bsp-node" data-node="${n.id}">${m}</g>`);
    }
    const sample = part[0];
    legend.push([name, (cx, cy, s) => shape(kind(sample), cx, cy, s,
      `fill="${fill(sample)}" stroke="${sample.pruned ? style.ghost_text : "#fff"}" stroke-width="1.5"`
      + (sample.pruned ? ' stroke-dasharray="4 3"' : ""))
      + (name.startsWith("collapsed") ? cross(cx, cy, s * 0.28, "#fff", 2) : "")]);
  }
  // labels: the edges' (yes / no / missing), then the nodes'
  for (const [x, y, text] of plan.edgeLabels) {
    out.push(textLines(text, gx(g, x), gy(g, y), fonts.label, `class="bsp-edge" fill="${style.edge_text}"`));
  }
  for (const [id, [x, y, text]] of plan.label) {
    out.push(textLines(text, gx(g, x), gy(g, y), fonts.label, `class="bsp-label" data-node="${id}" `
      + `fill="${byId.get(id).pruned ? style.ghost_text : style.text}"`));
  }
  if (selected !== null && plan.y.has(selected)) {
    out.push(`<circle class="bsp-selected" cx="${f1(gx(g, plan.x.get(selected)))}" `
      + `cy="${f1(gy(g, plan.y.get(selected)))}" r="${f1(r + 4)}" fill="none" `
      + `stroke="${style.current}" stroke-width="2.5"/>`);
  }
  // the legend, one row under the title (as Plotly's horizontal legend was)
  const lf = fonts.label + 2;
  const ly = margin.t - lf * 0.8 - 4;
  let lx = margin.l;
  for (const [name, symbol] of legend) {
    out.push(`<g class="bsp-legend">${symbol(lx + lf * 0.5, ly, lf * 0.8)}<text x="${f1(lx + lf * 1.3)}" `
      + `y="${f1(ly)}" font-size="${lf}" dominant-baseline="central" fill="${style.text}">`
      + `${esc(name)}</text></g>`);
    lx += lf * 1.3 + name.length * CHAR_WIDTH * lf + lf * 1.2;
  }
  return wrapSvg(out, width, height);
}

function wrapSvg(parts, width, height) {
  return `<svg class="bsp-tree-svg" xmlns="http://www.w3.org/2000/svg" width="${width}" `
    + `height="${height}" viewBox="0 0 ${width} ${height}" `
    + `font-family="Source Sans Pro, Arial, sans-serif">${parts.join("")}</svg>`;
}

// ------------------------------------------------------------------------- the player
const STYLE = `
.bsp { font-family: "Source Sans Pro", Arial, sans-serif; color: #111; box-sizing: border-box;
  display: flex; flex-direction: column; gap: 4px; width: 100%; outline: none; }
.bsp * { box-sizing: border-box; }
.bsp-status { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
  line-height: 1.25; }
.bsp-bar { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.bsp-bar button { font: inherit; line-height: 1.25; padding: 2px 10px; display: inline-flex; align-items: center;
  gap: 0.35em; border: 1px solid #BDBDBD; border-radius: 6px;
  background: #fff; color: #111; cursor: pointer; white-space: nowrap; }
.bsp-bar button:hover { border-color: #D55E00; }
.bsp-bar button.bsp-play { min-width: 6.2em; font-weight: 600; }
.bsp-bar input[type=range] { flex: 1 1 12em; min-width: 80px; accent-color: #D55E00; }
.bsp-bar select { font: inherit; line-height: 1.25; padding: 1px 4px; border: 1px solid #BDBDBD; border-radius: 6px;
  background: #fff; }
.bsp-bar label { white-space: nowrap; }
.bsp-panels { position: relative; display: grid; gap: 8px; }
.bsp-loading .bsp-panels { opacity: 0.45; transition: opacity 0.2s; }
/* a wide filled screen (a projector at 1080p and up): the status and the transport share
   one row, so the panels get its height */
.bsp.bsp-onerow { display: grid; grid-template-columns: auto 1fr; align-items: center;
  column-gap: 1em; }
.bsp-onerow .bsp-panels { grid-column: 1 / -1; }
/* strict: a panel's size comes from the grid, never from what it holds, so a change inside
   (the node's numbers, the hover box, a redrawn tree) lays out the panel alone, not the page */
.bsp-panel { position: relative; min-width: 0; min-height: 0; overflow: hidden; contain: strict; }
.bsp-info { position: absolute; right: 6px; top: 6px; max-width: min(36em, 92%);
  background: rgba(255,255,255,0.96); border: 1px solid #D55E00; border-radius: 6px;
  padding: 6px 28px 6px 10px; line-height: 1.35; box-shadow: 0 2px 6px rgba(0,0,0,0.15); }
.bsp-hover { position: absolute; pointer-events: none; max-width: min(32em, 90%);
  background: rgba(255,255,255,0.97); border: 1px solid #888; border-radius: 4px;
  padding: 4px 8px; line-height: 1.3; box-shadow: 0 1px 4px rgba(0,0,0,0.15); z-index: 2; }
.bsp-tree .bsp-plot { cursor: default; }
.bsp-info button { position: absolute; right: 4px; top: 2px; border: none; background: none;
  font-size: 1.2em; cursor: pointer; color: #444; }
`;

// Icons drawn, not typed: the media symbols (⏮ ⏸) are missing from many fonts.
const ICON = {
  first: '<rect x="2" y="3" width="2.2" height="10"/><path d="M14 3v10L5 8z"/>',
  back: '<path d="M12 3v10L4 8z"/>',
  play: '<path d="M4 2.5v11L13.5 8z"/>',
  pause: '<rect x="3.5" y="3" width="3" height="10"/><rect x="9.5" y="3" width="3" height="10"/>',
  step: '<path d="M4 3v10l8-5z"/>',
  last: '<path d="M2 3v10l9-5z"/><rect x="11.8" y="3" width="2.2" height="10"/>',
};
const icon = (name) => `<svg viewBox="0 0 16 16" width="0.9em" height="0.9em" `
  + `fill="currentColor" aria-hidden="true">${ICON[name]}</svg>`;

const REPORT_AFTER = 300;  // ms at rest before the host hears of the round

const registry = () => {
  window.boostscopePlayer ??= { timings: [], drawn: [], players: [], parsed: 0 };
  return window.boostscopePlayer;
};

function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  // the same promise as ui/chart.js: Plotly.js is loaded once per page
  window.BoostScopePlotlyLoaded ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.onload = () => resolve(window.Plotly);
    script.onerror = () => reject(new Error(`could not load Plotly.js from ${url}`));
    document.head.appendChild(script);
  });
  return window.BoostScopePlotlyLoaded;
}

function el(tag, attrs = {}, parent = null) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}

let active = null;  // the player the keys drive (the last one mounted or touched)

class Player {
  constructor(element) {
    this.element = element;
    this.root = el("div", { class: "bsp", "data-testid": "boostscope-player" }, element);
    if (!document.getElementById("bsp-style")) {
      el("style", { id: "bsp-style", text: STYLE }, document.head);
    }
    this.status = el("div", { class: "bsp-status", "aria-live": "polite" }, this.root);
    this.buildBar();
    this.panelsBox = el("div", { class: "bsp-panels" }, this.root);
    this.r = 0;
    this.selected = null;
    this.playing = false;
    this.pending = [];  // gestures waiting for the draw that shows them
    this.drawing = false;
    this.dirty = false;
    this.reported = null;
    this.gotoToken = undefined;
    this.report = () => {};
    this.root.addEventListener("pointerdown", () => { active = this; }, true);
    window.addEventListener("keydown", (e) => this.onKey(e), true);
    window.addEventListener("keyup", (e) => {  // a focused button must not click on Space
      if (active === this && e.key === " " && !textEntry(e.target)) e.preventDefault();
    }, true);
    new ResizeObserver(() => this.relayoutSoon()).observe(this.root);
    window.addEventListener("resize", () => this.relayoutSoon());
    registry().players.push(this);
    active = this;
  }

  buildBar() {
    const bar = el("div", { class: "bsp-bar" }, this.root);
    const button = (act, text, title, after = false) => {
      const b = el("button", { type: "button", "data-act": act, title, "aria-label": text }, bar);
      b.innerHTML = after ? `${text} ${icon(act)}` : `${icon(act)} ${text}`;
      b.addEventListener("mousedown", (e) => e.preventDefault());  // keep focus where it was
      b.addEventListener("click", (e) => this.act(act, e));
      return b;
    };
    button("first", "First", "First round (Home)");
    button("back", "Back", "Back one round (←)");
    this.playButton = button("play", "Play", "Play or pause (Space)");
    this.playButton.classList.add("bsp-play");
    button("step", "Step", "Step one round (→)", true);
    button("last", "Last", "Last round (End)", true);
    this.slider = el("input", { type: "range", min: 0, max: 0, step: 1, value: 0,
      "aria-label": "round" }, bar);
    this.slider.addEventListener("input", (e) => this.go(Number(this.slider.value), e, "scrub"));
    const label = el("label", {}, bar);
    this.speedSelect = el("select", { "aria-label": "Play speed" }, label);
    this.speedSelect.addEventListener("change", () => {
      this.speed = Number(this.speedSelect.value);
    });
  }

  // ------------------------------------------------------------------ trace and goto
  load(trace, plotlyUrl) {
    if (typeof trace === "string") trace = JSON.parse(trace);
    this.plotlyReady = loadPlotly(plotlyUrl);
    const fresh = trace.id !== this.trace?.id;
    if (fresh) this.setTrace(trace);
    else {
      this.trace.goto = trace.goto;
      this.layout();  // the player may have moved on the page (a lesson's text above it)
    }
    this.watchPage();
    const goto = trace.goto;
    if (goto && goto.token !== this.gotoToken) {  // obeyed once per token
      this.gotoToken = goto.token;
      this.selected = goto.node ?? null;
      this.reported = this.clamp(goto.round);
      this.stop(false);
      this.go(goto.round, null, "goto");
    } else if (fresh) {
      this.go(this.r, null, "trace");
    }
    // else: the same trace and token (a rerun of the host, e.g. after a node click): what
    // is drawn is already right, and a redraw would cost all three charts for nothing
  }

  // The panels fill the window below the player's top: when what is above it grows or
  // shrinks (a lesson's revealed answer, a note), the player moves without changing size.
  watchPage() {
    const page = this.root.closest('[data-testid="stMainBlockContainer"], .block-container');
    if (!page || page === this.watched) return;
    this.watched = page;
    new ResizeObserver(() => this.relayoutSoon()).observe(page);
  }

  setTrace(trace) {
    this.trace = trace;
    const { charts, tree } = decodeTrace(trace);
    this.tree = tree;
    // the rounds drawn from this trace [lo, hi] (a window, for a model beyond the budget) and
    // the rounds the transport reaches [first, last]: all of them where the host sends the
    // window around any round asked for (fetches), else the window's
    [this.lo, this.hi] = trace.window || [0, trace.rounds];
    [this.first, this.last] = this.fetches ? [0, trace.rounds] : [this.lo, this.hi];
    this.fetching = null;
    this.root.classList.remove("bsp-loading");
    this.slider.min = this.first;
    this.slider.max = this.last;
    const speeds = (trace.speeds || [1, 2, 5, 10, 20, 30]).filter((s) => s > 0 && s <= 30);
    this.speed = speeds.includes(trace.speed) ? trace.speed : speeds[Math.min(2, speeds.length - 1)];
    this.speedSelect.replaceChildren(...speeds.map((s) => el("option", { value: s,
      text: `${s} round${s === 1 ? "" : "s"}/s` })));
    this.speedSelect.value = String(this.speed);
    // one panel (and one figure object) per chart, in the trace's order
    this.panelsBox.replaceChildren();
    this.panels = [];
    for (const name of trace.panels || ["fit", "loss", "tree"]) {
      if (name === "tree" ? !tree : !charts[name]) continue;
      const box = el("div", { class: `bsp-panel bsp-${name}` }, this.panelsBox);
      const plot = el("div", { class: "bsp-plot" }, box);
      const panel = { name, box, plot, chart: charts[name] || null, ready: false };
      if (name !== "tree") {
        panel.figure = structuredClone(charts[name].spec.figure);
        panel.baseFonts = captureFonts(panel.figure.layout);
      } else {
        panel.info = el("div", { class: "bsp-info", hidden: "" }, box);
        panel.hover = el("div", { class: "bsp-hover", hidden: "" }, box);
        // a node is selected as the button goes down (its numbers at once, the host told
        // a click's length sooner); the box's close button is an ordinary click
        box.addEventListener("pointerdown", (e) => this.onTreePress(panel, e));
        box.addEventListener("click", (e) => this.onInfoClick(e));
        plot.addEventListener("pointermove", (e) => this.onTreeHover(panel, e));
        plot.addEventListener("pointerleave", () => { panel.hover.hidden = true; });
      }
      this.panels.push(panel);
    }
    this.layoutKey = null;  // new panels have no size yet, whatever the window's size
    this.layout();
  }

  clamp(r) {
    return Math.max(this.first, Math.min(this.last, Math.round(Number(r) || 0)));
  }

  // ----------------------------------------------------------------------- gestures
  act(what, event) {
    active = this;
    if (what === "play") return this.playing ? this.stop(true) : this.play(event);
    this.stop(false);
    const to = { first: this.first, last: this.last, back: this.r - 1, step: this.r + 1 }[what];
    return this.go(to, event, what);
  }

  onKey(e) {
    if (this.keys === false) return;  // a lesson keeps the arrows for its own steps
    if (active !== this || e.ctrlKey || e.altKey || e.metaKey || textEntry(e.target)) return;
    const what = { ArrowLeft: "back", ArrowRight: "step", " ": "play", Home: "first",
      End: "last" }[e.key];
    if (!what) return;
    // the offline lesson file: ← → are its steps', Space, Home and End still drive rounds
    if (this.arrows === false && (what === "back" || what === "step")) return;
    e.preventDefault();
    e.stopPropagation();
    this.act(what, e);
  }

  go(round, event, why) {  // show round (drawn on the next frame); report it at rest
    const r = this.clamp(round);
    if (event) this.pending.push({ gesture: why, key: event.key ?? null, round: r,
      start: event.timeStamp || performance.now() });
    this.r = r;
    this.slider.value = r;
    this.status.textContent = this.statusOf(r);
    if (r < this.lo || r > this.hi) { this.fetch(r); return; }
    this.requestDraw();
    if (why !== "goto" && why !== "trace" && why !== "tick") this.reportSoon();
  }

  // A round outside the trace's window: the host is told at once and sends the window
  // around it (a new trace); until then the panels show the last round drawn, dimmed.
  fetch(r) {
    this.fetching = r;
    this.root.classList.add("bsp-loading");
    this.status.textContent = `${this.statusOf(r)} (loading its rounds…)`;
    clearTimeout(this.reportTimer);
    if (this.reported !== r) {
      this.reported = r;
      this.report("round", { round: r });
    }
  }

  statusOf(r) {
    const s = this.trace.status || [];
    const i = s.length === this.hi - this.lo + 1 ? r - this.lo : r;
    return s[i] ?? `Round ${r} of ${this.trace.rounds}`;
  }

  reportSoon() {  // ~300 ms after the last gesture, never while playing
    clearTimeout(this.reportTimer);
    this.reportTimer = setTimeout(() => {
      if (this.playing || this.r === this.reported) return;
      this.reported = this.r;
      this.report("round", { round: this.r });
    }, REPORT_AFTER);
  }

  // ---------------------------------------------------------------------------- Play
  play(event) {
    if (this.r >= this.last) this.go(this.first, null, "tick");  // Play at the end starts over
    this.playing = true;
    this.playButton.innerHTML = `${icon("pause")} Pause`;
    clearTimeout(this.reportTimer);
    const interval = () => 1000 / this.speed;
    let last = event?.timeStamp || performance.now();
    // the next round once its time has come and the last one is on screen: slower when the
    // draw is, never a round skipped. Called in an animation frame (the loop below, and the
    // frame that shows the last round), it draws in that frame: no frame lost between rounds.
    this.advance = (now) => {
      if (!this.playing || now - last < interval() - 4 || this.drawing || this.dirty
        || this.fetching !== null) return;  // (a window of rounds on its way: wait for it)
      last = now - last >= 2 * interval() ? now : last + interval();  // behind: no catch-up
      if (this.r >= this.last) { this.stop(true); return; }
      this.inFrame = true;
      try { this.go(this.r + 1, { timeStamp: now }, "tick"); } finally { this.inFrame = false; }
    };
    const tick = (now) => {
      if (!this.playing) return;
      this.advance(now);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  stop(atRest) {  // atRest: Play was running and the round it stopped at is reported
    if (!this.playing) return;
    this.playing = false;
    this.playButton.innerHTML = `${icon("play")} Play`;
    if (atRest) this.reportSoon();
  }

  // ---------------------------------------------------------------------------- draw
  requestDraw() {  // at most one draw at a time; gestures meanwhile merge into the next
    if (this.drawing) { this.dirty = true; return; }
    this.drawing = true;
    this.dirty = false;
    if (this.inFrame) this.draw();  // Play's tick, already in an animation frame
    else requestAnimationFrame(() => this.draw());
  }

  async draw() {
    const r = this.r;
    const gestures = this.pending.splice(0);
    const drawMs = {};
    try {
      const Plotly = await this.plotlyReady;
      if (displayed(this.root)) {
        // Plotly draws synchronously and resolves later: the time in the call is the draw's
        await Promise.all(this.panels.map((p) => {
          const t0 = performance.now();
          const done = this.drawPanel(Plotly, p, r);
          drawMs[p.name] = performance.now() - t0;
          return done;
        }));
      } else {
        this.layoutKey = null;  // drawn when shown again (relayoutSoon)
      }
    } catch (error) {
      console.error(error);
    }
    requestAnimationFrame(() => {  // the frame after the draw: what the eye sees
      const now = performance.now();
      const reg = registry();
      reg.drawMs = drawMs;
      for (const g of gestures) reg.timings.push({ ...g, ms: now - g.start, drawMs });
      reg.drawn.push(r);
      this.drawing = false;
      if (this.dirty) this.requestDraw();
      else this.advance?.(now);  // playing: the next round in this very frame
    });
  }

  drawPanel(Plotly, panel, r) {
    if (panel.name === "tree") return this.drawTree(panel, r);
    const changed = this.patchFigure(panel, r);
    if (panel.frozen === this.layoutKey) {
      if (!changed.length) return Promise.resolve();
      // points moved, texts rewritten in Plotly's own SVG when that is all the round changes
      const moved = moveInPlace(Plotly, panel, changed);
      if (moved) return moved;
      return react(Plotly, panel);
    }
    // the first draw at this size: Plotly lays the chart out, then its axes and margins are
    // fixed for the rounds to come (no autorange or automargin pass at each round)
    return react(Plotly, panel).then(() => freeze(Plotly, panel, this.rangeOf(panel), this.layoutKey));
  }

  drawTree(panel, r) {
    // the tree changes with the round, the selection and the size only (not at a rerun)
    const key = `${r}|${this.selected}|${this.layoutKey}`;
    if (panel.drawnKey === key) return Promise.resolve();
    panel.drawnKey = key;
    this.treeFigure(panel, r);
    return Promise.resolve();
  }

  patchFigure(panel, r) {  // the chart's one figure, at round r; what changed
    const { spec, arrays } = panel.chart;
    const fig = panel.figure;
    const n = this.trace.rounds;
    const changed = [];  // [path, value] of what this round changes
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
        const row = r - (a.first ?? this.lo) + (p.offset || 0);
        if (row < 0 || row >= a.shape[0]) continue;  // e.g. "round r - 1" at round 0 (hidden)
        value = rowOf(a, row);
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
  // change from one round to the next). {axis name: [min, max]} of the patched x and y.
  rangeOf(panel) {
    const { spec, arrays } = panel.chart;
    const full = panel.plot._fullData || [];
    const out = {};
    for (const p of spec.patches || []) {
      const m = /^data\.(\d+)\.([xy])$/.exec(p.path);
      const trace = m && full.find((t) => t.index === Number(m[1]));
      if (!trace) continue;
      const axis = `${m[2]}axis${(trace[`${m[2]}axis`] || m[2]).slice(1)}`;
      let lo = Infinity;
      let hi = -Infinity;
      // a round's marker: the axis of rounds spans them all, exactly (as the loss curves do)
      if (p.round) [lo, hi] = [(p.offset || 0), this.trace.rounds + (p.offset || 0)];
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

  treeFigure(panel, r) {
    const track = this.tree;
    const { width, height } = panel.size;
    const nodes = treeNodes(track, r, this.lo);
    const f = this.fonts;
    const margin = { l: 12, r: 12, t: Math.round(f.title * 1.3 + f.label * 1.6 + 14), b: 8 };
    const title = r === 0 ? "Round 0: the baseline (no tree yet)" : `Tree of round ${r}`;
    let plan = null;
    if (nodes.length) {
      const opts = { gamma: track.gamma, width, font: f.label, marker: f.marker, margin,
        missingFeatures: track.missing_features ?? null };
      plan = this.foldToFit(nodes, opts, this.fill ? height : Infinity);
    }
    panel.plan = plan;
    panel.geom = plan && geometry(plan, margin);
    panel.labelFont = f.label;
    const h = this.fill || !plan ? height : Math.max(plan.height, 260);
    if (!this.fill) panel.box.style.height = `${h}px`;
    panel.plot.innerHTML = treeSvg(plan, track, this.selected, f, { width, height: h }, margin, title);
    panel.hover.hidden = true;
    this.showInfo(panel, r);
  }

  // As viz/tree.tree_figure_within: fold the deepest levels ("+ N hidden") until it fits.
  foldToFit(nodes, opts, height) {
    const collapsed = new Set();
    let level = Math.max(...nodes.map((n) => n.depth)) - 1;
    for (;;) {
      const plan = planTree(nodes, collapsed, opts);
      if (plan.height <= height || level < 0) return plan;
      for (const n of nodes) if (n.depth === level && !n.leaf) collapsed.add(n.id);
      level--;
    }
  }

  // ------------------------------------------------------------------- node clicks
  onTreePress(panel, e) {
    if (e.button !== 0 || e.target.closest(".bsp-info")) return;
    const id = this.nodeAt(panel, e);
    if (id === null) return;
    const again = id === this.selected && this.r === this.selectedAt;  // nothing new to ask
    this.selected = id;
    this.selectedAt = this.r;
    if (!again) this.report("node", { round: this.r, node: id });  // first: the server's part
    this.showInfo(panel, this.r);  // at once, from the trace
    this.requestDraw();
  }

  onInfoClick(e) {  // the node's box: its close button deselects
    if (e.target.closest(".bsp-info button")) { this.selected = null; this.requestDraw(); }
  }

  nodeAt(panel, e) {  // the node whose marker is under the pointer (within a few px)
    const { plan, geom } = panel;
    if (!plan || !geom) return null;
    const rect = panel.plot.getBoundingClientRect();  // once: this runs at every pointer move
    const [px, py] = [e.clientX - rect.left, e.clientY - rect.top];
    let best = null;
    let bestD = (plan.marker / 2 + 6) ** 2;
    for (const [id, y] of plan.y) {
      const d = (gx(geom, plan.x.get(id)) - px) ** 2 + (gy(geom, y) - py) ** 2;
      if (d <= bestD) { bestD = d; best = id; }
    }
    return best;
  }

  onTreeHover(panel, e) {  // a node's numbers beside it while the pointer is on it
    const id = this.nodeAt(panel, e);
    const hover = panel.hover;
    if (id === null || id === this.selected) { hover.hidden = true; return; }
    if (hover.hidden || hover.dataset.node !== String(id)) {
      const node = treeNodes(this.tree, this.r, this.lo).find((n) => n.id === id);
      if (!node) { hover.hidden = true; return; }
      hover.innerHTML = hoverText(node, this.tree);
      hover.dataset.node = id;
      hover.style.fontSize = `${this.fonts.label}px`;
      hover.hidden = false;
    }
    const box = panel.box.getBoundingClientRect();
    const c = markerCenter(panel, id);
    const gap = panel.plan.marker / 2 + 8;
    let x = c.x - box.left + gap;
    let y = c.y - box.top + gap;
    if (x + hover.offsetWidth > box.width - 4) x = c.x - box.left - gap - hover.offsetWidth;
    if (y + hover.offsetHeight > box.height - 4) y = c.y - box.top - gap - hover.offsetHeight;
    Object.assign(hover.style, { left: `${Math.max(4, x)}px`, top: `${Math.max(4, y)}px` });
  }

  showInfo(panel, r) {
    const node = this.selected === null ? null
      : treeNodes(this.tree, r, this.lo).find((n) => n.id === this.selected);
    panel.info.hidden = !node;
    if (!node) return;
    panel.info.innerHTML = `${hoverText(node, this.tree)}<button type="button" title="Close" `
      + `aria-label="Close">×</button>`;
    panel.info.dataset.node = node.id;
    placeInfo(panel, node.id);
  }

  // ------------------------------------------------------------------------- layout
  relayoutSoon() {
    if (this.relayoutFrame || !this.panels) return;
    this.relayoutFrame = requestAnimationFrame(() => {
      this.relayoutFrame = null;
      // hidden or removed (a tab switched, a rerun dropping the player): nothing to size;
      // lay out afresh once shown again (the ResizeObserver hears of that too)
      if (!displayed(this.root)) { this.layoutKey = null; return; }
      if (this.layout()) this.requestDraw();
    });
  }

  // Sizes from the container: the panels fill the window's height with `fill` (fit | loss
  // side by side, the tree below them or beside them as the window's shape suits), fonts
  // scale with the window. Returns whether anything changed.
  layout() {
    const trace = this.trace;
    this.fill = !!trace.fill;
    const large = !!trace.large;
    const width = Math.max(320, this.root.clientWidth);
    const scale = Math.min(window.innerWidth / 1280, window.innerHeight / 720);
    const chart = Math.round(Math.max(large ? 16 : 13, (large ? 17 : 14) * scale));
    const label = Math.round(Math.max(large ? 16 : 12, (large ? 16 : 13) * scale));
    this.fonts = { chart, label, title: chart + 3, marker: Math.round(label * 1.6) };
    this.root.style.fontSize = `${chart}px`;
    this.root.classList.toggle("bsp-onerow", this.fill && width >= 1500);
    const top = this.root.getBoundingClientRect().top + window.scrollY;
    // what stands over the panels: the status and the transport, in one row or two
    const barH = this.panelsBox.getBoundingClientRect().top
      - this.root.getBoundingClientRect().top;
    const height = this.fill
      ? Math.max(360, window.innerHeight - Math.max(0, Math.min(top, window.innerHeight / 3)) - barH - 8)
      : 0;
    const key = `${width}x${height}x${chart}`;
    if (key === this.layoutKey) return false;
    this.layoutKey = key;
    const sizes = arrange(this.panels.map((p) => p.name), width, height, this.fill);
    this.panelsBox.style.gridTemplateColumns = sizes.columns;
    this.panelsBox.style.gridTemplateRows = sizes.rows;
    for (const p of this.panels) {
      const s = sizes.of[p.name];
      Object.assign(p.box.style, { gridArea: s.area, height: `${s.height}px` });
      p.size = s;
      if (p.name !== "tree") { thaw(p); fitChart(p, s, this.fonts); }
      p.info && (p.info.style.fontSize = `${this.fonts.label}px`);
    }
    return true;
  }
}

// The node's numbers go in the panel's corner that hides the least of the tree (the selected
// node never; the root's band before the leaves): the tree fills the panel, no corner is free.
function placeInfo(panel, selected) {
  const info = panel.info;
  const plan = panel.plan;
  if (!plan) return;
  const box = panel.box.getBoundingClientRect();
  const svg = panel.plot.getBoundingClientRect();
  const [ox, oy] = [svg.left - box.left, svg.top - box.top];
  const g = panel.geom;
  const w = info.offsetWidth;
  const h = info.offsetHeight;
  const points = [];
  const deepest = Math.max(...plan.nodes.map((n) => n.depth));
  const cost = new Map(plan.nodes.map((n) => [n.id, n.id === selected ? 1000
    : 1 + 2 * (deepest - n.depth)]));
  for (const id of plan.y.keys()) {
    const [lx, ly, text] = plan.label.get(id);
    const [tw, th] = textSize(text, panel.labelFont);
    const weight = cost.get(id);
    points.push({ x: ox + gx(g, plan.x.get(id)), y: oy + gy(g, plan.y.get(id)), r: plan.marker / 2,
      weight }, { x: ox + gx(g, lx), y: oy + gy(g, ly), rx: tw / 2, ry: th / 2, weight });
  }
  const corners = [[box.width - w - 6, 6], [box.width - w - 6, box.height - h - 6],
    [6, box.height - h - 6], [6, 6]];
  let best = corners[0];
  let bestCost = Infinity;
  for (const [x, y] of corners) {
    let cost = 0;
    for (const p of points) {
      const rx = p.rx ?? p.r;
      const ry = p.ry ?? p.r;
      if (p.x + rx > x && p.x - rx < x + w && p.y + ry > y && p.y - ry < y + h) cost += p.weight;
    }
    if (cost < bestCost) { bestCost = cost; best = [x, y]; }
  }
  Object.assign(info.style, { left: `${Math.max(0, best[0])}px`, top: `${Math.max(0, best[1])}px`,
    right: "auto" });
}

function markerCenter(panel, id) {  // a node's marker on the screen (client px)
  if (!panel?.plan?.y.has(id) || !panel.geom) return null;
  const rect = panel.plot.getBoundingClientRect();
  return { x: rect.left + gx(panel.geom, panel.plan.x.get(id)),
    y: rect.top + gy(panel.geom, panel.plan.y.get(id)) };
}

// Plotly can neither lay out nor resize a plot that is not displayed (it throws "Resize must
// be passed a displayed plot div element"): hidden panels wait until they are shown.
function displayed(element) {
  return element.isConnected && element.getClientRects().length > 0;
}

function textEntry(target) {  // a key typed here is the element's own
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable || target.closest("[contenteditable=''],[contenteditable=true]")) {
    return true;
  }
  if (target.closest("[role=listbox]")) return true;
  // a focused slider of the page (a parameter's) takes its own arrows; the player's own
  // round slider is driven by the player's keys
  if (target.closest("[role=slider]")) return true;
  if (target.tagName === "INPUT" && target.type === "range") return !target.closest(".bsp-bar");
  if (target.getAttribute("aria-expanded") === "true") return true;  // an open list
  const tag = target.tagName;
  if (tag === "TEXTAREA") return true;
  if (tag !== "INPUT") return false;
  const type = (target.type || "text").toLowerCase();
  // a closed combobox (Streamlit's selectbox after a choice) keeps focus: its keys are ours
  if (target.getAttribute("role") === "combobox") return false;
  return !["range", "checkbox", "radio", "button", "submit", "reset", "color", "file",
    "image"].includes(type);
}

const CONFIG = { displaylogo: false, responsive: false, scrollZoom: false,
  modeBarButtonsToRemove: ["select2d", "lasso2d"] };

function react(Plotly, panel) {
  const { figure } = panel;
  return Plotly.react(panel.plot, figure.data, figure.layout, CONFIG);
}

function getPath(obj, path) {
  let o = obj;
  for (const k of path.split(".")) { if (o === undefined || o === null) return undefined; o = o[k]; }
  return o;
}

// After a chart's first draw at a size: its axes' ranges widened to every round's values
// (as Plotly's autorange pads: 5%) and its margins fixed where automargin put them, so that
// a round's Plotly.react skips the autorange and automargin passes; thaw undoes it when the
// size changes.
function freeze(Plotly, panel, ranges, key) {
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

function thaw(panel) {  // the figure's own ranges and margins again (a new size)
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
function moveInPlace(Plotly, panel, changed) {
  const gd = panel.plot;
  const plan = [];
  const shapes = {};  // the round's line on the loss chart: Plotly.relayout redraws shapes only
  for (const [path, value] of changed) {
    const m = /^data\.(\d+)\.(x|y|name|hovertemplate)$/.exec(path);
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
    if (attr === "hovertemplate") {
      plan.push(() => { gd.data[i].hovertemplate = value; trace.hovertemplate = value; });
    } else if (attr === "name") {
      const entry = [...gd.querySelectorAll(".legend .traces")]
        .find((g) => g.__data__?.[0]?.trace?.index === i);
      const text = entry?.querySelector(".legendtext");
      if (!trace.showlegend || !text || /[<&]/.test(value)) return false;
      plan.push(() => { text.textContent = value; gd.data[i].name = value; trace.name = value; });
    } else {
      const group = [...gd.querySelectorAll(".scatterlayer .trace")]
        .find((g) => g.__data__?.[0]?.trace?.index === i);
      const points = group?.querySelectorAll(".points path.point").length;
      if (!group || value.length !== cd.length || !["markers", "lines"].includes(trace.mode)
        || (trace.mode === "markers" && points !== cd.length)
        || (trace.mode === "lines" && !LINE_PATHS[trace.line?.shape ?? "linear"])) return false;
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
    const m = /^M[\d.e+-]+,([\d.e+-]+)L[\d.e+-]+,([\d.e+-]+)$/.exec(d);
    if (!xa || !m || shape.type !== "line" || x0 === undefined || x0 !== (x1 ?? x0)
      || xa.type !== "linear") return false;
    const x = xa._offset + xa.c2p(x0);
    plan.push(() => {
      path.setAttribute("d", `M${x},${m[1]}L${x},${m[2]}`);
      for (const s of [gd.layout.shapes[i], shape]) Object.assign(s, { x0, x1: x1 ?? x0 });
    });
  }
  for (const step of plan) step();
  return true;
}

const round2 = (v) => Math.round(v * 100) / 100;  // as Plotly writes a path's coordinates
// A line's path as Plotly's Drawing.linearPath and Drawing.steps.hv write it.
const LINE_PATHS = {
  linear: (pts) => `M${pts.map((p) => p.join(",")).join("L")}`,
  hv: (pts) => `M${pts[0].join(",")}${pts.slice(1).map(([x, y]) => `H${x}V${y}`).join("")}`,
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
    if (line && pts.length) line.setAttribute("d", LINE_PATHS[trace.line?.shape ?? "linear"](pts));
  }
}

// Grid areas and pixel sizes of the panels.
function arrange(names, width, height, fill) {
  const gap = 8;
  const charts = names.filter((n) => n !== "tree");
  const hasTree = names.includes("tree");
  const of = {};
  const chartH = fill ? 0 : 420;
  if (!hasTree || !charts.length) {  // one row of whatever there is
    const w = Math.floor((width - gap * (names.length - 1)) / names.length);
    names.forEach((n, i) => { of[n] = { area: `1 / ${i + 1}`, width: w,
      height: fill ? height : (n === "tree" ? 400 : chartH) }; });
    return { of, columns: `repeat(${names.length}, 1fr)`, rows: "auto" };
  }
  const beside = fill && width / height >= 1.45 && width >= 900;
  if (beside) {  // the charts stacked on the left, the tree on the right, full height
    const w = Math.floor((width - gap) / 2);
    const h = Math.floor((height - gap * (charts.length - 1)) / charts.length);
    charts.forEach((n, i) => { of[n] = { area: `${i + 1} / 1`, width: w, height: h }; });
    of.tree = { area: `1 / 2 / ${charts.length + 1} / 3`, width: width - w - gap, height };
    return { of, columns: `${w}px 1fr`, rows: `repeat(${charts.length}, ${h}px)` };
  }
  const side = width >= 700 ? charts.length : 1;  // fit | loss side by side when there is room
  const w = Math.floor((width - gap * (side - 1)) / side);
  const chartRows = Math.ceil(charts.length / side);
  const top = fill ? Math.floor((height - gap * chartRows) * 0.45 / chartRows) : chartH;
  charts.forEach((n, i) => {
    of[n] = { area: `${Math.floor(i / side) + 1} / ${(i % side) + 1}`, width: w, height: top };
  });
  const treeH = fill ? height - chartRows * (top + gap) : 400;
  of.tree = { area: `${chartRows + 1} / 1 / ${chartRows + 2} / ${side + 1}`, width, height: treeH };
  return { of, columns: `repeat(${side}, 1fr)`, rows: "auto" };
}

function captureFonts(layout) {  // the figure's own font sizes, to scale from
  return { base: layout.font?.size ?? 15, title: layout.title?.font?.size ?? null };
}

// A chart at its panel's size, its fonts scaled to the window.
function fitChart(panel, size, fonts) {
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
  // the title needs less room than the figure's 70 px once the legend is not beside it
  const m = layout.margin || {};
  layout.margin = { ...m, t: Math.min(m.t ?? 70, Math.round(fonts.title * 1.3 + fonts.chart * 2)) };
}

// ---------------------------------------------------------------------------- hosts
export function mount(element, trace, { plotly, report, fetches = false } = {}) {
  let player = element.boostscopePlayer;
  if (!player) {
    player = new Player(element);
    element.boostscopePlayer = player;
  }
  player.report = report || (() => {});
  player.fetches = fetches;  // the host sends the window around a round reported outside it
  player.load(trace, plotly);
  return player;
}

// Streamlit sends the trace's JSON once per model; once the page has said it holds it (in
// every report), only its id. The page keeps the last few it parsed, and asks for one it
// does not hold (a trigger "need": Python sends it again).
const held = new Map();  // trace id -> the parsed trace, oldest first
const HOLD = 4;

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const own = parentElement.boostscopePlayer?.trace;  // what this player already draws
  let base = held.get(data.id) ?? (own?.id === data.id ? own : undefined);
  if (typeof data.trace === "string" && !base) {
    base = JSON.parse(data.trace);
    registry().parsed += 1;
    held.set(data.id, base);
    while (held.size > HOLD) held.delete(held.keys().next().value);
  }
  if (!base) {
    setTriggerValue("need", { id: data.id });
    return;
  }
  const trace = data.goto ? { ...base, goto: data.goto } : base;
  const report = (name, value) => {
    // a node of the round the page's node part shows (ui/node_clicks.js): that part reruns
    // alone; anything else reruns the stage that holds the player
    const nodes = window.boostscopeNodeClicks;
    if (name === "node" && nodes && nodes.round === value.round) nodes.send(value);
    else setTriggerValue(name, { ...value, holds: data.id });
  };
  const player = mount(parentElement, trace, { plotly: data.plotly, fetches: true, report });
  player.keys = data.keys !== false;
}

// For tests: the traces the page holds (a test empties it to see the page ask for one).
registry().held = held;

// For tests and benchmarks: the labels the page composes for round r in format fmt.
registry().labels = (round, fmt, player = null) => {
  const p = player ?? registry().players[0];
  return treeNodes(p.tree, round, p.lo).map((n) => ({ node: n.id,
    text: nodeText(n, fmt, p.tree.gamma) }));
};
registry().format = { pyG, pyF0, num, short };
registry().nodeCenter = (id, player = null) => {
  const p = player ?? registry().players[0];
  return markerCenter(p.panels.find((x) => x.name === "tree"), id);
};
