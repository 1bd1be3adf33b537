"""The tree figure stays readable: every node has a label and no two labels overlap, up to
depth 6 at the tree view's widths (820 px in a 1280 px window with the sidebar, 1200 px
without) and a presenter's (700 px), in both font sizes.

Text boxes are estimated from the figure alone: 0.6 x font size per character, 1.2 x font size
per line, centred on the text's point, converted to pixels through the figure's width,
height, margins and (fixed) axis ranges.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

import boost
from viz.theme import signs
from viz.tree import make_tree_figure
from viz.tree_layout import default_collapsed, name_lines, num

WIDTHS = [(1200, False), (1200, True), (820, False), (820, True), (700, False), (700, True)]
NAMES = ["bmi", "s5_serum_triglycerides", "age", "blood_pressure_mean", "x4"]


def _boxes(fig) -> list[tuple[float, float, float, float, str]]:
    """(left, top, right, bottom, text) in px of every text drawn on the figure's data."""
    lay = fig.layout
    m = lay.margin
    plot_w, plot_h = lay.width - m.l - m.r, lay.height - m.t - m.b
    (x0, x1), (y0, y1) = lay.xaxis.range, lay.yaxis.range
    boxes = []
    for trace in fig.data:
        if "text" not in (trace.mode or "") or trace.text is None:
            continue
        assert trace.textposition in (None, "middle center")  # centred on the point
        font = trace.textfont.size
        for x, y, text in zip(trace.x, trace.y, trace.text, strict=True):
            lines = text.split("<br>")
            w = max(len(line) for line in lines) * 0.6 * font
            h = len(lines) * 1.2 * font
            px = m.l + (x - x0) / (x1 - x0) * plot_w
            py = m.t + (y1 - y) / (y1 - y0) * plot_h
            boxes.append((px - w / 2, py - h / 2, px + w / 2, py + h / 2, text))
    return boxes


def _assert_readable(fig, tree: pd.DataFrame, large: bool) -> None:
    boxes = _boxes(fig)
    for a, b in itertools.combinations(boxes, 2):
        overlap = (min(a[2], b[2]) > max(a[0], b[0]) + 1e-6
                   and min(a[3], b[3]) > max(a[1], b[1]) + 1e-6)
        assert not overlap, (a, b)
    m = fig.layout.margin
    for left, top, right, bottom, text in boxes:  # inside the plot, left to right
        assert left >= m.l - 1e-6 and right <= fig.layout.width - m.r + 1e-6, text
        assert top >= m.t - 1e-6 and bottom <= fig.layout.height - m.b + 1e-6, text
    labels = next(t for t in fig.data if t.name == "node labels")
    assert sorted(labels.customdata) == sorted(tree.Node)  # every node has a label
    assert all(text for text in labels.text)
    minimum = 16 if large else 13
    assert all(t.textfont.size >= minimum for t in fig.data if "text" in (t.mode or ""))


def full_tree(depth: int) -> pd.DataFrame:
    """A hand-made complete tree (2**depth leaves) in trees_to_dataframe's columns, with long
    feature names and numbers of every size."""
    rng = np.random.default_rng(depth)
    rows = []
    for node in range(2 ** (depth + 1) - 1):
        d = int(np.log2(node + 1))
        leaf = d == depth
        g, h = rng.normal(0, 5000), rng.uniform(1, 40)
        rows.append({
            "Tree": 0, "Node": node, "ID": f"0-{node}",
            "Feature": "Leaf" if leaf else NAMES[node % len(NAMES)],
            "Split": np.nan if leaf else rng.normal(0, 0.05) * 10.0 ** rng.integers(-3, 5),
            "Yes": None if leaf else f"0-{2 * node + 1}",
            "No": None if leaf else f"0-{2 * node + 2}",
            "Missing": None if leaf else f"0-{2 * node + 2 - node % 2}",
            "Gain": -0.3 * g / (h + 1) if leaf else abs(rng.normal(0, 30000)),
            "Cover": h, "Round": 1, "Class": 0, "Depth": d, "Parent": (node - 1) // 2,
            "SumGrad": g, "SumHess": h, "Similarity": g * g / (h + 1),
            "Weight": -g / (h + 1), "Value": -0.3 * g / (h + 1), "Leaf": leaf,
            "Pruned": False, "Reason": "max_depth" if leaf else ""})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def trained_trees() -> list[pd.DataFrame]:
    """Trees of depth 1..6 from the engine (exact and hist, pruned ghosts and refused
    stubs among them), on 600 rows of 5 features, one with missing values."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5)) * [1, 100, 0.01, 10, 1e4]
    y = np.sin(X[:, 0]) * 50 + X[:, 1] / 4 + rng.normal(0, 5, 600)
    X[rng.random(600) < 0.1, 3] = np.nan
    frame = pd.DataFrame(X, columns=NAMES)
    trees = []
    for method, gamma in (("exact", 0.0), ("exact", 4000.0), ("hist", 4000.0)):
        for depth in range(1, 7):
            bst = boost.train({"tree_method": method, "max_depth": depth, "gamma": gamma,
                               "eta": 0.3}, frame, y, 2)
            df = bst.trees_to_dataframe(include_pruned=True)
            trees.append((df[df.Round == 2], gamma))
    depths = [int(t.Depth.max()) for t, _ in trees]
    assert set(depths) == set(range(1, 7))
    assert any(t.Pruned.any() for t, _ in trees)  # ghosts
    assert any((t.Leaf & (t.Feature != "Leaf") & t.Yes.isna()).any() for t, _ in trees)
    return trees


@pytest.mark.parametrize(("width", "large"), WIDTHS)
def test_trained_trees_have_every_label_and_no_overlap(trained_trees, width, large):
    for tree, gamma in trained_trees:
        fig = make_tree_figure(tree, gamma, title="t", width=width, large=large,
                               missing_features={"blood_pressure_mean"})
        _assert_readable(fig, tree, large)


@pytest.mark.parametrize(("width", "large"), WIDTHS)
def test_full_depth_6_tree_is_labelled_without_overlap(width, large):
    tree = full_tree(6)
    fig = make_tree_figure(tree, title="full", width=width, large=large, selected=5,
                           path=[0, 2, 5, 12, 25, 52, 105])
    _assert_readable(fig, tree, large)
    labels = next(t for t in fig.data if t.name == "node labels")
    text = dict(zip(labels.customdata, labels.text, strict=True))
    root = tree.iloc[0]
    # The root has the room for the full numbers: its test and its gain.
    assert text[0] == signs(f"bmi < {num(root.Split, 4)}<br>gain {num(root.Gain, 4)}")
    assert "\u2212" in text[0]  # (its threshold is negative: written with the minus sign)
    assert fig.layout.width == width and fig.layout.xaxis.range is not None


def test_labels_shorten_as_the_room_shrinks():
    tree = full_tree(6)
    wide = make_tree_figure(tree, width=4000)
    narrow = make_tree_figure(tree, width=700, large=True)

    def chars(fig):
        labels = next(t for t in fig.data if t.name == "node labels")
        return sum(len(t) for t in labels.text)

    assert chars(narrow) < chars(wide)
    small = full_tree(3)
    labels = next(t for t in make_tree_figure(small, width=1200).data
                  if t.name == "node labels")
    leaf = small.iloc[-1]  # 8 leaves in 1200 px: room for w and η·w in full
    assert labels.text[-1] == signs(f"w {num(leaf.Weight, 4)}<br>η·w {num(leaf.Value, 4)}")


def test_wide_trees_start_with_their_deepest_levels_collapsed():
    assert default_collapsed(full_tree(6)) == frozenset()  # 64 leaves: all shown
    tree = full_tree(8)  # 256 leaves: depths 6 and 7 collapse, 64 nodes of depth 6 remain
    collapsed = default_collapsed(tree)
    assert collapsed == frozenset(tree.Node[tree.Depth.isin([6, 7]) & ~tree.Leaf])
    fig = make_tree_figure(tree, collapsed=collapsed, width=820)
    folded = next(t for t in fig.data if t.name == "collapsed (+ hidden)")
    assert len(folded.customdata) == 64
    labels = next(t for t in fig.data if t.name == "node labels")
    text = dict(zip(labels.customdata, labels.text, strict=True))
    assert len(text) == 127  # each folded node hides its 2 children and 4 grandchildren
    assert all(text[n].endswith(("<br>+6", "<br>+ 6 hidden")) for n in folded.customdata)
    _assert_readable(fig, tree[tree.Depth <= 6], large=False)


@pytest.mark.parametrize(("name", "width", "lines"), [
    ("mean radius", 18, ["mean radius"]),  # fits: one line
    ("worst concave points", 18, ["worst concave", "points"]),  # broken after the space
    ("worst concave points", 10, ["worst", "concave p…"]),  # the second line cut
    ("bill_length_mm", 10, ["bill_", "length_mm"]),  # after "_", kept on the first line
    ("abcdefghijklmnopqrstuvwxyz", 10, ["abcdefghij", "klmnopqrs…"]),  # nowhere to break
    ("ab cdefghijklmnop", 10, ["ab cdefghi", "jklmnop"]),  # a space in the first half only
])
def test_long_feature_names_take_two_lines_before_an_ellipsis(name, width, lines):
    assert name_lines(name, width) == lines
