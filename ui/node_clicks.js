// Where the page's player sends a click on a node of the round this part of the page shows:
// this component's fragment (a view's node part: the node's candidates and worked
// arithmetic) reruns alone, not the whole stage around it. The player's Streamlit host
// dispatches the click as a cancelable NODE_CLICK event (viz/js/events.js); this part takes
// a node of its round (preventDefault). Loaded with viz.page_js.loader.

import { NODE_CLICK } from "../viz/js/events.js";

// Streamlit calls this at each run with that run's round; the listener is added once per
// element and reads the latest round; removed when the part leaves the page (another view):
// clicks then go through the player's own trigger again. Only the latest run's clean-up acts
// (Streamlit also calls at once the clean-up of a run that finished after a newer one began).
export default function ({ data, parentElement, setTriggerValue }) {
  const part = parentElement;
  const mine = part.nodeClicks = { round: data.round,
    send: (value) => setTriggerValue("node", value) };
  if (!part.nodeClicksListener) {
    part.nodeClicksListener = (e) => {
      if (e.detail?.round !== part.nodeClicks.round) return;
      e.preventDefault();
      part.nodeClicks.send(e.detail);
    };
    window.addEventListener(NODE_CLICK, part.nodeClicksListener);
  }
  return () => {
    if (part.nodeClicks !== mine) return;
    window.removeEventListener(NODE_CLICK, part.nodeClicksListener);
    part.nodeClicksListener = null;
  };
}
