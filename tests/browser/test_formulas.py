"""The formulas typeset in the page (viz/js/tex.js): every formula the engine writes — each
objective's loss, g, h and leaf rule, and the worked arithmetic of every node of models of
every objective, tree method and kind of step — becomes MathML with no command left unknown,
and what it draws is the arithmetic's numbers (the four points' root worked by hand)."""

import numpy as np
import pytest
from datasets import make_data
from harness import module_page

import boost
from boost.objectives import OBJECTIVES
from boost.trace.arithmetic import objective_latex
from viz.page_js import JS_DIR

pytestmark = pytest.mark.browser

FOUR_X = np.array([[10.0], [20.0], [25.0], [35.0]])
FOUR_Y = np.array([-10.0, 7.0, 8.0, -7.0])
# (parameters, data): a kind of model each (its steps: sums with "… (n rows)", T_alpha and
# max_delta_step's clip, log-odds to probability, re-estimated and first-order leaves,
# three classes, refused and pruned splits)
MODELS = [
    ({"tree_method": "exact", "base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2},
     "four"),
    ({"tree_method": "hist", "alpha": 0.5, "max_delta_step": 0.2, "gamma": 5}, "reg"),
    ({"objective": "binary:logistic", "tree_method": "exact", "gamma": 1}, "binary"),
    ({"objective": "multi:softprob", "num_class": 3, "tree_method": "approx"}, "multi"),
    ({"objective": "reg:absoluteerror", "tree_method": "hist"}, "reg"),
    ({"objective": "reg:quantileerror", "quantile_alpha": [0.1, 0.9], "tree_method": "hist"},
     "reg"),
    ({"objective": "reg:pseudohubererror", "boosting": "first_order"}, "reg"),
    ({"objective": "count:poisson", "tree_method": "hist"}, "count"),
    ({"objective": "reg:tweedie", "boosting": "first_order"}, "count"),
]


def _data(kind: str):
    if kind == "four":
        return FOUR_X, FOUR_Y
    objective = {"reg": "reg:squarederror", "binary": "binary:logistic",
                 "multi": "multi:softprob", "count": "reg:squarederror"}[kind]
    X, y = make_data(seed=3, n=120, nan=0.1, objective=objective)
    return X, (np.abs(y) + 0.5 if kind == "count" else y)


def _formulas() -> list[str]:
    out = []
    for name in OBJECTIVES:
        for boosting in ("newton", "first_order"):
            for method in ("exact", "hist"):
                out += [line for _, line in objective_latex(
                    name, {"boosting": boosting, "tree_method": method,
                           "quantile_alpha": [0.05, 0.5, 0.95]})]
    for params, kind in MODELS:
        X, y = _data(kind)
        bst = boost.train({"max_depth": 3, **params}, X, y, 2)
        trees = bst.trace.trees()
        for r, node, klass in zip(trees.Round, trees.Node, trees.Class, strict=True):
            record = bst.trace.node_record(int(r), int(node), int(klass), X=X)
            out += [step["latex"] for step in record["arithmetic"]]
    return out


TYPESET = """(formulas) => {
  const box = document.getElementById('out');
  box.innerHTML = formulas.map(f => `<div>${window.tex.mathml(f)}</div>`).join('');
  const empty = [...box.children].filter(d => d.getBoundingClientRect().height < 5).length;
  return {unknown: [...new Set(window.tex.unknown)], errors: box.querySelectorAll('merror').length,
          empty};
}"""


def test_every_formula_the_engine_writes_is_typeset(browser, tmp_path):
    formulas = _formulas()
    assert len(formulas) > 1000
    page = module_page(browser, tmp_path, JS_DIR / "tex.js", "window.tex = entry;",
                       "<div id='out'></div>", name="tex")
    result = page.evaluate(TYPESET, formulas)
    assert result == {"unknown": [], "errors": 0, "empty": 0}, result
    assert page.errors == []
    # and the check can fail: a command it does not know is named
    assert page.evaluate(TYPESET, [r"\foo{x} = 1"])["unknown"] == [r"\foo"]
    page.close()


ROOT_STEP = """(latex) => {
  const box = document.getElementById('out');
  box.innerHTML = window.tex.mathml(latex);
  const fracs = [...box.querySelectorAll('mfrac')].map(f => [...f.children]
    .map(c => c.textContent));
  const signs = [...box.querySelectorAll('mo[form=prefix]')].map(m => m.textContent);
  return {fracs, numbers: [...box.querySelectorAll('mn')].map(m => m.textContent), signs,
          width: box.querySelector('math').getBoundingClientRect().width};
}"""


TEXTS = """(latex) => { const box = document.getElementById('out');
  box.innerHTML = window.tex.mathml(latex);
  return [...box.querySelectorAll('mtext')].map(m => m.textContent); }"""


def test_the_four_points_root_as_drawn(browser, tmp_path):
    """S_L of the root: G = 10.5 over H = 1 with λ = 0, 110.25; S_R: (−6.5)² / (3 + 0), the
    minus a sign (no space after it), 14.08."""
    bst = boost.train(MODELS[0][0], FOUR_X, FOUR_Y, 1)
    steps = {s["name"]: s["latex"] for s in bst.trace.node_record(1, 0)["arithmetic"]}
    page = module_page(browser, tmp_path, JS_DIR / "tex.js", "window.tex = entry;",
                       "<div id='out'></div>", name="root")
    left = page.evaluate(ROOT_STEP, steps["similarity left"])
    assert left["fracs"] == [["G2", "H+λ"], ["(10.5)2", "1+0"]]
    assert left["numbers"][-1] == "110.25" and left["width"] > 100
    right = page.evaluate(ROOT_STEP, steps["similarity right"])
    assert right["fracs"][1] == ["(−6.5)2", "3+0"] and right["signs"] == ["−"]
    assert right["numbers"][-1] == "14.08"
    # the verdict's words as written (a \text keeps its spaces; math ignores them)
    assert page.evaluate(TEXTS, steps["gain minus gamma"]) == ["gain", "kept"]
    pruned = r"x \ge 0 \;\Rightarrow\; \text{pruned, unless a split below it is kept}"
    assert page.evaluate(TEXTS, pruned) == ["pruned, unless a split below it is kept"]
    # a \text's outer blanks (MathML trims a token's) kept as no-break spaces, and drawn: the
    # quantile loss's g reads "1 − α if m ≥ y", not "1 − αifm ≥ y"
    widths = """() => { const box = document.getElementById('out');
      box.innerHTML = window.tex.mathml(String.raw`a \\text{ if } b`)
        + window.tex.mathml(String.raw`a \\text{if} b`);
      return [...box.querySelectorAll('mtext')].map(m => m.getBoundingClientRect().width); }"""
    assert page.evaluate(TEXTS, r"1 - \alpha \text{ if } m") == ["\u00a0if\u00a0"]
    spaced, tight = page.evaluate(widths)
    assert spaced > tight + 4  # the blanks drawn (trimmed, the two were equal)
    page.close()
