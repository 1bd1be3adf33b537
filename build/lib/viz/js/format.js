// Python's number formats in the page: "{:.4g}" (pyG) and "{:,.0f}" (pyF0), so that the tree's
// labels read exactly as viz/tree_layout.py writes them; ties are rounded half to even on the
// exact binary value as Python does (toPrecision and toFixed round ties away from zero). And
// `rounded`, boost/trace/rounding.py's rule for a number shown to a reader (a lesson's text,
// the tree's labels, the node's box): its constants and rule are that module's.

function exactDigits(x) {  // x > 0, finite: its leading 101 decimal digits and exponent
  const [mantissa, exp] = x.toExponential(100).split("e");
  return { digits: mantissa.replace(".", ""), exp: Number(exp) };
}

// to p >= 1 significant digits, ties half to even (Python's) or away from zero (halfUp)
function roundDigits(digits, exp, p, halfUp = false) {
  const keep = digits.slice(0, p).padEnd(p, "0");
  const rest = digits.slice(p);
  const up = rest[0] > "5" || (rest[0] === "5"
    && (halfUp || /[1-9]/.test(rest.slice(1)) || Number(keep[p - 1]) % 2 === 1));
  if (!up) return { digits: keep, exp };
  const d = keep.split("").map(Number);
  let i = p - 1;
  while (i >= 0 && d[i] === 9) d[i--] = 0;
  if (i < 0) return { digits: "1" + "0".repeat(p - 1), exp: exp + 1 };
  d[i] += 1;
  return { digits: d.join(""), exp };
}

function special(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  return null;
}

const signOf = (x) => (x < 0 || Object.is(x, -0) ? "-" : "");

// Python's f"{x:.{p}g}"
export function pyG(x, p) {
  const s = special(x);
  if (s) return s;
  p = Math.max(1, p);
  const sign = signOf(x);
  if (x === 0) return sign + "0";
  const { digits, exp: e0 } = exactDigits(Math.abs(x));
  const { digits: d, exp } = roundDigits(digits, e0, p);
  if (exp >= -4 && exp < p) {
    const int = exp >= 0 ? d.slice(0, exp + 1) : "0";
    const frac = (exp >= 0 ? d.slice(exp + 1) : "0".repeat(-exp - 1) + d).replace(/0+$/, "");
    return sign + int + (frac ? "." + frac : "");
  }
  const frac = d.slice(1).replace(/0+$/, "");
  const e = String(Math.abs(exp)).padStart(2, "0");
  return `${sign}${d[0]}${frac ? "." + frac : ""}e${exp < 0 ? "-" : "+"}${e}`;
}

// Python's f"{x:.0f}" (and f"{x:,.0f}" with comma)
export function pyF0(x, comma = false) {
  const s = special(x);
  if (s) return s;
  const sign = signOf(x);
  let int = "0";
  if (x !== 0) {
    const { digits, exp } = exactDigits(Math.abs(x));
    const p = exp + 1;  // the integer's digits
    if (p === 0) {  // 0.1 <= |x| < 1: 0 or 1, a tie (0.5) goes to 0
      int = digits[0] > "5" || (digits[0] === "5" && /[1-9]/.test(digits.slice(1))) ? "1" : "0";
    } else if (p > 0) {
      const r = roundDigits(digits, exp, p);
      int = r.digits + "0".repeat(r.exp - exp);
    }
  }
  if (comma) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return sign + int;
}

// boost/trace/rounding.py's rule (its docstring says it; DECIMALS and SIGNIFICANT are its)
const DECIMALS = 2;
const SIGNIFICANT = [3, 5];
const TINY = -5;

function places(exp) {  // the decimals shown of a number whose leading digit is at 10**exp
  return exp < 0 ? SIGNIFICANT[0] - 1 - exp
    : Math.max(0, Math.min(DECIMALS, SIGNIFICANT[1] - 1 - exp));
}

export function rounded(x) {
  if (Number.isNaN(x)) return "n/a";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return "0";
  const { digits, exp: e0 } = exactDigits(Math.abs(x));
  const sign = x < 0 ? "-" : "";
  if (e0 <= TINY) {  // in powers of ten
    const { digits: d, exp } = roundDigits(digits, e0, SIGNIFICANT[0], true);
    const frac = d.slice(1).replace(/0+$/, "");
    return `${sign}${d[0]}${frac ? "." + frac : ""}e-${String(-exp).padStart(2, "0")}`;
  }
  const keep = places(e0);  // at least one significant digit: the rule keeps 3 below 1
  const { digits: d, exp } = roundDigits(digits, e0, e0 + 1 + keep, true);
  let int = "0";
  let frac = "0".repeat(Math.max(0, -exp - 1)) + d;
  if (exp >= 0) {
    int = d.slice(0, exp + 1).padEnd(exp + 1, "0");
    frac = d.slice(exp + 1);
  }
  frac = frac.slice(0, keep).replace(/0+$/, "");
  int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const text = int + (frac ? "." + frac : "");
  return text === "0" ? "0" : sign + text;
}
