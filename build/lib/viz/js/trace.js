// The round trace decoded (docs/player.md, "The trace"): its typed arrays as Float32Array,
// Int16Array... once per trace, a chart's row of an array by round, and a round's tree as
// node objects whose kind is a name from the trace's `kinds` ("split", "leaf", "cut",
// "refused", "pruned_split", "pruned_leaf").

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

export function rowOf(array, i) {  // row i of an array by round: a scalar, a row, or rows of rows
  const { data, shape } = array;
  if (shape.length === 1) return data[i];
  const size = shape.slice(1).reduce((a, b) => a * b, 1);
  const row = data.subarray(i * size, (i + 1) * size);
  if (shape.length === 2) return row;
  const w = shape[shape.length - 1];
  return Array.from({ length: size / w }, (_, k) => row.subarray(k * w, (k + 1) * w));
}

export function setPath(obj, path, value) {  // "data.2.y" -> obj.data[2].y = value
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

export function decodeTrace(trace) {
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

// The kinds that end a branch: a leaf, a split cut back by γ, a split γ refused, a ghost leaf.
const LEAF_KINDS = new Set(["leaf", "cut", "refused", "pruned_leaf"]);

// The nodes of round r; lo: the trace window's first round.
export function treeNodes(tree, r, lo) {
  if (tree.cache.has(r)) return tree.cache.get(r);
  const i = r - lo;
  const nodes = [];
  if (i >= 0 && i + 1 < tree.offsets.length) {
    for (let j = tree.offsets[i]; j < tree.offsets[i + 1]; j++) {
      const kind = tree.kinds[tree.kind[j]];
      const f = tree.feature[j];
      nodes.push({
        id: tree.node[j], parent: tree.parent[j], yes: tree.yes[j], no: tree.no[j],
        missing: tree.missing[j], depth: tree.depth[j], slot: tree.slot[j], kind,
        name: f >= 0 ? tree.features[f] : "Leaf", split: tree.split[j], gain: tree.gain[j],
        G: tree.sum_grad[j], H: tree.sum_hess[j], similarity: tree.similarity[j],
        weight: tree.weight[j], value: tree.value[j], reason: tree.reason[j],
        leaf: LEAF_KINDS.has(kind), pruned: kind === "pruned_split" || kind === "pruned_leaf",
      });
    }
  }
  tree.cache.set(r, nodes);
  return nodes;
}


export function getPath(obj, path) {  // "data.2.y" -> obj.data[2].y (undefined if absent)
  let o = obj;
  for (const k of path.split(".")) { if (o === undefined || o === null) return undefined; o = o[k]; }
  return o;
}
