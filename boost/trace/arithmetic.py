"""The worked arithmetic of one node: XGBoost's formulas with the node's numbers substituted.

StatQuest's hand-made tables, generated live: similarity, gain and gamma, leaf weight and
eta, and for classification the hessian p(1 - p) and the log-odds to probability step.
Each step is its formula (LaTeX, symbols only), the numbers that enter it and come out of
it (by name), and the formula worked out with them (LaTeX: for the app, the page and
export); ``steps_table`` is the same quantities as a table (CSV). A part of the node record
(``node_record``).
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import objectives
from ..params import Params
from .rounding import rounded

# How first-order boosting finds each objective's leaf value (boost/leaves.py).
LINE_SEARCH = {
    "reg:squarederror": "the mean residual",
    "reg:absoluteerror": "the median residual",
    "reg:quantileerror": "the residuals' alpha-quantile",
    "reg:pseudohubererror": "bisection on the derivative",
    "count:poisson": "closed form, a log of a ratio of sums",
    "reg:gamma": "closed form, a log of a ratio of sums",
    "reg:tweedie": "closed form, a log of a ratio of sums",
    "binary:logistic": "Friedman's Newton step",
    "binary:logitraw": "Friedman's Newton step",
    "binary:exponential": "Friedman's Newton step",
    "multi:softprob": "Friedman's multi-class step",
    "multi:softmax": "Friedman's multi-class step",
}


def _argmin_sign(objective: str) -> str:
    """'=' where the leaf value is the exact minimiser, '\\approx' for one Newton step of it."""
    return r"\approx" if "Newton" in LINE_SEARCH.get(objective, "") else "="


# Where XGBoost's h is not the loss's second derivative.
HESS_NOTE = {
    "count:poisson": "XGBoost's: the true h times exp(max delta step), a safeguard",
    "reg:absoluteerror": "XGBoost's: the true second derivative is 0",
    "reg:quantileerror": "XGBoost's: the true second derivative is 0",
    "multi:softprob": "XGBoost's: twice the diagonal of the true hessian",
    "multi:softmax": "XGBoost's: twice the diagonal of the true hessian",
}


# LambdaMART's pairs and |ΔZ| (boost/ranking.py, docs/xgboost-rules.md §13), by pair method.
RANK_PAIRS = {
    "topk": r"\text{pairs: each of the top } k \text{ documents by } m \text{ with every "
            r"document below it}",
    "mean": r"\text{pairs: each document with } k \text{ random documents of other labels}",
}
RANK_DELTA = {
    "rank:ndcg": r"|\Delta \mathrm{NDCG}_{ij}| = \frac{|(2^{y_i} - 2^{y_j})(D_i - D_j)|}"
                 r"{\mathrm{IDCG}\,(|m_i - m_j| + 0.01)},\; D = \frac{1}{\log_2(1 + "
                 r"\text{rank})}",
    "rank:map": r"|\Delta \mathrm{MAP}_{ij}| = \frac{\text{change of average precision}}"
                r"{|m_i - m_j| + 0.01}",
    "rank:pairwise": r"\text{every pair counts the same (RankNet)}",
}


def _ranking_latex(objective: str, spec, params: dict) -> list[tuple[str, str]]:
    """LambdaMART's lines: the pairs' loss, g and h of a document as sums over its pairs
    (λ-gradients), which pairs, what a swap is worth, and the Newton leaf."""
    method = params.get("lambdarank_pair_method") or "topk"
    return [("loss", rf"l = {spec.loss}"),
            ("gradient", rf"g_i = \frac{{\partial l}}{{\partial m_i}} = {spec.grad}"
                         r"\quad\text{(each pair's }\lambda_{ij}\text{)}"),
            ("hessian", rf"h_i = {spec.hess}"),
            ("pairs", RANK_PAIRS[method]),
            ("swap", RANK_DELTA[objective]),
            ("leaf", r"w = -\frac{G}{H + \lambda}\quad\text{(Newton step)}")]
def residual_quantile(objective: str, alpha: float | None = None) -> str:
    """LaTeX of the leaf XGBoost re-estimates (hist, approx): the median of the leaf's
    residuals (absolute error), or their alpha-quantile (``alpha``: the output's own
    quantile_alpha, written as a number; None: the symbol)."""
    if not objectives.spec(objective).per_alpha:
        return r"w = \operatorname{median}_{i \in \text{leaf}}(y_i - m_i)"
    a = r"\alpha" if alpha is None else _n(alpha)
    return rf"w = \operatorname{{quantile}}_{{{a}}}\,(y_i - m_i)_{{i \in \text{{leaf}}}}"


def objective_latex(objective: str, params: dict) -> list[tuple[str, str]]:
    """(label, LaTeX) lines: the objective's loss, its g and h, and how leaves are set."""
    spec = objectives.spec(objective)
    if spec.task == "ranking":
        return _ranking_latex(objective, spec, params)
    first_order = params.get("boosting", "newton") == "first_order"
    lines = [("loss", rf"l(y, m) = {spec.loss}"),
             ("gradient", rf"g = \frac{{\partial l}}{{\partial m}} = {spec.grad}"),
             ("hessian", rf"h = {spec.hess}" + (rf"\quad\text{{({HESS_NOTE[objective]})}}"
                                                if objective in HESS_NOTE else ""))]
    alphas = params.get("quantile_alpha")
    if spec.per_alpha and alphas:
        listed = r",\ ".join(_n(float(a)) for a in np.atleast_1d(alphas))
        lines.append(("quantiles", rf"\alpha \in \{{{listed}\}}\quad\text{{(one tree per "
                                   r"quantile every round)}}"))
    if first_order:
        lines.append(("tree", r"\text{first-order: the tree fits } -g \text{ by least "
                              r"squares } (h \equiv 1)"))
        sign = _argmin_sign(objective)
        lines.append(("leaf", rf"w {sign} \arg\min_v \sum_{{i \in \text{{leaf}}}} "
                              r"l(y_i, m_i + v)"
                              rf"\quad\text{{({LINE_SEARCH[objective]})}}"))
    elif spec.adaptive_leaf and params.get("tree_method", "exact") != "exact":
        lines.append(("leaf", residual_quantile(objective)
                      + r"\quad\text{(XGBoost re-estimates each leaf; exact keeps the "
                        r"Newton step)}"))
    else:
        lines.append(("leaf", r"w = -\frac{G}{H + \lambda}\quad\text{(Newton step)}"))
    return lines


@dataclass(frozen=True)
class Step:
    """One step: ``formula`` in symbols, the ``numbers`` that enter it and its result (by
    name), ``latex`` the formula worked out with them, ``value`` its result (NaN for a step
    that lists), ``verdict`` what it decides (gain minus γ: kept, pruned, split, refused)."""

    name: str
    latex: str
    value: float
    formula: str = ""
    numbers: dict = field(default_factory=dict)
    verdict: str = ""


def _n(x: float) -> str:
    """A number for LaTeX, as a reader sees every number (``rounding.rounded``: 120.33,
    1{,}234.6), minus signs kept as such."""
    if x is None or x != x:
        return r"\text{n/a}"
    text = rounded(x).replace(",", "{,}")
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


def _term(x: float) -> str:
    """``_n`` in parentheses when negative, for a number after + or x."""
    return f"({_n(x)})" if x < 0 else _n(x)


WIDE = 30  # about the visible characters a line of the arithmetic column holds at 1280 px


def _width(latex: str) -> int:
    """A rough width: the characters left without commands, braces, scripts' marks and
    spaces (a fraction counts both its lines: too wide rather than cut off)."""
    return len(re.sub(r"\\[A-Za-z]+|[{}_^ ]", "", latex))


def _chain(lhs: str, *rhs: str, wide: int = WIDE) -> str:
    """``lhs = rhs[0] = ... = rhs[-1]`` on one line, or with the result on a second line
    when one line would run past the column (``wide``: its ``_width``)."""
    line = " = ".join((lhs, *rhs))
    if _width(line) <= wide or len(rhs) < 2:
        return line
    return (rf"\begin{{aligned}}{lhs} &= {' = '.join(rhs[:-1])} \\ &= {rhs[-1]}"
            r"\end{aligned}")


ALL_ROWS = 8  # a node with this many rows or fewer lists every row's g and h
FIRST_ROWS = 4  # a larger node lists this many, then "… (n rows)"
PER_LINE = 4  # terms per line of a sum (the arithmetic sits in half the page)


def _listed(values: np.ndarray, sep: str) -> list[str]:
    """The terms of a row list: all of them for a small node, else the first few and
    ``… (n rows)``; each as ``_n`` writes it."""
    shown = values if len(values) <= ALL_ROWS else values[:FIRST_ROWS]
    # a negative term: in parentheses after +, in braces after & (else a binary minus)
    terms = [(f"({_n(x)})" if sep == "+" else f"{{{_n(x)}}}") if x < 0 else _n(x)
             for x in shown]
    if len(values) > len(shown):
        terms.append(rf"\dots\ ({len(values):,}\ \text{{rows}})".replace(",", "{,}"))
    return terms


def _paren(formula: str) -> str:
    """A per-row formula as a factor: in parentheses when it is a sum or difference (a + or
    - outside every bracket: m - y, not p(1 - p))."""
    depth = 0
    for ch in formula:
        depth += (ch in "({[") - (ch in ")}]")
        if depth == 0 and ch in "+-":
            return f"({formula})"
    return formula


def _sum_line(symbol: str, per_row: str, values: np.ndarray, total: float) -> str:
    """G (or H) as the sum of the rows' terms, ``PER_LINE`` terms a line. The per-row
    formula is repeated in the sum when it is short (the line above gives it anyway)."""
    terms = _listed(values, "+")
    chunks = [" + ".join(terms[i:i + PER_LINE]) for i in range(0, len(terms), PER_LINE)]
    body = r" \\ &\quad + ".join(chunks)
    formula = (rf" = \sum_i {per_row}" if len(per_row) <= 30 and "," not in per_row
               and r"\frac" not in per_row else "")
    return (rf"\begin{{aligned}}{symbol} &= \sum_i {symbol.lower()}_i{formula}"
            rf" \\ &= {body} \\ &= {_n(total)}\end{{aligned}}")


# The similarity in symbols, by whether α (L1) is set.
SIMILARITY = {False: r"\frac{G^2}{H + \lambda}", True: r"\frac{T_\alpha(G)^2}{H + \lambda}"}


def _sim_step(name: str, G: float, H: float, reg_lambda: float, alpha: float, label: str,
              value: float) -> Step:
    """A similarity: ``S = G²/(H + λ) = (numbers) = value``, the value on a line of its own
    when it would run past the column (two fractions' lines count double in ``_width``: 40,
    not 30)."""
    lhs, symbols = rf"S_{{{label}}}", SIMILARITY[bool(alpha)]
    top = rf"(|{_n(G)}| - {_n(alpha)})_+^2" if alpha else rf"({_n(G)})^2"
    latex = _chain(lhs, symbols, rf"\frac{{{top}}}{{{_n(H)} + {_n(reg_lambda)}}}", _n(value),
                   wide=WIDE + 10)
    numbers = {"G": G, "H": H, "lambda": reg_lambda} | ({"alpha": alpha} if alpha else {})
    return Step(name, latex, value, formula=f"{lhs} = {symbols}",
                numbers=numbers | {"S": value})


GAIN = r"\text{gain} = S_L + S_R - S_{node}"
# What gain minus γ decides: (exact, gain >= γ) -> the outcome. exact prunes after growing,
# hist/approx refuse before: no split below can rescue a refused node.
VERDICTS = {(True, True): "kept", (True, False): "pruned, unless a split below it is kept",
            (False, True): "split", (False, False): "refused: the node stays a leaf"}


def _row_steps(rows: pd.DataFrame, spec, first_order: bool, G: float, H: float) -> list[Step]:
    """The node's rows, as the audience saw them: residuals (identity link; not for ranking,
    whose g come from pairs of documents, not from y − m), then G and H as the sums of the
    rows' g and h."""
    steps = []
    weighted = "w" in rows.columns
    if spec.link == "identity" and spec.task != "ranking":
        terms = _listed((rows.y - rows.m).to_numpy(), ",")
        lines = [r",\ ".join(terms[i:i + PER_LINE]) for i in range(0, len(terms), PER_LINE)]
        steps.append(Step("residuals", r"\begin{aligned}&\text{residuals } y_i - m_i: \\ &"
                          + r", \\ &".join(lines) + r"\end{aligned}", float("nan"),
                          formula=r"y_i - m_i"))
    w = r"w_i\," if weighted else ""
    hess = ("w_i" if weighted else "1") if first_order else w + _paren(spec.hess)
    steps.append(Step("G", _sum_line("G", w + _paren(spec.grad), rows.g.to_numpy(), G), G,
                      formula=r"G = \sum_i g_i", numbers={"G": G}))
    steps.append(Step("H (cover)", _sum_line("H", hess, rows.h.to_numpy(), H), H,
                      formula=r"H = \sum_i h_i", numbers={"H": H}))
    return steps


def worked_arithmetic(node: pd.Series, best: pd.Series | None, params: Params,
                      base_margin: float | None = None,
                      rows: pd.DataFrame | None = None) -> list[Step]:
    """Steps for one node (a row of trees_to_dataframe, ``NodeDetail.numbers``) and, if it
    was split, its chosen candidate (a row of split_candidates with Best = True). ``params``:
    the model's parameters (``Booster.search_params``). ``rows`` (``NodeDetail.rows``): the
    node's rows, listed in the sums G and H."""
    lam, alpha, eta, gamma, mds = (float(v) for v in (
        params.reg_lambda, params.alpha, params.eta, params.gamma, params.max_delta_step))
    objective = params.objective
    G, H = float(node.SumGrad), float(node.SumHess)
    first_order = params.boosting == "first_order"
    spec = objectives.spec(objective)
    steps = []
    hess = r"1\ \text{(first-order: least squares on } -g)" if first_order else spec.hess
    per_row = rf"g_i = {spec.grad},\qquad h_i = {hess}"
    shown = per_row
    if _width(per_row) > 50:  # (LambdaMART's sums over pairs): one formula a line
        shown = rf"\begin{{aligned}}g_i &= {spec.grad}, \\ h_i &= {hess}\end{{aligned}}"
    alpha_k = None
    if spec.per_alpha:  # the output's own quantile
        alpha_k = objectives.leaf_alphas(objective, params.loss)[int(node.get("Class", 0))]
        per_row += rf",\qquad \alpha = {_n(alpha_k)}"
        shown = per_row
    steps.append(Step("per row", shown, float("nan"), formula=per_row))
    if rows is None:
        steps.append(Step("G", rf"G = \sum_i g_i = {_n(G)}", G, formula=r"G = \sum_i g_i",
                          numbers={"G": G}))
        steps.append(Step("H (cover)", rf"H = \sum_i h_i = {_n(H)}", H,
                          formula=r"H = \sum_i h_i", numbers={"H": H}))
    else:
        steps += _row_steps(rows, spec, first_order, G, H)
    steps.append(_sim_step("similarity", G, H, lam, alpha, "node", float(node.Similarity)))
    if best is not None:
        sl, sr = float(best.SimilarityLeft), float(best.SimilarityRight)
        steps.append(_sim_step("similarity left", float(best.SumGradLeft),
                               float(best.SumHessLeft), lam, alpha, "L", sl))
        steps.append(_sim_step("similarity right", float(best.SumGradRight),
                               float(best.SumHessRight), lam, alpha, "R", sr))
        gain = float(best.Gain)
        sums = rf"{_n(sl)} + {_n(sr)} - {_n(float(best.SimilarityParent))}"
        result = (rf" = {_n(gain)}" if _width(f"{sums} = {_n(gain)}") <= WIDE
                  else rf" \\ &= {_n(gain)}")
        steps.append(Step("gain", rf"\begin{{aligned}}{GAIN.replace(' = ', ' &= ', 1)}"
                          rf" \\ &= {sums}{result}\end{{aligned}}", gain, formula=GAIN,
                          numbers={"S_L": sl, "S_R": sr,
                                   "S_node": float(best.SimilarityParent), "gain": gain}))
        outcome = VERDICTS[params.tree_method == "exact", gain >= gamma]
        verdict = (r"\ge 0" if gain >= gamma else "< 0") + rf" \;\Rightarrow\; \text{{{outcome}}}"
        steps.append(Step("gain minus gamma", rf"\begin{{aligned}}\text{{gain}} - \gamma &= "
                          rf"{_n(gain)} - {_n(gamma)} = {_n(gain - gamma)} \\ &{verdict}"
                          rf"\end{{aligned}}", gain - gamma, formula=r"\text{gain} - \gamma",
                          numbers={"gain": gain, "gamma": gamma, "difference": gain - gamma},
                          verdict=outcome))
    weight = float(node.Weight)
    refit = node.Feature == "Leaf" and (first_order or (
        spec.adaptive_leaf and params.tree_method != "exact"))
    if refit and first_order:
        how = LINE_SEARCH.get(objective, "line search")
        line = (rf"w {_argmin_sign(objective)} \arg\min_v "
                r"\sum_{i \in \text{leaf}} l(y_i, m_i + v)")
        steps.append(Step("leaf weight", rf"{line} = {_n(weight)}\quad \text{{({how})}}",
                          weight, formula=line, numbers={"w": weight}))
    elif refit:
        line = residual_quantile(objective, alpha_k)
        # two lines: the quantile's subscripts leave no room for the note beside it
        steps.append(Step("leaf weight", r"\begin{aligned}" + line.replace("=", "&=", 1)
                          + rf" = {_n(weight)} \\ &\text{{(XGBoost re-estimates the leaf)}}"
                          r"\end{aligned}", weight, formula=line,
                          numbers={"w": weight} | ({"alpha": alpha_k} if spec.per_alpha
                                                   else {})))
    else:
        formula = (r"w = -\frac{T_\alpha(G)}{H + \lambda}" if alpha
                   else r"w = -\frac{G}{H + \lambda}")
        raw = -math.copysign(max(abs(G) - alpha, 0.0), G) / (H + lam) if H + lam else 0.0
        clip = (rf",\ \text{{clipped to }} \pm {_n(mds)}" if mds and abs(raw) > mds else "")
        numerator = rf"T_\alpha({_n(G)})" if alpha else _n(G)
        numbers = {"G": G, "H": H, "lambda": lam} | ({"alpha": alpha} if alpha else {})
        numbers |= {"max_delta_step": mds} if clip else {}
        steps.append(Step("leaf weight", _chain(formula, rf"-\frac{{{numerator}}}"
                                                        rf"{{{_n(H)} + {_n(lam)}}}",
                                                        f"{_n(weight)}{clip}"), weight,
                          formula=formula, numbers=numbers | {"w": weight}))
    value = float(node.Value)
    lhs = r"\eta \cdot w"
    steps.append(Step("leaf value", _chain(lhs, rf"{_n(eta)} \times {_term(weight)}",
                                           _n(value)), value, formula=lhs,
                      numbers={"eta": eta, "w": weight, "value": value}))
    if spec.link == "sigmoid" and base_margin is not None:
        m = base_margin + value
        p = 1.0 / (1.0 + math.exp(-m))
        # Two lines (as the gain): on one, p ran past the column's edge and was cut off.
        steps.append(Step("log-odds to probability",
                          rf"\begin{{aligned}}\text{{from the baseline: }} m &= "
                          rf"{_n(base_margin)} + {_term(value)} = {_n(m)} \\ "
                          rf"p &= \frac{{1}}{{1 + e^{{-m}}}} = {_n(p)}\end{{aligned}}", p,
                          formula=r"m = m_0 + \eta w,\quad p = \frac{1}{1 + e^{-m}}",
                          numbers={"m0": base_margin, "value": value, "m": m, "p": p}))
    return steps


STEPS_COLUMNS = ("quantity", "value", "latex")  # the steps as a table, and as its CSV


def _step_row(s: Step) -> tuple:
    return s.name, s.value, s.latex


def steps_table(steps: list[Step]) -> pd.DataFrame:
    rows = [_step_row(s) for s in steps]
    return pd.DataFrame({c: [row[i] for row in rows] for i, c in enumerate(STEPS_COLUMNS)})


def steps_csv(steps: list[Step]) -> str:
    """``steps_table(steps).to_csv(index=False)``'s text, written without the table (a
    node record's download, made at every click: the table and pandas' writer cost ~1 ms):
    a missing value is an empty field, a number its shortest exact form."""
    out = io.StringIO()
    write = csv.writer(out, lineterminator="\n").writerow
    write(STEPS_COLUMNS)
    for name, value, latex in map(_step_row, steps):
        write((name, "" if value is None or value != value else repr(float(value)), latex))
    return out.getvalue()


def steps_latex(steps: list[Step], title: str) -> str:
    """A standalone LaTeX fragment (align* environment) for slides."""
    body = " \\\\\n".join(f"& {s.latex}" for s in steps)
    return f"% {title}\n\\begin{{align*}}\n{body}\n\\end{{align*}}\n"
