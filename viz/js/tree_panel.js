// The tree panel: round r's tree laid out (./tree_layout.js) and drawn as SVG (./tree_svg.js)
// at the panel's size, a node's numbers in a hover box beside its marker, and the selected
// node's numbers in a box placed in the corner that hides the least of the tree. A press on
// a marker selects its node (the player reports it to the host).

import { el } from "./dom.js";
import { hoverText, short, signs, textSize } from "./labels.js";
import { treeClass } from "./node_view.js";
import { foldToFit } from "./tree_layout.js";
import { geometry, gx, gy, selectionRing, treeSvg } from "./tree_svg.js";
import { treeNodes } from "./trace.js";

// ms the pointer rests on a node before the player hears of it (a pointer crossing a 40 px
// marker at 1,000 px/s is on it for 40 ms; a hand that aims rests there 100 ms and more)
const REST_MS = 60;

export class TreePanel {
  // box, plot: the panel's elements; player: its owner (round, selection, fonts, the track)
  constructor(box, plot, player) {
    this.name = "tree";
    this.box = box;
    this.plot = plot;
    this.player = player;
    this.info = el("div", { class: "bsp-info", hidden: "" }, box);
    this.hover = el("div", { class: "bsp-hover", hidden: "" }, box);
    this.plan = null;
    this.geom = null;
    this.drawnKey = null;
    // a node is selected as the button goes down (its numbers at once, the host told a
    // click's length sooner); the box's close button is an ordinary click. The listeners are
    // on the panel's own elements: they go with them.
    box.addEventListener("pointerdown", (e) => this.onPress(e));
    box.addEventListener("click", (e) => {
      if (e.target.closest(".bsp-info button")) player.select(null);
    });
    plot.addEventListener("pointermove", (e) => this.onHover(e));
    plot.addEventListener("pointerleave", () => { this.hover.hidden = true; this.rest(null); });
    this.restTimer = null;
  }

  // The pointer come to rest on node `id` (null: on none): the player told after REST_MS
  // (a hand rests on a node before it presses; a pointer passing over the tree does not)
  rest(id) {
    if (this.resting === id) return;
    this.resting = id;
    clearTimeout(this.restTimer);
    if (id !== null) this.restTimer = setTimeout(() => this.player.restOn(id), REST_MS);
  }

  nodes(r) {
    const p = this.player;
    return treeNodes(p.tree, r, p.lo);
  }

  // Round r at the panel's size (key: the player's layout); drawn again only when the
  // round, the selection or the size changed (not at a rerun of the host).
  draw(r, key) {
    const p = this.player;
    const drawn = `${r}|${p.selected}|${key}`;
    if (this.drawnKey === drawn) return;
    this.drawnKey = drawn;
    if (this.treeKey === `${r}|${key}` && this.plan) { this.select(r); return; }
    this.treeKey = `${r}|${key}`;
    const track = p.tree;
    const { width, height } = this.size;
    const nodes = this.nodes(r);
    const f = p.fonts;
    const margin = { l: 12, r: 12, t: Math.round(f.title * 1.3 + f.label * 1.6 + 14), b: 8 };
    const k = track.groups ?? 1;  // multi-class: K trees a round, this one its class's
    const title = r === 0 ? "Round 0: the baseline (no tree yet)" : k > 1
      ? `Tree of round ${r}, ${treeClass(track)} (${k} a round, `
        + `${k * r} so far)` : `Tree of round ${r}`;
    let plan = null;
    if (nodes.length) {
      const opts = { gamma: track.gamma, width, font: f.label, marker: f.marker, margin,
        missingFeatures: track.missing_features ?? null };
      plan = foldToFit(nodes, opts, p.fill ? height : Infinity);
    }
    this.plan = plan;
    this.geom = plan && geometry(plan, margin);
    this.labelFont = f.label;
    const h = p.fill || !plan ? height : Math.max(plan.height, 260);
    if (!p.fill) this.box.style.height = `${h}px`;
    this.hover.hidden = true;
    // the node's box placed before the tree is drawn: its measures then lay out the box
    // alone, not the page with a new tree in it (the plan says where the nodes go)
    this.showInfo(r);
    this.plot.innerHTML = treeSvg(plan, track, p.selected, f, { width, height: h }, margin, title,
      r === 0 ? this.baseline() : null);
  }

  // The same tree, another node selected: its ring moved and its numbers shown, the rest of
  // the tree kept (a new tree's markup repainted the whole panel at every click). The ring
  // goes where a fresh draw puts it: after the labels, before the legend.
  select(r) {
    const svg = this.plot.querySelector("svg");
    this.hover.hidden = true;
    svg.querySelector(".bsp-selected")?.remove();
    this.showInfo(r);
    const ring = selectionRing(this.plan, this.geom, this.player.tree, this.player.selected);
    if (!ring) return;
    const legend = svg.querySelector(".bsp-legend");
    if (legend) legend.insertAdjacentHTML("beforebegin", ring);
    else svg.insertAdjacentHTML("beforeend", ring);
  }

  // Round 0's panel, which has no tree: where every row starts (the model's base_score, the
  // drawn class's for multi-class, and its margin where the link makes it another number:
  // the units the trees' η·w add to) and what the next step does. [text, emphasis] lines.
  baseline() {
    const p = this.player;
    const track = p.tree;
    const lines = [];
    if (track.base_score !== undefined && track.base_score !== null) {
      const score = signs(short(track.base_score));
      const margin = signs(short(track.base_margin ?? track.base_score));
      const which = (track.groups ?? 1) > 1 ? ` (${treeClass(track)})` : "";
      lines.push(["Every row starts at the baseline prediction", false],
        [`base_score = ${score}${which}`, true]);
      if (margin !== score) lines.push([`(margin ${margin}, the units of the trees' η·w)`, false]);
    }
    if (p.trace.rounds > 0) {
      const key = p.keys && p.arrows ? "→ or Step" : "Step";
      lines.push(["", false], [`${key} grows round 1's tree`, false],
        ["from the rows' gradients at this baseline", false]);
    }
    return lines;
  }

  sized(size, fonts) {
    this.size = size;
    this.info.style.fontSize = `${fonts.label}px`;
  }

  onPress(e) {
    if (e.button !== 0 || e.target.closest(".bsp-info")) return;
    const id = this.nodeAt(e);
    if (id !== null) this.player.select(id, e);
  }

  nodeAt(e) {  // the node whose marker is under the pointer (within a few px)
    const { plan, geom } = this;
    if (!plan || !geom) return null;
    const rect = this.plot.getBoundingClientRect();  // once: this runs at every pointer move
    const [px, py] = [e.clientX - rect.left, e.clientY - rect.top];
    let best = null;
    let bestD = (plan.marker / 2 + 6) ** 2;
    for (const [id, y] of plan.y) {
      const d = (gx(geom, plan.x.get(id)) - px) ** 2 + (gy(geom, y) - py) ** 2;
      if (d <= bestD) { bestD = d; best = id; }
    }
    return best;
  }

  onHover(e) {  // a node's numbers beside it while the pointer is on it
    const p = this.player;
    const id = this.nodeAt(e);
    const hover = this.hover;
    this.rest(id);
    if (id === null || id === p.selected) { hover.hidden = true; return; }
    if (hover.hidden || hover.dataset.node !== String(id)) {
      const node = this.nodes(p.r).find((n) => n.id === id);
      if (!node) { hover.hidden = true; return; }
      hover.innerHTML = hoverText(node, p.tree);
      hover.dataset.node = id;
      hover.style.fontSize = `${p.fonts.label}px`;
      hover.hidden = false;
    }
    const box = this.box.getBoundingClientRect();
    const c = this.center(id);
    const gap = this.plan.marker / 2 + 8;
    let x = c.x - box.left + gap;
    let y = c.y - box.top + gap;
    if (x + hover.offsetWidth > box.width - 4) x = c.x - box.left - gap - hover.offsetWidth;
    if (y + hover.offsetHeight > box.height - 4) y = c.y - box.top - gap - hover.offsetHeight;
    Object.assign(hover.style, { left: `${Math.max(4, x)}px`, top: `${Math.max(4, y)}px` });
  }

  showInfo(r) {  // the selected node's numbers, or none
    const selected = this.player.selected;
    const node = selected === null ? null : this.nodes(r).find((n) => n.id === selected);
    // the node's panel beside the tree holds its numbers already: no box over the tree
    this.info.hidden = !node || this.player.panels.some((q) => q.name === "node");
    if (this.info.hidden) return;
    this.info.innerHTML = `${hoverText(node, this.player.tree)}<button type="button" `
      + `title="Close" aria-label="Close">×</button>`;
    this.info.dataset.node = node.id;
    this.placeInfo(node.id);
  }

  // The node's numbers go where they hide the least of the tree: a place that covers no
  // label, marker or edge label if the panel has one (the corners first, then anywhere on a
  // grid of the box's own size), else the corner that hides the least (the selected node
  // never; the root's band before the leaves).
  placeInfo(selected) {
    const { info, plan } = this;
    if (!plan) return;
    const box = this.box.getBoundingClientRect();
    const svg = this.plot.getBoundingClientRect();
    const [ox, oy] = [svg.left - box.left, svg.top - box.top];
    const g = this.geom;
    const w = info.offsetWidth;
    const h = info.offsetHeight;
    const points = [];
    const deepest = Math.max(...plan.nodes.map((n) => n.depth));
    const cost = new Map(plan.nodes.map((n) => [n.id, n.id === selected ? 1000
      : 1 + 2 * (deepest - n.depth)]));
    const text = (x, y, label, weight) => {
      const [tw, th] = textSize(label, this.labelFont);
      points.push({ x: ox + gx(g, x), y: oy + gy(g, y), rx: tw / 2, ry: th / 2, weight });
    };
    for (const id of plan.y.keys()) {
      const [lx, ly, label] = plan.label.get(id);
      const weight = cost.get(id);
      points.push({ x: ox + gx(g, plan.x.get(id)), y: oy + gy(g, plan.y.get(id)),
        r: plan.marker / 2, weight });
      text(lx, ly, label, weight);
    }
    for (const [x, y, label] of plan.edgeLabels) text(x, y, label, 1);
    const [right, bottom] = [box.width - w - 6, box.height - h - 6];
    const places = [[right, 6], [right, bottom], [6, bottom], [6, 6]];
    const corners = places.length;
    for (let y = 6; y <= bottom; y += Math.max(8, h / 4)) {
      for (let x = 6; x <= right; x += Math.max(8, w / 4)) places.push([x, y]);
    }
    let best = places[0];
    let bestCost = Infinity;
    places.forEach(([x, y], i) => {
      let c = 0;
      for (const q of points) {
        const rx = q.rx ?? q.r;
        const ry = q.ry ?? q.r;
        if (q.x + rx > x && q.x - rx < x + w && q.y + ry > y && q.y - ry < y + h) c += q.weight;
      }
      if (i >= corners && c > 0) return;  // off a corner only where nothing is covered
      if (c < bestCost) { bestCost = c; best = [x, y]; }
    });
    Object.assign(info.style, { left: `${Math.max(0, best[0])}px`,
      top: `${Math.max(0, best[1])}px`, right: "auto" });
  }

  center(id) {  // a node's marker on the screen (client px), null if not drawn
    if (!this.plan?.y.has(id) || !this.geom) return null;
    const rect = this.plot.getBoundingClientRect();
    return { x: rect.left + gx(this.geom, this.plan.x.get(id)),
      y: rect.top + gy(this.geom, this.plan.y.get(id)) };
  }
}
