// A node's texts, as Python writes them: its label in formats 0-4 (viz.tree_layout.node_text),
// the edges' yes / no / missing (viz.tree_layout.edge_text) and its hover text (viz/tree.py's
// _hover); and the label-size estimate the layout packs them with (viz.tree_layout.text_size).

import { pyF0, pyG, rounded } from "./format.js";

export const CHAR_WIDTH = 0.6;  // a character's width, in font sizes (an estimate)
export const LINE_HEIGHT = 1.2;  // a line's height, in font sizes
export const LAST_FORMAT = 4;  // the sparsest label format

export const short = rounded;  // viz.theme.short: every number a reader sees
// viz.theme.signs: a label's negative numbers with the typographic minus ("w −0.427");
// a hyphen in a name ("age-5") or an exponent (1e-05) stays
export const signs = (text) => text.replace(/(?<![\w.])-(?=\.?\d)/g, "\u2212");
// viz.theme.threshold: a split's threshold keeps the data's digits (1.4525, not 1.45)
export const threshold = (x, digits = 4) => (Number.isNaN(x) ? "n/a"
  : digits <= 4 && Math.abs(x) >= 1000 ? pyF0(x, true) : pyG(x, digits));

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

export function textSize(text, font) {
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
  const cut = digits >= 4 ? threshold(n.split) : num(n.split, digits);
  if (fmt >= 2) return `${trunc(n.name, width)}<${cut}`;
  return `${nameLines(n.name, width).join("<br>")} < ${cut}`;
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
  return signs(lines.filter((l) => l).join("<br>"));
}

// The hover text and the click panel's lines, as viz/tree.py _hover writes them.
export function hoverText(n, track) {
  const lines = [`<b>node ${n.id}</b> (depth ${n.depth})`,
    `G = ${short(n.G)}, H (cover) = ${short(n.H)}`,
    `similarity = G²/(H+λ) = ${short(n.similarity)}`,
    `w = −G/(H+λ) = ${short(n.weight)}, η·w = ${short(n.value)}`];
  if (n.name !== "Leaf") {
    let missing = "";
    if (n.yes >= 0 && (!track.missing_features || track.missing_features.includes(n.name))) {
      missing = ` (missing → ${n.missing === n.yes ? "yes" : "no"})`;
    }
    lines.splice(1, 0, `split: ${n.name} < ${threshold(n.split, 6)}${missing}`);
    lines.push(`gain = ${short(n.gain)}, gain − γ = ${short(n.gain - track.gamma)}`);
  }
  const reason = track.reasons?.[n.reason] || "";
  if (n.pruned) lines.push("<b>removed by pruning</b>: an ancestor's gain < γ");
  else if (n.name !== "Leaf" && n.yes < 0) {
    lines.push("<b>split refused</b>: gain < γ, so hist never grew it");
  } else if (reason) lines.push(`leaf because: ${reason}`);
  return signs(lines.join("<br>"));
}

// An edge's label: "yes" / "no" (format 0 only) and "missing" where missing values go and the
// feature has any (missingFeatures: null when unknown), as viz.tree_layout.edge_text.
export function edgeText(parent, child, fmt, missingFeatures) {
  const side = parent.yes === child ? "yes" : "no";
  const missing = parent.missing === child
    && (!missingFeatures || missingFeatures.includes(parent.name));
  if (fmt === 0) return side + (missing ? " + missing" : "");
  return missing ? "missing" : "";
}
