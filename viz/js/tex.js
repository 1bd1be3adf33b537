// The formulas typeset in the page: the LaTeX BoostScope writes (the worked arithmetic of
// boost/trace/arithmetic.py, the objectives' loss, g and h) as MathML, which the browser
// draws itself: nothing loaded from anywhere, in the app, the offline files and a notebook
// alike. It reads the part of LaTeX those formulas use (docs/player.md, "The formulas"):
// fractions, roots, scripts, \left( \right), \text, \operatorname, accents, Greek letters,
// the spaces, and the aligned environment; any other command is drawn as itself in an
// <merror> and listed in `unknown`, which a test keeps empty for every formula the engine
// writes.

const GREEK = { alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", eta: "η",
  theta: "θ", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", pi: "π", rho: "ρ", sigma: "σ",
  tau: "τ", phi: "φ", chi: "χ", psi: "ψ", omega: "ω", Gamma: "Γ", Delta: "Δ", Sigma: "Σ",
  Omega: "Ω" };
const OPERATORS = { times: "×", cdot: "·", pm: "±", ge: "≥", geq: "≥", le: "≤", leq: "≤",
  approx: "≈", equiv: "≡", neq: "≠", ne: "≠", Rightarrow: "⇒", rightarrow: "→", to: "→",
  in: "∈", partial: "∂", infty: "∞", dots: "…", ldots: "…", cdots: "⋯", mid: "∣",
  "{": "{", "}": "}", "|": "‖" };
const FUNCTIONS = new Set(["log", "exp", "ln", "min", "max", "arg", "sin", "cos"]);
const LARGE = { sum: "∑", prod: "∏" };
const SPACES = { ",": "0.1667em", ":": "0.2222em", ";": "0.2778em", " ": "0.3333em",
  quad: "1em", qquad: "2em", "!": "-0.1667em" };
const STYLES = new Set(["displaystyle", "textstyle"]);

const UNARY_AFTER = new Set(["(", "[", "=", ",", "<", ">", "+", "-", "/"]);

export const unknown = [];  // commands met that this module does not know, in order

const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// Tokens: a command (\name, or \ and one other character), a number (1{,}000.5 is one),
// a letter, or any other single character; blanks dropped (LaTeX ignores them in maths).
function tokenize(tex) {
  const out = [];
  const re = /\\([A-Za-z]+|.)|(\d+(?:\{,\}\d+)*(?:\.\d+)?|\.\d+)|(\s+)|(.)/gsy;
  let m;
  while ((m = re.exec(tex)) !== null) {
    if (m[1] !== undefined) out.push({ cmd: m[1] });
    else if (m[2] !== undefined) out.push({ num: m[2].replace(/\{,\}/g, ",") });
    else if (m[3] !== undefined) out.push({ ws: true });  // a space: \text keeps it
    else if (m[4] !== undefined) out.push({ ch: m[4] });
  }
  return out;
}

class Parser {
  constructor(tex) {
    this.tokens = tokenize(tex);
    this.i = 0;
  }

  skip() { while (this.tokens[this.i]?.ws) this.i += 1; }  // math ignores spaces

  peek() { this.skip(); return this.tokens[this.i]; }

  next() { this.skip(); return this.tokens[this.i++]; }

  // Atoms until `}`, `&`, `\\`, \end or \right (left for the caller), or the end.
  list(stop = () => false) {
    const items = [];
    let after = null;  // the token before this one in the list (null: the list's start)
    for (let t = this.peek(); t; t = this.peek()) {
      if (t.ch === "}" || t.ch === "&" || t.cmd === "\\" || t.cmd === "end"
        || t.cmd === "right" || stop(t)) break;
      // a sign, not an operation: at the start, after an opening bracket or an operator
      // (−6.5, (−6.5), = −1): no space around it, as TeX sets it
      if ((t.ch === "-" || t.ch === "+") && (after === null || UNARY_AFTER.has(after.ch)
        || (after.cmd && OPERATORS[after.cmd] && !"{}|".includes(after.cmd)))) {
        this.next();
        items.push(`<mo form="prefix" lspace="0" rspace="0">${t.ch === "-" ? "−" : "+"}</mo>`);
        after = t;
        continue;
      }
      after = t;
      items.push(this.scripted());
    }
    return items.join("");
  }

  // An atom with its scripts: x_i, x^2, x_i^2, \sum_{i}
  scripted() {
    const start = this.peek();
    const named = start?.cmd && (FUNCTIONS.has(start.cmd) || start.cmd === "operatorname");
    const after = named ? '<mspace width="0.1667em"></mspace>' : "";  // log p: a thin space
    let base = this.atom();
    let sub = null;
    let sup = null;
    for (let t = this.peek(); t && (t.ch === "_" || t.ch === "^"); t = this.peek()) {
      this.next();
      const arg = this.argument();
      if (t.ch === "_") sub = arg; else sup = arg;
    }
    if (sub === null && sup === null) return base + after;
    const large = start?.cmd && (LARGE[start.cmd] || start.cmd === "min" || start.cmd === "max"
      || start.cmd === "arg");
    if (large) {  // limits under and over, as in display style
      const limits = sub !== null && sup !== null ? `<munderover>${base}${sub}${sup}</munderover>`
        : sub !== null ? `<munder>${base}${sub}</munder>` : `<mover>${base}${sup}</mover>`;
      return limits + after;
    }
    if (base === "") base = "<mrow></mrow>";
    if (sub !== null && sup !== null) return `<msubsup>${base}${sub}${sup}</msubsup>${after}`;
    return (sub !== null ? `<msub>${base}${sub}</msub>` : `<msup>${base}${sup}</msup>`) + after;
  }

  // One argument of a command or a script: a group, or a single token's atom.
  argument() {
    const t = this.peek();
    if (t?.ch === "{") {
      this.next();
      const inner = this.list();
      this.expect("}");
      return `<mrow>${inner}</mrow>`;
    }
    if (t?.num !== undefined) {  // \tfrac12: one digit each
      const digit = t.num[0];
      if (t.num.length > 1) t.num = t.num.slice(1); else this.next();
      return `<mn>${digit}</mn>`;
    }
    return this.atom();
  }

  // The raw text of a {group} (\text, \operatorname, \begin's name)
  text() {
    this.expect("{");
    let out = "";
    let depth = 0;
    for (let t = this.tokens[this.i++]; t; t = this.tokens[this.i++]) {
      if (t.ws) { out += " "; continue; }
      if (t.ch === "{") depth += 1;
      if (t.ch === "}" && depth-- === 0) return out;
      out += t.cmd !== undefined ? (t.cmd.length === 1 ? t.cmd : `\\${t.cmd} `)
        : t.num ?? t.ch;
    }
    return out;
  }

  expect(ch) {
    const t = this.next();
    if (t?.ch !== ch) throw new Error(`expected ${ch}`);
  }

  atom() {
    const t = this.next();
    if (!t) return "";
    if (t.num !== undefined) return `<mn>${t.num}</mn>`;
    if (t.ch !== undefined) {
      if (t.ch === "{") {
        const inner = this.list();
        this.expect("}");
        return `<mrow>${inner}</mrow>`;
      }
      if (/[A-Za-z]/.test(t.ch)) return `<mi>${t.ch}</mi>`;
      if (t.ch === "'") return "<mo>′</mo>";
      const fence = "()[]|".includes(t.ch) ? ' stretchy="false"' : "";
      return `<mo${fence}>${esc(t.ch === "-" ? "−" : t.ch)}</mo>`;
    }
    return this.command(t.cmd);
  }

  command(c) {
    if (GREEK[c]) return `<mi>${GREEK[c]}</mi>`;
    if (OPERATORS[c]) return `<mo>${esc(OPERATORS[c])}</mo>`;
    if (LARGE[c]) return `<mo largeop="true" movablelimits="false">${LARGE[c]}</mo>`;
    if (FUNCTIONS.has(c)) return `<mi>${c}</mi>`;
    if (SPACES[c]) return `<mspace width="${SPACES[c]}"></mspace>`;
    if (STYLES.has(c)) return "";  // formulas are set in display style already
    if (c === "_") return "<mi>_</mi>";
    if (c === "frac" || c === "tfrac" || c === "dfrac") {
      const num = this.argument();
      const den = this.argument();
      return `<mfrac>${num}${den}</mfrac>`;
    }
    if (c === "sqrt") return `<msqrt>${this.argument()}</msqrt>`;
    if (c === "tilde" || c === "hat" || c === "bar") {
      const mark = { tilde: "~", hat: "^", bar: "¯" }[c];
      return `<mover accent="true">${this.argument()}<mo>${mark}</mo></mover>`;
    }
    if (c === "text" || c === "mathrm") {
      // (MathML trims a token's outer blanks: \text{ if } keeps its spaces as no-break ones)
      const words = this.text().replace(/\\ /g, " ")
        .replace(/^ +| +$/g, (b) => "\u00a0".repeat(b.length));
      return `<mtext>${esc(words.replace(/\\(.)/g, "$1"))}</mtext>`;
    }
    if (c === "operatorname") return `<mi>${esc(this.text())}</mi>`;
    if (c === "left") {
      const open = this.fence();
      const inner = this.list();
      const close = this.peek()?.cmd === "right" ? (this.next(), this.fence()) : "";
      return `<mrow>${open}${inner}${close}</mrow>`;
    }
    if (c === "begin") return this.environment(this.text());
    unknown.push(`\\${c}`);
    return `<merror><mtext>\\${esc(c)}</mtext></merror>`;
  }

  fence() {  // the delimiter after \left or \right ("." for none)
    const t = this.next();
    const ch = t?.ch ?? OPERATORS[t?.cmd] ?? "";
    return ch === "." || !ch ? "" : `<mo stretchy="true">${esc(ch)}</mo>`;
  }

  // \begin{aligned} rows \\ of cells & ... \end{aligned}: a table, its columns aligned
  // right, left, right, left as LaTeX's aligned.
  environment(name) {
    const rows = [];
    let cells = [];
    for (;;) {
      cells.push(`<mtd>${this.list()}</mtd>`);
      const t = this.next();
      if (!t || t.cmd === "end") {
        if (t) this.text();
        rows.push(cells);
        break;
      }
      if (t.cmd === "\\") { rows.push(cells); cells = []; }
      // (&: the next cell of this row)
    }
    const wide = Math.max(...rows.map((r) => r.length));
    const align = Array.from({ length: wide }, (_, k) => (k % 2 ? "left" : "right")).join(" ");
    const body = rows.map((r) => `<mtr>${r.join("")}</mtr>`).join("");
    if (name !== "aligned" && name !== "align*") unknown.push(`\\begin{${name}}`);
    return `<mtable columnalign="${align}" columnspacing="0" rowspacing="0.35em" `
      + `displaystyle="true">${body}</mtable>`;
  }
}

// The MathML of a LaTeX formula: a <math> element's markup in display style (fractions and
// sums full size), inline, so that it starts at the left of the line its block gives it.
export function mathml(tex) {
  const p = new Parser(tex);
  let body = p.list();
  while (p.i < p.tokens.length) {  // a stray } or & or \\ at the top: drawn as what it is
    const t = p.next();
    body += t.cmd === "\\" ? "" : `<mo>${esc(t.ch ?? t.cmd ?? "")}</mo>`;
    body += p.list();
  }
  return `<math displaystyle="true"><mrow>${body}</mrow></math>`;
}
