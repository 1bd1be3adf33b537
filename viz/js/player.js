// The round's player: the fit, the loss curves and the tree of any round, drawn in the page
// from one round trace (docs/player.md). Stepping, scrubbing and Play never reach the
// server; the host hears of the round only at rest (or at once for a round outside the
// trace's window). `mount(element, trace, options)` is the way in for every host
// (./streamlit_host.js, ./offline_host.js, ./lesson_host.js); `unmount(element)`, or the
// element leaving the page, removes the player with its listeners and observers.

import { chartPanel, drawAhead, drawChart, fitChart } from "./chart_panel.js";
import { displayed, el, textEntry, whenIdle, windowScale } from "./dom.js";
import { pyF0, pyG } from "./format.js";
import { nodeText, num, short } from "./labels.js";
import { NODE_STYLE, NodeDetails, NodePanel, treeClass } from "./node_view.js";
import { arrange } from "./panel_grid.js";
import { STYLE, icon, word } from "./player_style.js";
import { loadPlotly } from "./plotly_load.js";
import { registry } from "./registry.js";
import { decodeTrace, treeNodes } from "./trace.js";
import { TreePanel } from "./tree_panel.js";

const REPORT_AFTER = 300;  // ms at rest before the host hears of the round
const SPEEDS = [1, 2, 5, 10, 20, 30];  // when the trace names none
const SLIDER_EM = 8;  // the round slider's least width in one line with the transport, in em
const NODE_PANELS = ["node", "candidates"];  // drawn from the selected node's record
const DETAILS_AFTER = 150;  // ms after the last step before the tree view's details follow
const HOLD_RECORDS = 64;  // node records the page keeps
// the tree view's details: the page's own type (not the presenter's, scaled to the window)
const DETAIL_FONTS = { chart: 14, label: 13, title: 17, marker: 20 };

let active = null;  // the player the keys drive (the last one mounted or touched)

class Player {
  // options: report(name, value) to the host; fetches: the host sends the window of rounds
  // around a round reported outside the trace's; keys: the player's keys on (a lesson in the
  // app turns them off); arrows: ← → step rounds (the offline lesson keeps them for its steps);
  // records(round, node, feature): a promise of a node's record (the host's: the app's
  // route, the notebook's widget messages); without it, the trace's own records (an offline
  // file's) are all there is; details: this player's own place for the selected node's
  // details (the notebook's: a page may hold several widgets), else the page's one
  // (registry().details: the app's tree view, the offline file), drawn by the last player
  // mounted; keysWithin: an element the keys must be typed in (a notebook's widget: the
  // notebook's own keys stay the notebook's); nodeReports: a node selected is reported at
  // rest even where the round did not move (the notebook's w.node)
  constructor(element) {
    this.element = element;
    this.report = () => {};
    this.fetches = false;
    this.keys = true;
    this.arrows = true;
    this.records = null;
    this.details = null;
    this.keysWithin = null;
    this.nodeReports = false;
    this.reportedNode = null;
    this.detailsView = null;
    this.nodeCache = new Map();  // "r:node" -> a record, or a promise of one
    this.clickedAt = null;  // the press that selected the node whose details are on the way
    this.detailsTimer = null;
    this.prefetchTimer = null;
    this.trace = null;
    this.tree = null;
    this.panels = [];
    [this.lo, this.hi, this.first, this.last] = [0, 0, 0, 0];
    this.r = 0;
    this.selected = null;
    this.selectedAt = null;
    this.question = null;  // a lesson's open question: { round, stop } (goto's `stop`)
    this.speed = 5;
    this.playing = false;
    this.advance = null;  // Play's step to the next round, while playing
    this.inFrame = false;  // drawing inside an animation frame (Play's tick)
    this.pending = [];  // gestures waiting for the draw that shows them
    this.drawing = false;
    this.dirty = false;
    this.reported = null;
    this.fetching = null;  // the round outside the window the host was asked for
    this.reportTimer = null;
    this.relayoutFrame = null;
    this.gotoToken = undefined;
    this.plotlyReady = null;
    this.layoutKey = null;
    this.fonts = null;
    this.fill = false;
    this.watched = null;  // the page's block whose size moves the player (the app's)
    this.onPage = false;  // laid out on the page once: leaving it then destroys the player
    this.destroyed = false;

    // focusable by a press, not by Tab (-1): a press on the status line or a panel focuses the
    // player, not the page's scroller around it, which Chromium then ringed in grey at the
    // first key (the player's keys are the window's; its outline is none)
    this.root = el("div", { class: "bsp", "data-testid": "boostscope-player", tabindex: "-1" },
      element);
    if (!document.getElementById("bsp-style")) {
      el("style", { id: "bsp-style", text: STYLE + NODE_STYLE }, document.head);
    }
    this.status = el("div", { class: "bsp-status", "aria-live": "polite" }, this.root);
    this.buildBar();
    this.panelsBox = el("div", { class: "bsp-panels" }, this.root);
    this.root.addEventListener("pointerdown", () => { active = this; }, true);
    // the page-wide listeners and observers, removed by destroy()
    this.onWindowKey = (e) => this.onKey(e);
    this.onWindowKeyUp = (e) => {  // a focused button must not click on Space
      if (active === this && e.key === " " && !textEntry(e.target)) e.preventDefault();
    };
    this.onWindowResize = () => this.relayoutSoon();
    window.addEventListener("keydown", this.onWindowKey, true);
    window.addEventListener("keyup", this.onWindowKeyUp, true);
    window.addEventListener("resize", this.onWindowResize);
    this.observer = new ResizeObserver(() => this.relayoutSoon());
    this.observer.observe(this.root);
    registry().players.push(this);
    active = this;
  }

  // Off the page: listeners and observers removed, timers stopped, out of the players list.
  destroy() {
    this.stop(false);
    clearTimeout(this.reportTimer);
    clearTimeout(this.detailsTimer);
    clearTimeout(this.prefetchTimer);
    if (this.relayoutFrame) cancelAnimationFrame(this.relayoutFrame);
    window.removeEventListener("keydown", this.onWindowKey, true);
    window.removeEventListener("keyup", this.onWindowKeyUp, true);
    window.removeEventListener("resize", this.onWindowResize);
    this.observer.disconnect();
    const players = registry().players;
    if (players.includes(this)) players.splice(players.indexOf(this), 1);
    if (active === this) active = players[players.length - 1] ?? null;
    this.root.remove();
    if (this.element.boostscopePlayer === this) delete this.element.boostscopePlayer;
    this.destroyed = true;
  }

  buildBar() {
    const bar = el("div", { class: "bsp-bar" }, this.root);
    this.bar = bar;
    const button = (act, text, title, after = false) => {
      const b = el("button", { type: "button", "data-act": act, title, "aria-label": text }, bar);
      b.innerHTML = after ? `${word(text)} ${icon(act)}` : `${icon(act)} ${word(text)}`;
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
      // a lesson's open question: at its round the node's arithmetic stops before the step
      // that answers it (node_view.js drawArithmetic's `stop`)
      this.question = goto.stop ? { round: this.clamp(goto.round), stop: goto.stop } : null;
      this.reported = this.clamp(goto.round);
      this.reportedNode = this.selected;
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
    if (this.watched) this.observer.unobserve(this.watched);
    this.watched = page;
    this.observer.observe(page);
  }

  setTrace(trace) {
    this.trace = trace;
    this.question = null;  // a question is about the model it was asked on (goto sets it)
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
    const speeds = (trace.speeds || SPEEDS).filter((s) => s > 0 && s <= 30);
    this.speed = speeds.includes(trace.speed) ? trace.speed : speeds[Math.min(2, speeds.length - 1)];
    this.speedSelect.replaceChildren(...speeds.map((s) => el("option", { value: s,
      text: `${s} round${s === 1 ? "" : "s"}/s` })));
    this.speedSelect.value = String(this.speed);
    // one panel (and one figure object) per chart, in the trace's order
    this.panelsBox.replaceChildren();
    this.panels = [];
    this.nodeCache.clear();
    for (const [k, record] of Object.entries(trace.records || {})) this.nodeCache.set(k, record);
    for (const name of trace.panels || ["fit", "loss", "tree"]) {
      if (name === "tree" || NODE_PANELS.includes(name) ? !tree : !charts[name]) continue;
      const box = el("div", { class: `bsp-panel bsp-${name}` }, this.panelsBox);
      const plot = el("div", { class: "bsp-plot" }, box);
      this.panels.push(name === "tree" ? new TreePanel(box, plot, this)
        : NODE_PANELS.includes(name) ? new NodePanel(name, box, plot, this)
          : chartPanel(name, box, plot, charts[name]));
    }
    this.layoutKey = null;  // new panels have no size yet, whatever the window's size
    this.layout();
  }

  clamp(r) {
    return Math.max(this.first, Math.min(this.last, Math.round(Number(r) || 0)));
  }

  treePanel() {
    return this.panels.find((p) => p.name === "tree") ?? null;
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
    if (!this.keys) return;  // a lesson in the app keeps the arrows for its own steps
    if (active !== this || e.ctrlKey || e.altKey || e.metaKey || textEntry(e.target)) return;
    if (this.keysWithin && !this.keysWithin.contains(e.target)) return;
    const what = { ArrowLeft: "back", ArrowRight: "step", " ": "play", Home: "first",
      End: "last" }[e.key];
    if (!what) return;
    // the offline lesson file: ← → are its steps', Space, Home and End still drive rounds
    if (!this.arrows && (what === "back" || what === "step")) return;
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
    if (r < this.lo || r > this.hi) { this.askForWindow(r); return; }
    this.requestDraw();
    if (why !== "goto" && why !== "trace" && why !== "tick") this.reportSoon();
  }

  // A round outside the trace's window: the host is told at once (a "round" report) and
  // sends the window around it (a new trace); until then the panels show the last round
  // drawn, dimmed.
  askForWindow(r) {
    this.fetching = r;
    this.root.classList.add("bsp-loading");
    this.status.textContent = `${this.statusOf(r)} (loading its rounds…)`;
    clearTimeout(this.reportTimer);
    if (this.reported !== r) {
      this.reported = r;
      this.report("round", { round: r });
    }
  }

  // A node selected (a press on its marker, `event`), or none (id null: the box's close
  // button). Its details are drawn in the page from its record; the host hears of the node
  // with the round at rest (no message per click).
  select(id, event = null) {
    if (id === null) { this.selected = null; this.requestDraw(); return; }
    const again = id === this.selected && this.r === this.selectedAt;
    this.selected = id;
    this.selectedAt = this.r;
    if (this.nodeReports) this.reportSoon();
    if (!again) {
      this.clickedAt = { round: this.r, node: id, start: event?.timeStamp || performance.now() };
      if (!this.records) this.report("node", { round: this.r, node: id });  // the host draws it
      else this.askFirst(this.r, id);  // before anything is drawn: the server starts now
    }
    // a click's answer drawn in this task, not after the next frame; a draw under way
    // draws it next, and the node's numbers (from the trace) show at once meanwhile
    if (this.drawing) this.treePanel()?.showInfo(this.r);
    this.requestDraw(true);
  }

  // ------------------------------------------------------------------- node records
  // The node whose details round r shows: the one selected, if round r's tree has it, else
  // the root (no panel is a dead end); null where the round has no tree here.
  nodeShown(r) {
    const nodes = this.roundNodes(r);
    if (!nodes.length) return null;
    return nodes.some((n) => n.id === this.selected) ? this.selected : nodes[0].id;
  }

  // The node of round 1's tree that the node panel shows at round 0 (the baseline, no tree
  // yet): the one selected if that tree has it, else its root; null where it is not here.
  nodeNext() {
    const nodes = this.roundNodes(1);
    if (!nodes.length) return null;
    return nodes.some((n) => n.id === this.selected) ? this.selected : nodes[0].id;
  }

  roundNodes(r) {  // round r's tree's nodes, if this trace holds that round's tree
    return this.tree && r >= 1 && r >= this.lo && r <= this.hi
      ? treeNodes(this.tree, r, this.lo) : [];
  }

  // The record of node `node` of round r if the page holds it; else null, and it is asked
  // for (once): when it comes, the node's parts are drawn again.
  recordOf(r, node) {
    const key = `${r}:${node}`;
    const held = this.nodeCache.get(key);
    if (held && !(held instanceof Promise)) return held;
    if (held) return null;
    if (!this.records) {
      const missing = { error: "This node's details are not in this file: open the model in "
        + "the app (BoostScope) to see them." };
      this.nodeCache.set(key, missing);
      return missing;
    }
    const asked = this.records(r, node).then(
      (record) => record,
      (error) => ({ error: `This node could not be answered: ${error.message || error}` }));
    this.nodeCache.set(key, asked);
    asked.then((record) => {
      if (this.destroyed || this.nodeCache.get(key) !== asked) return;
      this.nodeCache.set(key, record);
      while (this.nodeCache.size > HOLD_RECORDS) {
        this.nodeCache.delete(this.nodeCache.keys().next().value);
      }
      if ((this.r === r && this.nodeShown(r) === node)
        || (this.r === 0 && r === 1 && this.nodeNext() === node)) {
        this.requestDraw(this.clickedAt?.round === r && this.clickedAt.node === node);
      }
    });
    return null;
  }

  // A click on a node whose record the page does not hold: the node's chart (one feature's
  // candidates: quick to build) asked for beside the record, and drawn ahead on the
  // details' shelf if it comes first, while the server builds the record, whose draw then
  // moves it into place (10k x 30 exact, 1280x720: 122-138 ms median from the click to the
  // details against 140-143 without). Only where the tree view's details show, for a split.
  chartFirst(r, id) {
    const host = this.detailsHost();
    const n = this.roundNodes(r).find((x) => x.id === id);
    if (!this.records?.chart || !host?.isConnected || !n || n.name === "Leaf") return;
    const key = `${r}:${id}`;
    const records = this.records;
    const got = records.chart(r, id, n.name);
    got.then(async (answer) => {
      const view = this.detailsView;
      if (!view || this.destroyed || this.records !== records || this.r !== r
        || !(this.nodeCache.get(key) instanceof Promise)) return;  // (the record came first)
      const record = { round: answer.round, node: answer.node, class: answer.class,
        candidates: 1, features: [answer.feature], charts: { [answer.feature]: answer.chart } };
      try {
        await view.predraw(await this.plotlyReady, record, { fonts: DETAIL_FONTS,
          width: host.clientWidth });
      } catch (error) {
        console.error(error);
      }
    }, () => {});  // (the record's own answer says what went wrong)
  }

  // Whether this page asks a host for records it may show (the tree view's details or a
  // node panel are on screen), now: not while playing.
  asksAhead() {
    const shows = this.detailsHost() || this.panels.some((p) => p instanceof NodePanel);
    return !!this.records && shows && !this.playing && !this.destroyed;
  }

  // The pointer at rest on node `id` of the tree (TreePanel.rest): its record asked for now,
  // not at the press, and its chart drawn ahead — a click then finds them on their way or
  // held. `probes.restAsk = false` turns it off (a benchmark's cold clicks).
  restOn(id) {
    const r = this.r;
    if (!this.asksAhead() || registry().restAsk === false
      || (id === this.selected && this.selectedAt === r) || !this.askFirst(r, id)) return;
    this.nodeCache.get(`${r}:${id}`).then((record) => this.predraw(r, record));
  }

  // Node `id` of round r's tree asked for if the page does not hold it or ask for it yet,
  // with a split's chart beside it (chartFirst); whether it was asked for now.
  askFirst(r, id) {
    if (this.nodeCache.has(`${r}:${id}`) || !this.roundNodes(r).some((n) => n.id === id)) {
      return false;
    }
    this.recordOf(r, id);
    this.chartFirst(r, id);
    return true;
  }

  // At rest, where a node's details are on screen (the tree view's, the node panels) and a
  // host answers records: every node of the round asked for, one at a time, so that a click
  // finds its record held. Stops when the round moves or Play starts.
  prefetchSoon() {
    clearTimeout(this.prefetchTimer);
    const reg = registry();
    if (!this.asksAhead() || reg.prefetch === false) return;
    const r = this.r;
    this.prefetchTimer = setTimeout(async () => {
      // the nodes of this trace's tree, asked of this host: a new model (a retrain with
      // another depth) may lack them, and its host is another
      const { trace, records } = this;
      const ids = this.roundNodes(r).map((n) => n.id);
      for (const id of ids.slice(0, HOLD_RECORDS / 2)) {
        if (this.r !== r || this.playing || this.destroyed || this.trace !== trace
          || this.records?.url !== records?.url) return;
        if (!this.nodeCache.has(`${r}:${id}`)) this.recordOf(r, id);
        await this.predraw(r, await this.nodeCache.get(`${r}:${id}`));
      }
    }, REPORT_AFTER);
  }

  // At rest, in an idle moment: the next round of each chart that cannot draw it in place,
  // drawn ahead (chart_panel.drawAhead), so that the step to it is as quick as any other.
  aheadSoon() {
    if (this.playing || this.aheadPending || !this.panels.length) return;
    this.aheadPending = true;
    whenIdle(async () => {
      this.aheadPending = false;
      if (this.playing || this.drawing || this.destroyed || !displayed(this.root)) return;
      const Plotly = await this.plotlyReady;
      const r = this.r;
      for (const p of this.panels) {
        if (!p.chart || this.r !== r || this.playing) continue;
        try {
          await drawAhead(Plotly, p, r, { n: this.trace.rounds, lo: this.lo, key: this.layoutKey });
        } catch (error) {
          console.error(error);
        }
      }
    });
  }

  // A prefetched record's chart drawn ahead by the tree view's details, in a moment the page
  // is idle and still at rest on round r (a click on the node then shows it at once).
  predraw(r, record) {
    const view = this.detailsView;
    const host = this.detailsHost();
    if (!view || !host?.isConnected || !record?.candidates) return Promise.resolve();
    return new Promise((resolve) => whenIdle(async () => {
      try {
        if (this.r === r && !this.playing && !this.drawing && !this.destroyed
          && view === this.detailsView) {
          await view.predraw(await this.plotlyReady, record, { fonts: DETAIL_FONTS,
            width: host.clientWidth });
        }
      } catch (error) {
        console.error(error);
      }
      resolve();
    }));
  }

  // The details after the round's draw, never inside it (a step stays a step's cost): at
  // once for a click, else once the steps stop for a moment (a burst of steps draws them
  // once), never while playing.
  detailsSoon() {
    clearTimeout(this.detailsTimer);
    if (this.playing || this.destroyed || !this.detailsHost()) return;
    const wait = this.clickedAt ? 0 : DETAILS_AFTER;
    this.detailsTimer = setTimeout(async () => {
      if (this.playing || this.drawing) return;  // (the draw under way calls again)
      const Plotly = await this.plotlyReady;
      try {
        await this.drawDetails(Plotly, this.r);
      } catch (error) {
        console.error(error);
      }
      requestAnimationFrame((now) => this.timeNode(now));
    }, wait);
  }

  // The details of the shown node where the page has a place for them (the app's tree view:
  // ui/node_details.js), drawn once its record is held.
  drawDetails(Plotly, r) {
    const host = this.detailsHost();
    if (!host?.isConnected || (!this.details && this !== registry().players.at(-1))) return null;
    if (this.detailsView?.root.parentElement !== host) {
      host.replaceChildren();
      this.detailsView = new NodeDetails(host);
    }
    const view = this.detailsView;
    const node = this.nodeShown(r);
    if (node === null) {
      view.root.replaceChildren();
      view.record = null;
      return null;
    }
    const record = this.recordOf(r, node);
    if (!record) { view.waiting(); return null; }
    if (view.record === record && view.width === host.clientWidth) return null;
    view.width = host.clientWidth;
    if (record.error) {
      view.record = record;
      view.root.replaceChildren(el("div", { class: "bsn-note", text: record.error }));
      return null;
    }
    return view.draw(Plotly, record, { fonts: DETAIL_FONTS, width: host.clientWidth,
      ask: (feature) => this.records(r, node, feature),
      csv: this.records?.csv?.(r, node) ?? null, className: treeClass(this.tree) });
  }

  statusOf(r) {
    const s = this.trace.status || [];
    const i = s.length === this.hi - this.lo + 1 ? r - this.lo : r;
    return s[i] ?? `Round ${r} of ${this.trace.rounds}`;
  }

  // Where this player draws the selected node's details: its own place, or the page's.
  detailsHost() {
    return this.details ?? registry().details ?? null;
  }

  // ~300 ms after the last gesture, never while playing: the round (and, where the page
  // draws a node's details itself, the node selected, which rides on the next round report:
  // a click alone sends nothing)
  reportSoon() {
    clearTimeout(this.reportTimer);
    this.reportTimer = setTimeout(() => {
      if (this.playing || (this.r === this.reported
        && (!this.nodeReports || this.selected === this.reportedNode))) return;
      this.reported = this.r;
      this.reportedNode = this.selected;
      this.report("round", this.records ? { round: this.r, node: this.selected }
        : { round: this.r });
    }, REPORT_AFTER);
  }

  // ---------------------------------------------------------------------------- Play
  play(event) {
    if (this.r >= this.last) this.go(this.first, null, "tick");  // Play at the end starts over
    this.playing = true;
    this.playButton.innerHTML = `${icon("pause")} ${word("Pause")}`;
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
    this.playButton.innerHTML = `${icon("play")} ${word("Play")}`;
    if (atRest) this.reportSoon();
    this.detailsSoon();
    this.prefetchSoon();
    this.aheadSoon();
  }

  // ---------------------------------------------------------------------------- draw
  // now: draw in this task (a node clicked: its answer painted in the coming frame)
  requestDraw(now = false) {  // at most one draw at a time; gestures meanwhile merge into the next
    if (this.drawing) { this.dirty = true; return; }
    this.drawing = true;
    this.dirty = false;
    if (this.inFrame || now) this.draw();  // (Play's tick: already in an animation frame)
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
        }).concat(this.clickedAt?.round === r ? [this.drawDetails(Plotly, r)] : []));
        // (a click's details in the same frame as its tree; a step's wait for the rest)
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
      this.timeNode(now);
      this.drawing = false;
      this.detailsSoon();
      this.prefetchSoon();
      this.aheadSoon();
      if (this.dirty) this.requestDraw();
      else this.advance?.(now);  // playing: the next round in this very frame
    });
  }

  // The node clicked, painted: its details (or its node panels) show its record.
  timeNode(now) {
    const c = this.clickedAt;
    if (!c || this.r !== c.round) return;
    const want = `${c.round}|${c.node}|`;
    const record = this.detailsView?.record;
    const painted = this.panels.some((p) => p instanceof NodePanel && p.drawnKey?.startsWith(want))
      || (record && !record.error && `${record.round}|${record.node}|` === want);
    if (!painted) return;
    this.clickedAt = null;
    registry().timings.push({ gesture: "node", round: c.round, node: c.node,
      ms: now - c.start });
  }

  drawPanel(Plotly, panel, r) {
    if (panel.name === "tree") { panel.draw(r, this.layoutKey); return Promise.resolve(); }
    if (panel instanceof NodePanel) return panel.draw(Plotly, r, this.layoutKey);
    return drawChart(Plotly, panel, r, { n: this.trace.rounds, lo: this.lo, key: this.layoutKey });
  }

  // ------------------------------------------------------------------------- layout
  relayoutSoon() {
    if (this.relayoutFrame || !this.panels.length) return;
    this.relayoutFrame = requestAnimationFrame(() => {
      this.relayoutFrame = null;
      if (!this.root.isConnected) {  // taken off the page (once on it): gone for good
        if (this.onPage) this.destroy();
        return;
      }
      // hidden (a tab switched): nothing to size; laid out afresh once shown again (the
      // ResizeObserver hears of that too)
      if (!displayed(this.root)) { this.layoutKey = null; return; }
      if (this.layout()) this.requestDraw();
    });
  }

  // The transport in one line at any window: where the buttons' words, the speed and a
  // slider of SLIDER_EM do not fit in the bar (a half-width player beside a lesson's text,
  // whose type grows with the window, not with the player), the buttons show their icons
  // alone (their titles and labels stay); the bar wraps only where even those do not fit.
  fitBar(font) {
    const bar = this.bar;
    bar.classList.remove("bsp-compact");
    const room = bar.clientWidth;
    if (!room) return;
    const gap = parseFloat(getComputedStyle(bar).columnGap) || 0;
    const others = [...bar.children].filter((c) => c !== this.slider);
    const need = others.reduce((w, c) => w + c.getBoundingClientRect().width + gap, 0)
      + SLIDER_EM * font;
    bar.classList.toggle("bsp-compact", need > room);
  }

  // Sizes from the container: the panels fill the window's height with `fill` (fit | loss
  // side by side, the tree below them or beside them as the window's shape suits), fonts
  // scale with the window. Returns whether anything changed.
  layout() {
    const trace = this.trace;
    this.onPage ||= this.root.isConnected;
    this.fill = !!trace.fill;
    const large = !!trace.large;
    const width = Math.max(320, this.root.clientWidth);
    const scale = windowScale();
    const chart = Math.round(Math.max(large ? 16 : 13, (large ? 17 : 14) * scale));
    const label = Math.round(Math.max(large ? 16 : 12, (large ? 16 : 13) * scale));
    // grow: the charts' marks, lines and top margin, made for 17 px type, grow with it
    this.fonts = { chart, label, title: chart + 3, marker: Math.round(label * 1.6),
      grow: Math.max(1, chart / 17) };
    this.root.style.fontSize = `${chart}px`;
    // one row where the status and the transport fit in it at this type (about 48 of its
    // em: at 3840 px a half-width player's transport wrapped over the panels below)
    this.root.classList.toggle("bsp-onerow", this.fill && width >= Math.max(1500, 48 * chart));
    this.fitBar(chart);
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
      if (p.sized) p.sized(s, this.fonts);  // the tree and the node panels size themselves
      else fitChart(p, s, this.fonts);
    }
    return true;
  }
}

// The player in `element` (made on the first call) drawing `trace` (an object or its JSON);
// options: plotly (Plotly.js's URL, when the page has no window.Plotly), report, fetches,
// keys, arrows, records, details, keysWithin, nodeReports (Player's constructor says what
// they are).
export function mount(element, trace, { plotly, report, fetches = false, keys = true,
  arrows = true, records = null, details = null, keysWithin = null, nodeReports = false } = {}) {
  let player = element.boostscopePlayer;
  if (!player) {
    player = new Player(element);
    element.boostscopePlayer = player;
  }
  const asked = player.records?.url;
  Object.assign(player, { report: report || (() => {}), fetches, keys, arrows, records, details,
    keysWithin, nodeReports });
  let dropped = false;
  if (records?.url !== asked) {  // another model's records: what its URL could not answer,
    // and what it was still asked (a model replaced meanwhile answers "no model")
    for (const [k, v] of player.nodeCache) {
      if (v?.error || v instanceof Promise) {
        player.nodeCache.delete(k);
        dropped = true;
      }
    }
  }
  player.load(trace, plotly);
  if (dropped) player.requestDraw();  // asked again, of the new URL
  return player;
}

export function unmount(element) {
  element.boostscopePlayer?.destroy();
}

// Probes for tests and benchmarks: the labels the page composes for round r in format fmt,
// Python's formats, a node's marker on the screen.
const probes = registry();
probes.labels = (round, fmt, player = null) => {
  const p = player ?? probes.players[0];
  return treeNodes(p.tree, round, p.lo).map((n) => ({ node: n.id,
    text: nodeText(n, fmt, p.tree.gamma) }));
};
probes.format = { pyG, pyF0, num, short };
probes.nodeCenter = (id, player = null) => (player ?? probes.players[0]).treePanel().center(id);
// holdsRecord: whether node r:id's record is held by the page; `probes.prefetch = false` turns the
// prefetch at rest off, `probes.restAsk = false` the ask of a node the pointer rests on (a
// benchmark's cold clicks: both off)
probes.holdsRecord = (r, id, player = null) => {
  const held = (player ?? probes.players.at(-1)).nodeCache.get(`${r}:${id}`);
  return !!held && !(held instanceof Promise);
};
