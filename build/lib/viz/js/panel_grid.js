// The panels' grid: which grid area each panel takes and its size in px, from the panels
// shown, the player's width and (filling the window) the height it has.

// Grid areas and pixel sizes of the panels.
export function arrange(names, width, height, fill) {
  const gap = 8;
  const charts = names.filter((n) => n !== "tree");
  const hasTree = names.includes("tree");
  const of = {};
  const chartH = fill ? 0 : 420;
  // one row of whatever there is; filling the window, two panels side by side in their
  // order (a presenter's left and right)
  if (!hasTree || !charts.length || (fill && names.length <= 2)) {
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

