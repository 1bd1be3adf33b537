// The tree drawn as SVG markup from a layout plan (./tree_layout.js): title, legend, edges,
// markers, labels and the selection ring, in the colours the trace brings (track.style,
// viz.tree's). The tree is new at every round: one SVG string (a few hundred elements, a
// millisecond or two), not a Plotly figure, whose layout pass costs 30-40 ms a round.

import { CHAR_WIDTH, LINE_HEIGHT, short } from "./labels.js";

const esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const f1 = (v) => (Math.round(v * 10) / 10).toString();

// Where plan coordinates (x in leaf slots, y in px below the plot's top, negative) are drawn
export function geometry(plan, margin) {
  return { l: margin.l, t: margin.t, x0: plan.xRange[0], s: plan.slotPx };
}
export const gx = (g, x) => g.l + (x - g.x0) * g.s;
export const gy = (g, y) => g.t - y;

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

// Lines of text centred in the panel below its title (round 0's, which has no tree): at the
// title's size where they fit the width, never under the labels', an emphasised line a
// quarter larger ([text, emphasis] each; an empty text: a blank line).
function noteSvg(lines, fonts, style, width, height, top) {
  const sizeOf = ([text, strong]) => text.length * CHAR_WIDTH * (strong ? 1.25 : 1);
  const fit = (0.92 * width) / Math.max(...lines.map(sizeOf));
  const font = Math.max(fonts.label, Math.min(fonts.title, fit));
  const sizes = lines.map(([, strong]) => Math.round(strong ? font * 1.25 : font));
  const steps = sizes.map((px) => px * LINE_HEIGHT * 1.2);
  const total = steps.reduce((a, b) => a + b, 0);
  let y = top + (height - top - total) / 2;
  const out = lines.map(([text, strong], i) => {
    const line = !text ? "" : `<text class="bsp-note" x="${f1(width / 2)}" y="${f1(y + steps[i] / 2)}" `
      + `font-size="${sizes[i]}" text-anchor="middle" dominant-baseline="central" `
      + `${strong ? 'font-weight="600" ' : ""}fill="${style.text}">${esc(text)}</text>`;
    y += steps[i];
    return line;
  });
  return out.join("");
}

// The whole tree panel as SVG markup: title, legend, edges, markers, labels, selection; or,
// without a tree (plan null), the title and `note`'s lines.
export function treeSvg(plan, track, selected, fonts, size, margin, title, note = null) {
  const style = track.style;
  const out = [];
  const { width, height } = size;
  out.push(`<text class="bsp-title" x="${margin.l}" y="8" font-size="${fonts.title}" `
    + `dominant-baseline="hanging" fill="${style.text}">${esc(title)}</text>`);
  if (!plan) {
    if (note?.length) out.push(noteSvg(note, fonts, style, width, height, fonts.title * 1.3 + 8));
    return wrapSvg(out, width, height);
  }
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
  const refused = plan.nodes.filter((n) => n.kind === "refused");
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
  // the leaves' labels write η·w: the legend says the η (the model's, by the rule of every
  // number a reader sees), a text without a symbol
  if (track.eta !== undefined && plan.nodes.some((n) => n.leaf)) legend.push([`η = ${short(track.eta)}`, null]);
  // labels: the edges' (yes / no / missing), then the nodes'
  for (const [x, y, text] of plan.edgeLabels) {
    out.push(textLines(text, gx(g, x), gy(g, y), fonts.label, `class="bsp-edge" fill="${style.edge_text}"`));
  }
  for (const [id, [x, y, text]] of plan.label) {
    out.push(textLines(text, gx(g, x), gy(g, y), fonts.label, `class="bsp-label" data-node="${id}" `
      + `fill="${byId.get(id).pruned ? style.ghost_text : style.text}"`));
  }
  out.push(selectionRing(plan, g, track, selected));
  // the legend, one row under the title (as Plotly's horizontal legend was)
  const lf = fonts.label + 2;
  const ly = margin.t - lf * 0.8 - 4;
  let lx = margin.l;
  for (const [name, symbol] of legend) {
    const tx = symbol ? lx + lf * 1.3 : lx;
    out.push(`<g class="bsp-legend">${symbol ? symbol(lx + lf * 0.5, ly, lf * 0.8) : ""}`
      + `<text x="${f1(tx)}" y="${f1(ly)}" font-size="${lf}" dominant-baseline="central" `
      + `fill="${style.text}">${esc(name)}</text></g>`);
    lx = tx + name.length * CHAR_WIDTH * lf + lf * 1.2;
  }
  return wrapSvg(out, width, height);
}

// The ring round the selected node's marker ("" for none, or a node the plan does not
// draw): part of the tree's markup, and moved on its own when only the selection changes.
// `g`: the plan's geometry (``geometry``), as the tree was drawn with.
export function selectionRing(plan, g, track, selected) {
  if (selected === null || !plan?.y.has(selected)) return "";
  return `<circle class="bsp-selected" cx="${f1(gx(g, plan.x.get(selected)))}" `
    + `cy="${f1(gy(g, plan.y.get(selected)))}" r="${f1(plan.marker / 2 + 4)}" fill="none" `
    + `stroke="${track.style.current}" stroke-width="2.5"/>`;
}

function wrapSvg(parts, width, height) {
  return `<svg class="bsp-tree-svg" xmlns="http://www.w3.org/2000/svg" width="${width}" `
    + `height="${height}" viewBox="0 0 ${width} ${height}" `
    + `font-family="Source Sans Pro, Arial, sans-serif">${parts.join("")}</svg>`;
}

