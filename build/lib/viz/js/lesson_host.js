// The lesson host of the offline lesson file: a whole lesson in one page, around the round's
// player (./player.js). A bar with the lesson's title, "step k of n" and Back / Reveal /
// Next (← ↓ → as in the app), the step's text, its question and, after Reveal, the answer;
// each step points the player at its trace, round, node and panels (docs/player.md, "The
// lesson file"). No request, no server: the texts hold the engine's numbers already (Python
// filled them in, as the app's lesson bar does).

import { el, textEntry } from "./dom.js";
import { mount } from "./player.js";
import { registry } from "./registry.js";

const LESSON_STYLE = `
.bsl { font-family: "Source Sans Pro", Arial, sans-serif; color: #111; display: flex;
  flex-direction: column; gap: 6px; }
.bsl-bar { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.bsl-where { flex: 1 1 auto; min-width: 12em; }
.bsl-where b { font-weight: 700; }
.bsl-note { color: #595959; font-size: 0.8em; white-space: nowrap; }
.bsl-bar button { font: inherit; padding: 3px 14px; border: 1px solid #BDBDBD;
  border-radius: 6px; background: #fff; color: #111; cursor: pointer; white-space: nowrap; }
.bsl-bar button:hover:not(:disabled) { border-color: #D55E00; }
.bsl-bar button:disabled { color: #9E9E9E; cursor: default; }
.bsl-bar button.bsl-next { background: #D55E00; border-color: #D55E00; color: #fff;
  font-weight: 600; }
.bsl-bar button.bsl-next:disabled { background: #F3C9AE; border-color: #F3C9AE; color: #fff; }
.bsl-say { line-height: 1.35; }
.bsl-say p { margin: 0 0 4px 0; }
.bsl-ask { font-weight: 700; }
.bsl-ask::before { content: "?"; display: inline-block; width: 1.3em; height: 1.3em;
  margin-right: 0.4em; border-radius: 50%; background: #0072B2; color: #fff;
  text-align: center; line-height: 1.3em; font-size: 0.85em; vertical-align: 0.08em; }
.bsl-answer { background: #FFF4E5; border-left: 4px solid #E69F00; padding: 2px 8px; }
`;

class LessonHost {
  constructor(element, lesson, report) {
    this.lesson = lesson;
    this.report = report || (() => {});
    this.step = 0;
    this.revealed = false;
    this.token = 0;
    if (!document.getElementById("bsl-style")) {
      el("style", { id: "bsl-style", text: LESSON_STYLE }, document.head);
    }
    this.root = el("div", { class: "bsl", "data-testid": "boostscope-lesson" }, element);
    const bar = el("div", { class: "bsl-bar" }, this.root);
    this.where = el("div", { class: "bsl-where", "aria-live": "polite" }, bar);
    this.note = el("span", { class: "bsl-note" }, bar);
    const button = (act, text, title) => {
      const b = el("button", { type: "button", "data-act": act, class: `bsl-${act}`,
        title, text }, bar);
      b.addEventListener("mousedown", (e) => e.preventDefault());  // focus stays on the page
      b.addEventListener("click", () => this.act(act));
      return b;
    };
    this.buttons = { back: button("back", "‹ Back", "Back (←)"),
      reveal: button("reveal", "Reveal", "Reveal the answer (↓)"),
      next: button("next", "Next ›", "Next (→)") };
    const say = el("div", { class: "bsl-say" }, this.root);
    this.say = el("p", { class: "bsl-text" }, say);
    this.second = el("p", {}, say);
    this.playerBox = el("div", { class: "bsl-player" }, this.root);
    window.addEventListener("keydown", (e) => this.onKey(e), true);
    this.show();
  }

  get current() { return this.lesson.steps[this.step]; }

  // Next reveals a step's answer first, as the app's lesson bar does; Back hides it first.
  act(what) {
    const steps = this.lesson.steps;
    const asks = !!this.current.ask;
    if (what === "reveal") {
      if (!asks || this.revealed) return;
      this.revealed = true;
    } else if (what === "next") {
      if (asks && !this.revealed) this.revealed = true;
      else if (this.step < steps.length - 1) [this.step, this.revealed] = [this.step + 1, false];
      else return;
    } else if (what === "back") {
      if (this.revealed) this.revealed = false;
      else if (this.step > 0) [this.step, this.revealed] = [this.step - 1, false];
      else return;
    }
    this.show();
  }

  onKey(e) {
    if (e.ctrlKey || e.altKey || e.metaKey || textEntry(e.target)) return;
    const what = { ArrowLeft: "back", ArrowRight: "next", ArrowDown: "reveal" }[e.key];
    if (!what) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    this.act(what);
  }

  show() {
    const steps = this.lesson.steps;
    const step = this.current;
    const open = this.revealed && step.revealed ? step.revealed : null;
    const at = open ? open.at : step.at;
    this.where.replaceChildren(el("b", { text: this.lesson.title }),
      document.createTextNode(` · step ${this.step + 1} of ${steps.length}`));
    const appPanels = at.app_panels || [];
    this.note.textContent = appPanels.length ? `in the app: ${appPanels.join(", ")}` : "";
    this.note.title = appPanels.length ? "The app shows this step with these panels; the "
      + "offline file draws the fit, loss and tree, with the step's node selected." : "";
    this.say.textContent = open ? open.say : step.say;
    const second = this.revealed ? open?.reveal : step.ask;
    this.second.textContent = second || "";
    this.second.className = this.revealed ? "bsl-answer" : "bsl-ask";
    this.second.hidden = !second;
    const last = this.step === steps.length - 1 && (this.revealed || !step.ask);
    this.buttons.back.disabled = this.step === 0 && !this.revealed;
    this.buttons.reveal.disabled = !step.ask || this.revealed;
    this.buttons.next.disabled = last;
    this.goto(at);
  }

  // The player on the step's trace, panels, round and node: a new trace (or other panels)
  // mounts it again, the same one is re-targeted through goto.
  goto(at) {
    const trace = this.lesson.traces[at.trace];
    this.token += 1;
    const shown = { ...trace, id: `${trace.id}|${at.panels.join(",")}`, panels: at.panels,
      goto: { round: at.round, node: at.node ?? null, token: this.token } };
    // ← → are the lesson's; Space, Home and End play rounds
    this.player = mount(this.playerBox, shown, { report: this.report, arrows: false });
    for (const [act, title] of [["back", "Back one round"], ["step", "Step one round"]]) {
      const b = this.player.root.querySelector(`button[data-act=${act}]`);
      if (b) b.title = title;  // not "(←)", "(→)": those keys walk the lesson here
    }
    if (this.player.layout()) this.player.requestDraw();  // the text above may have grown
  }
}

// The lesson in `element`; report(name, value): what the player tells its host. The host is
// window.boostscopePlayer.lesson (its `step` and `revealed`), for tests.
export function mountLesson(element, lesson, { report } = {}) {
  const host = new LessonHost(element, lesson, report);
  registry().lesson = host;
  return host;
}
