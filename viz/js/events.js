// The events the page's parts talk by, in place of globals. NODE_CLICK: the player's
// Streamlit host dispatches it on window with a clicked node ({round, node}), cancelable; the
// app's node part (ui/node_clicks.js) takes a node of its own round (preventDefault) and its
// fragment reruns alone; a click nobody takes goes through the player's own trigger.

export const NODE_CLICK = "boostscope-node-click";
