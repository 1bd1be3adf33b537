// Where the page's player draws the selected node's details in the app's tree view (the
// node's chart, worked arithmetic and tables, from its record: viz/js/node_view.js). This
// element is that place while the view is on the page; the player draws into it
// (window.boostscopePlayer.details) and redraws when it appears. Loaded with
// viz.page_js.loader.

import { registry } from "../viz/js/registry.js";

export default function ({ parentElement }) {
  const reg = registry();
  reg.details = parentElement;
  for (const p of reg.players) p.requestDraw();
  return () => {
    if (reg.details === parentElement) reg.details = null;
  };
}
