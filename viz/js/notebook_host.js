// The player hosted by a Jupyter widget (anywidget: ui/notebook.py). The widget's model holds
// the round trace (`_trace`, its JSON, sent once) and where the kernel wants the stage
// (`_goto`, {round, node, token}: `w.goto(...)`); the page sets `round` and `node` when it
// comes to rest, and nothing while stepping or playing. A node's record, and Plotly.js when
// the page has none yet, come over the widget's own message channel (custom messages to and
// from the kernel): no server but the kernel's, no request to any host.
//
// Every widget's view is its own player, with its own place for the selected node's details
// and keys typed inside it only: a notebook has its own keys, and a page may hold several
// widgets.

import { el } from "./dom.js";
import { mount, unmount } from "./player.js";
import { registry } from "./registry.js";

const STYLE = `
.bsw { padding: 6px 4px 4px 4px; outline: none; }
.bsw:focus-visible { outline: 2px solid #90CAF9; outline-offset: 2px; }
.bsw-details { padding: 0 2px 6px 2px; }
.bsw-error { color: #B71C1C; white-space: pre-wrap; }
`;

// The widget's questions to the kernel and their answers, matched by a number of the
// widget's: {kind: "node" | "chart" | "plotly", id, ...} out, {kind, id, record | chart |
// error} back (with Plotly.js as the answer's one buffer).
function channel(model) {
  if (model.boostscopeChannel) return model.boostscopeChannel;
  const waiting = new Map();
  let next = 0;
  model.on("msg:custom", (msg, buffers) => {
    const got = waiting.get(msg?.id);
    if (!got) return;
    waiting.delete(msg.id);
    if (msg.error) got.reject(new Error(msg.error));
    else got.resolve({ msg, buffers });
  });
  const ask = (question) => new Promise((resolve, reject) => {
    next += 1;
    waiting.set(next, { resolve, reject });
    model.send({ ...question, id: next });
  });
  model.boostscopeChannel = ask;
  return ask;
}

// A node's record (and one feature's chart alone) asked of the kernel: the player's
// `records`, as the app's node route is for its host.
function asker(model) {
  const ask = channel(model);
  const records = (round, node, feature = null) =>
    ask({ kind: "node", round, node, feature }).then(({ msg }) => msg.record);
  records.chart = (round, node, feature) =>
    ask({ kind: "chart", round, node, feature }).then(({ msg }) => msg.chart);
  records.url = `widget:${model.model_id ?? ""}`;  // the model whose records these are
  records.csv = null;  // no route to download every candidate from
  return records;
}

// Plotly.js for the page: there already (another widget loaded it), or sent by the kernel
// from the plotly package (the answer's buffer) and loaded once per page as a blob: URL.
async function plotlyUrl(model) {
  if (window.Plotly) return undefined;
  const script = document.head.querySelector("script[data-boostscope-plotly]");
  if (script && !script.dataset.failed) return undefined;  // on its way (plotly_load.js)
  const { buffers } = await channel(model)({ kind: "plotly" });
  return URL.createObjectURL(new Blob([buffers[0]], { type: "text/javascript" }));
}

function traceOf(model) {
  const text = model.get("_trace");
  if (model.boostscopeTrace?.text !== text) {
    model.boostscopeTrace = { text, trace: JSON.parse(text) };
    registry().parsed += 1;
  }
  return model.boostscopeTrace.trace;
}

async function render({ model, el: element }) {
  if (!document.getElementById("bsw-style")) {
    el("style", { id: "bsw-style", text: STYLE }, document.head);
  }
  const box = el("div", { class: "bsw", tabindex: "0", "data-testid": "boostscope-widget" },
    element);
  const playerBox = el("div", { class: "bsw-player" }, box);
  const details = el("div", { class: "bsw-details" }, box);
  // a press anywhere in the widget gives it the keys (its buttons keep focus where it is)
  box.addEventListener("pointerdown", (e) => {
    if (!box.contains(document.activeElement) || e.target === box) box.focus({ preventScroll: true });
  }, true);
  const report = (name, value) => {
    if (name !== "round") return;
    model.set("round", value.round);
    model.set("node", Number.isInteger(value.node) && value.node >= 0 ? value.node : null);
    model.save_changes();
  };
  const records = asker(model);
  let plotly;
  try {
    plotly = await plotlyUrl(model);
  } catch (error) {
    el("div", { class: "bsw-error", text: `Plotly.js could not be loaded: ${error.message}` }, box);
    return () => box.remove();
  }
  const show = () => {
    const goto = model.get("_goto");
    mount(playerBox, { ...traceOf(model), goto }, { plotly, report, records, details,
      keysWithin: box, nodeReports: true });
  };
  show();
  model.on("change:_goto", show);
  model.on("change:_trace", show);
  return () => {
    model.off("change:_goto", show);
    model.off("change:_trace", show);
    unmount(playerBox);
    box.remove();
  };
}

export default { render };
