// The page's one global, window.boostscopePlayer (docs/player.md, "Timings"): what tests and
// benchmarks read of the page — each gesture's timing, the rounds drawn, the players mounted
// (a player removed from the page leaves the list), the traces held and parsed, the offline
// file's reports and the offline lesson host — and a few probes the player adds.

export function registry() {
  const reg = (window.boostscopePlayer ??= {});  // (a benchmark may set a field first)
  reg.timings ??= [];
  reg.drawn ??= [];
  reg.players ??= [];
  reg.parsed ??= 0;
  return reg;
}
