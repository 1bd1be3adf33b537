"""hist and approx's tree grower (XGBoost's ``grow_quantile_histmaker``): trees from bin sums.

Trees are grown from per-bin sums of the rows' gradients. Each feature value is replaced by
its bin once (``binning``); a node's search then reads only its histogram: per bin, the
float64 sums of g and h of the node's rows (``histogram``), built from the rows for the
child with the smaller hessian and ``parent - built`` for its sibling. Each feature's bins
are scanned for the node's best split (``splitting``); a split's rows are partitioned stably
to its children and a leaf's value is added to its rows' margins (``partition``). A tree
grows depth-wise in one compiled call (``grower``) or leaf-wise from a priority queue
(``lossguide``), both from the same node steps (``nodes``: the root, a split made or
refused, the children planned), on scratch kept across trees (``workspace``). Every sum is
float64 in row order and every gain float32, so the trees equal XGBoost's with
``nthread=1``, whatever the thread count.

A node's histogram replayed for the trace (its candidates on demand) is the trace's:
``trace.candidates.root_histogram`` and ``children_histograms``, one level at a time.
"""

from .binning import binned_rows, record_blocks
from .grower import grow_hist
from .workspace import HistWorkspace

__all__ = ["HistWorkspace", "binned_rows", "grow_hist", "record_blocks"]
