// Where the page's player (viz/player.js) sends a click on a node of the round this part of
// the page shows: this component's fragment (a view's node part: the node's candidates and
// worked arithmetic) reruns alone, not the whole stage around it. The player asks for
// window.boostscopeNodeClicks and sends the click there when its round is this part's.

export default function ({ data, setTriggerValue }) {
  const mine = { round: data.round, send: (value) => setTriggerValue("node", value) };
  window.boostscopeNodeClicks = mine;
  return () => {  // removed from the page (another view): the player's own trigger again
    if (window.boostscopeNodeClicks === mine) window.boostscopeNodeClicks = null;
  };
}
