"""exact's tree grower (XGBoost's ``grow_colmaker``): every distinct value a candidate.

Trees grow level by level. Each feature's present values are sorted once per training run
(``columns``). While a tree grows, every feature's sorted entries are kept grouped by node
("segments", ``segments``), so a node's search reads its own entries contiguously
(``splitting``: strip sums, exact bounds that skip strips which cannot win, the losses, the
first maximum); after each level the rows are routed to the children and the segments
partitioned stably, in place, into the children's (``partition``). A node therefore
accumulates its rows in the same order as XGBoost's column scan (ascending value, ties by
row index), which keeps the float64 sums, and so every gain, bit-identical. ``grower`` runs
the levels in one compiled call; features are processed in parallel and the per-feature
bests merged in feature order, so the result does not depend on the thread count. The tree
is pruned with γ afterwards (``node_rules.prune``).
"""

from .columns import SortedColumns
from .grower import grow_exact
from .segments import new_segments

__all__ = ["SortedColumns", "grow_exact", "new_segments"]
