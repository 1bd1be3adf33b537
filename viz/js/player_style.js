// The player's look: its style sheet (added to the page once) and the transport's icons,
// drawn, not typed (the media symbols ⏮ ⏸ are missing from many fonts).

export const STYLE = `
.bsp { font-family: "Source Sans Pro", Arial, sans-serif; color: #111; box-sizing: border-box;
  display: flex; flex-direction: column; gap: 4px; width: 100%; outline: none; }
.bsp * { box-sizing: border-box; }
.bsp-status { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
  line-height: 1.25; }
.bsp-bar { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.bsp-bar button { font: inherit; line-height: 1.25; padding: 2px 10px; display: inline-flex; align-items: center;
  gap: 0.35em; border: 1px solid #BDBDBD; border-radius: 6px;
  background: #fff; color: #111; cursor: pointer; white-space: nowrap; }
.bsp-bar button:hover { border-color: #D55E00; }
.bsp-bar button.bsp-play { min-width: 6.2em; font-weight: 600; }
/* the slider takes the line's rest, at least 8 em of the bar's type (player.js SLIDER_EM;
   font: inherit, or the em is the browser's own input type in one host and the page's in
   another) before it wraps */
.bsp-bar input[type=range] { font: inherit; flex: 1 1 0; min-width: max(80px, 8em);
  accent-color: #D55E00; }
/* too narrow for the words (player.js fitBar): the icons alone */
.bsp-compact .bsp-word { display: none; }
.bsp-bar.bsp-compact button { padding: 2px 0.45em; }
.bsp-bar.bsp-compact button.bsp-play { min-width: 0; }
.bsp-bar select { font: inherit; line-height: 1.25; padding: 1px 4px; border: 1px solid #BDBDBD; border-radius: 6px;
  background: #fff; }
.bsp-bar label { white-space: nowrap; }
.bsp-panels { position: relative; display: grid; gap: 8px; }
.bsp-loading .bsp-panels { opacity: 0.45; transition: opacity 0.2s; }
/* a wide filled screen (a projector at 1080p and up): the status and the transport share
   one row, so the panels get its height */
.bsp.bsp-onerow { display: grid; grid-template-columns: auto 1fr; align-items: center;
  column-gap: 1em; }
.bsp-onerow .bsp-panels { grid-column: 1 / -1; }
/* strict: a panel's size comes from the grid, never from what it holds, so a change inside
   (the node's numbers, the hover box, a redrawn tree) lays out the panel alone, not the page */
.bsp-panel { position: relative; min-width: 0; min-height: 0; overflow: hidden; contain: strict; }
.bsp-info { position: absolute; right: 6px; top: 6px; max-width: min(36em, 92%);
  background: rgba(255,255,255,0.96); border: 1px solid #D55E00; border-radius: 6px;
  padding: 6px 28px 6px 10px; line-height: 1.35; box-shadow: 0 2px 6px rgba(0,0,0,0.15); }
.bsp-hover { position: absolute; pointer-events: none; max-width: min(32em, 90%);
  background: rgba(255,255,255,0.97); border: 1px solid #888; border-radius: 4px;
  padding: 4px 8px; line-height: 1.3; box-shadow: 0 1px 4px rgba(0,0,0,0.15); z-index: 2; }
.bsp-tree .bsp-plot { cursor: default; }
.bsp-info button { position: absolute; right: 4px; top: 2px; border: none; background: none;
  font-size: 1.2em; cursor: pointer; color: #444; }
`;

const ICON = {
  first: '<rect x="2" y="3" width="2.2" height="10"/><path d="M14 3v10L5 8z"/>',
  back: '<path d="M12 3v10L4 8z"/>',
  play: '<path d="M4 2.5v11L13.5 8z"/>',
  pause: '<rect x="3.5" y="3" width="3" height="10"/><rect x="9.5" y="3" width="3" height="10"/>',
  step: '<path d="M4 3v10l8-5z"/>',
  last: '<path d="M2 3v10l9-5z"/><rect x="11.8" y="3" width="2.2" height="10"/>',
};
// a button's word, hidden where the bar is too narrow for it (.bsp-compact)
export const word = (text) => `<span class="bsp-word">${text}</span>`;
export const icon = (name) => `<svg viewBox="0 0 16 16" width="0.9em" height="0.9em" `
  + `fill="currentColor" aria-hidden="true">${ICON[name]}</svg>`;
