// The player hosted by Streamlit's components v2 (ui/player.py): called with each run's
// {data: {id, trace (JSON, or null once the page holds it), goto, keys, plotly, nodes (the
// node route's URL for this model: the page asks it for a node's record)},
// parentElement, setTriggerValue}; everything is idempotent per trace id. Streamlit sends the
// trace's JSON once per model; once the page has said it holds it (in every report), only
// its id. The page keeps the last few it parsed, and asks for one it does not hold (a
// trigger "need": Python sends it again). The returned clean-up (Streamlit calls it when the
// component leaves the page) removes the player, if no later run has taken the element over
// (Streamlit also calls at once the clean-up of a run that finished after a newer one began).

import { mount, unmount } from "./player.js";
import { registry } from "./registry.js";

// A node's record from the app's route: the URL names the model (and class); a 4xx or 5xx
// answer's sentence becomes the error the page shows.
function asker(url) {
  const get = async (route, round, node, feature) => {
    const query = `&round=${round}&node=${node}`
      + (feature === null ? "" : `&feature=${encodeURIComponent(feature)}`);
    const answer = await fetch(route + query);
    const body = await answer.json();
    if (!answer.ok) throw new Error(body.error || `the server answered ${answer.status}`);
    return body;
  };
  const ask = (round, node, feature = null) => get(url, round, node, feature);
  // the node's candidates chart of one feature alone (ui/routes.py's CHART): quick to build,
  // asked for beside a record the page does not hold, and drawn while the record is built
  ask.chart = (round, node, feature) => get(url.replace("/node?", "/chart?"), round, node,
    feature);
  // every candidate of a node as a CSV file (the same query, ui/routes.py's CANDIDATES)
  ask.url = url;  // the model (and class) it asks about
  ask.csv = (round, node) => `${url.replace("/node?", "/candidates.csv?")}&round=${round}`
    + `&node=${node}`;
  return ask;
}

const held = new Map();  // trace id -> the parsed trace, oldest first
const HOLD = 4;
registry().held = held;  // for tests: a test empties it to see the page ask for a trace

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const call = parentElement.boostscopeCall = {};  // this run's; the latest run's clean-up acts
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
    return undefined;
  }
  // where the page asks for the model's node records (the app's route, ui/routes.py)
  if (data.nodes) parentElement.dataset.nodes = data.nodes;
  const trace = data.goto ? { ...base, goto: data.goto } : base;
  const report = (name, value) => setTriggerValue(name, { ...value, holds: data.id });
  mount(parentElement, trace, { plotly: data.plotly, fetches: true, report,
    keys: data.keys !== false, records: data.nodes ? asker(data.nodes) : null });
  return () => {
    if (parentElement.boostscopeCall === call) unmount(parentElement);
  };
}
