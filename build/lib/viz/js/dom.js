// The page's small DOM helpers, shared by the player and the lesson host: an element made and
// placed, whether a key typed at an element is the element's own (a text field's, a list's),
// and whether an element is displayed (Plotly can lay out only a displayed plot).

export function el(tag, attrs = {}, parent = null) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}

// Plotly can neither lay out nor resize a plot that is not displayed (it throws "Resize must
// be passed a displayed plot div element"): hidden panels wait until they are shown.
export function displayed(element) {
  return element.isConnected && element.getClientRects().length > 0;
}

export function textEntry(target) {  // a key typed here is the element's own
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable || target.closest("[contenteditable=''],[contenteditable=true]")) {
    return true;
  }
  if (target.closest("[role=listbox]")) return true;
  // a focused slider of the page (a parameter's) takes its own arrows; the player's own
  // round slider is driven by the player's keys
  if (target.closest("[role=slider]")) return true;
  if (target.tagName === "INPUT" && target.type === "range") return !target.closest(".bsp-bar");
  if (target.getAttribute("aria-expanded") === "true") return true;  // an open list
  const tag = target.tagName;
  if (tag === "TEXTAREA") return true;
  if (tag !== "INPUT") return false;
  const type = (target.type || "text").toLowerCase();
  // a closed combobox (Streamlit's selectbox after a choice) keeps focus: its keys are ours
  if (target.getAttribute("role") === "combobox") return false;
  return !["range", "checkbox", "radio", "button", "submit", "reset", "color", "file",
    "image"].includes(type);
}


// f() in a moment the page is idle (at the latest a second on); a timer where the browser has
// no idle callbacks (Safari before 18)
export function whenIdle(f) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(f, { timeout: 1000 });
  else setTimeout(f, 50);
}

// The window against the 1280x720 a screen is laid out for: the player's type grows by it,
// and a presenter panel's chart is scaled by it (ui/chart.js) to keep the same type.
export function windowScale() {
  return Math.min(window.innerWidth / 1280, window.innerHeight / 720);
}
