// The tree's layout in the page, a port of viz/tree_layout.py's plan_tree: x in leaf slots,
// y in px below the plot's top (negative); per depth band the richest label format that fits
// side by side at the panel's width; the deepest levels folded ("+ N hidden") until the tree
// fits the panel's height (viz.tree.tree_figure_within). The page lays trees out itself
// because both inputs change in the page alone: the panel's width (the window, the panels
// shown) and the fonts (the window's size), and the folding depends on the panel's height.
// tests/browser/test_tree_layout_parity.py holds it to plan_tree on golden trees: positions,
// labels in every format, edge labels, folding.

import { LAST_FORMAT, LINE_HEIGHT, edgeText, nodeText, textSize } from "./labels.js";

const GAP = 6;  // px kept free between two labels side by side
const ORDER = [[0, 1], [1, 1], [2, 1], [1, 2], [2, 2], [3, 1], [3, 2], [3, 3], [4, 1], [4, 2],
  [4, 3]];  // (format, rows) from the richest

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

export function fits(px, widths, rows, lo, hi) {
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

export function planTree(all, collapsed, opts) {
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
    let gap = band.some((n) => n.kind === "refused") ? 34 : 0;
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
    // none to show (no "missing" way in format 1): the low gap, as when none fit
    if (placed.length && fits(px, placed.map(([, t]) => textSize(t, font)[0]), 1, 0, plotW)) {
      plan.edgeLabels.push(...placed.map(([x, t]) => [x, -mid, t]));
      return tall;
    }
  }
  return 34;
}

// As viz/tree.tree_figure_within: fold the deepest levels ("+ N hidden") until it fits.
export function foldToFit(nodes, opts, height) {
  const collapsed = new Set();
  let level = Math.max(...nodes.map((n) => n.depth)) - 1;
  for (;;) {
    const plan = planTree(nodes, collapsed, opts);
    if (plan.height <= height || level < 0) return plan;
    for (const n of nodes) if (n.depth === level && !n.leaf) collapsed.add(n.id);
    level--;
  }
}
