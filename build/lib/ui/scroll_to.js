// Brings the view it is placed at the top of into the window, once per token: a view opened
// from elsewhere on the page (the sidebar's Compare button) would otherwise open below the
// stage, out of sight at 1280x720. This element's own box is hidden (it takes no room), so
// the element after it (the view's first) is the one scrolled to. The run that drew it is
// still drawing the page above (the stage's charts take their height as they come), so the
// scroll is made again once the page has settled, unless the user scrolled meanwhile.

let scrolledTo = null;  // the last token obeyed (Streamlit imports this module once a page)

export default function ({ data, parentElement }) {
  if (scrolledTo === data.token) return;
  scrolledTo = data.token;
  const target = () => {
    const box = parentElement.closest(".st-key-scroll_to");
    let next = box?.nextElementSibling;
    while (next && next.getClientRects().length === 0) next = next.nextElementSibling;
    return next ?? box?.parentElement ?? parentElement;
  };
  let moved = false;
  const user = () => { moved = true; };
  window.addEventListener("wheel", user, { once: true, passive: true });
  window.addEventListener("keydown", user, { once: true });
  const scroll = () => { if (!moved) target().scrollIntoView({ block: "start" }); };
  requestAnimationFrame(scroll);
  setTimeout(scroll, 600);
  setTimeout(() => {
    scroll();
    window.removeEventListener("wheel", user);
    window.removeEventListener("keydown", user);
  }, 1500);
}
