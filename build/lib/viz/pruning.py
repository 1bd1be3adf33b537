"""What γ did to one tree, read from ``trees_to_dataframe(include_pruned=True)``.

exact grows every split with a gain, then prunes bottom-up (a split whose two children are
leaves goes when its gain < γ, then its parent is tested); hist and approx refuse a split
whose gain < γ before growing it. The frame tells them apart:

* a grown split has a feature and children (``Yes`` set);
* it was pruned when it is now a leaf (``Leaf``, Reason 'gamma') or lies below one
  (``Pruned``);
* a refused split is a leaf that keeps the split it declined (a feature, no ``Yes``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from boost.trace.node_record import refused

from .theme import short


@dataclass(frozen=True)
class Split:
    node: int
    feature: str
    threshold: float
    gain: float


@dataclass(frozen=True)
class GammaReading:
    """The splits of one tree by what γ did to them."""

    kept: tuple[Split, ...]  # grown and still in the tree
    pruned: tuple[Split, ...]  # grown, then removed by pruning (exact)
    refused: tuple[Split, ...]  # declined before growing (hist/approx)

    @property
    def grown(self) -> int:
        return len(self.kept) + len(self.pruned)


def _splits(part: pd.DataFrame) -> tuple[Split, ...]:
    return tuple(Split(int(r.Node), str(r.Feature), float(r.Split), float(r.Gain))
                 for r in part.sort_values("Node").itertuples(index=False))


def read_gamma(tree: pd.DataFrame) -> GammaReading:
    """Sort the splits of one tree (rows of one Tree, include_pruned=True) into kept, pruned
    and refused."""
    has_split = tree.Feature != "Leaf"
    grown = has_split & tree.Yes.notna()
    removed = tree.Leaf | tree.Pruned
    return GammaReading(kept=_splits(tree[grown & ~removed]),
                        pruned=_splits(tree[grown & removed]),
                        refused=_splits(tree[refused(tree)]))


def _gains(splits: tuple[Split, ...], gamma: float) -> str:
    parts = [f"{s.feature} < {short(s.threshold)}: gain {short(s.gain)} "
             f"{'<' if s.gain < gamma else '≥'} {short(gamma)}" for s in splits[:4]]
    more = f", +{len(splits) - 4} more" if len(splits) > 4 else ""
    return "; ".join(parts) + more


def _count(n: int) -> str:
    return f"{n} split{'s' if n != 1 else ''}"


def gamma_counts(tree: pd.DataFrame) -> str:
    """What γ left of the tree, in a few words for its title: the splits grown when it
    pruned any, the splits kept, and how many it pruned (exact) or refused (hist, approx)
    when it removed any: "3 splits grown, 1 kept, 2 pruned"; "1 split kept, 2 refused"."""
    g = read_gamma(tree)
    parts = ([f"{_count(g.grown)} grown", f"{len(g.kept)} kept", f"{len(g.pruned)} pruned"]
             if g.pruned else [f"{_count(len(g.kept))} kept"])
    if g.refused:
        parts.append(f"{len(g.refused)} refused")
    return ", ".join(parts)


def gamma_summary(tree: pd.DataFrame, gamma: float, method: str = "exact") -> str:
    """One line: how many splits were grown, and which γ pruned (exact) or refused (hist,
    approx): ``method`` only words the case where γ did nothing."""
    g = read_gamma(tree)
    parts = [f"grew {_count(g.grown)}"] if g.grown or not g.refused else []
    if g.pruned:
        parts[0] += f", then γ = {short(gamma)} pruned {len(g.pruned)} ({_gains(g.pruned, gamma)})"
    elif g.refused:
        them = "them" if len(g.refused) > 1 else "it"
        parts.append(f"refused {_count(len(g.refused))} before growing {them} "
                     f"({_gains(g.refused, gamma)})")
    else:
        parts.append(f"γ = {short(gamma)} {'pruned' if method == 'exact' else 'refused'} none")
    shielded = tuple(s for s in g.kept if s.gain < gamma)
    if shielded:
        parts.append(f"kept {len(shielded)} below γ because a split under it survives "
                     f"({_gains(shielded, gamma)})")
    return "; ".join(parts)
