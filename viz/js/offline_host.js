// The host of the offline files (viz/export.py): the page holds its data as JSON in a
// <script type="application/json"> element, a round trace (#boostscope-trace, drawn in
// #player) or a whole lesson (#boostscope-lesson, in #lesson); Plotly.js is inlined. No
// server to tell: the player's reports are kept in window.boostscopePlayer.reports.

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
else mount(document.getElementById("player"), json("boostscope-trace"), { report });
