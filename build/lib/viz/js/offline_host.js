// The host of the offline files (viz/export.py): the page holds its data as JSON in a
// <script type="application/json"> element, a round trace (#boostscope-trace, drawn in
// #player, the selected node's details under it from the trace's `records`) or a whole
// lesson (#boostscope-lesson, in #lesson); Plotly.js is inlined. No server to tell: the
// player's reports are kept in window.boostscopePlayer.reports.

import { el } from "./dom.js";
import { mountLesson } from "./lesson_host.js";
import { mount } from "./player.js";
import { registry } from "./registry.js";

const reports = [];
registry().reports = reports;
const report = (name, value) => reports.push({ name, value });
const json = (id) => {
  const element = document.getElementById(id);
  return element ? JSON.parse(element.textContent) : null;
};

const lesson = json("boostscope-lesson");
if (lesson) mountLesson(document.getElementById("lesson"), lesson, { report });
else {
  // a model's file: the selected node's details under the player, from the records the
  // file carries (the root until a node is clicked), as the app's tree view shows them
  const player = document.getElementById("player");
  registry().details = el("div", { id: "details" }, player.parentElement);
  mount(player, json("boostscope-trace"), { report });
}
