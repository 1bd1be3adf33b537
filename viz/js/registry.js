// The page's one global, window.boostscopePlayer (docs/player.md, "Timings"): what tests and
// benchmarks read of the page — each gesture's timing, the rounds drawn, the players mounted
// (a player removed from the page leaves the list), the traces held and parsed, the offline
// file's reports and the offline lesson host — and a few probes the player adds.

export function registry() {
  window.boostscopePlayer ??= { timings: [], drawn: [], players: [], parsed: 0 };
  return window.boostscopePlayer;
}
