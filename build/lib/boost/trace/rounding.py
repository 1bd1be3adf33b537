"""How a number is shown to a reader: one rule for a lesson's text, the tree's labels, the
selected node's box and the worked arithmetic (viz/js/format.js ``rounded`` is its twin in
the page; tests/browser/test_page_modules.py holds the two to the same strings).

The rule: two decimals (120.333… → 120.33, 14.0833… → 14.08, 4.0 → 4); below 1 three
significant digits (0.0123456 → 0.0123), and below 0.0001 in powers of ten (5.96e-08, as
Python's ``{:.3g}`` writes them); from 1,000 on at most five significant digits and
never fewer than the integer's (1234.56 → 1,234.6, 27910.3 → 27,910); ties are rounded away
from zero on the number's exact binary value, as by hand (55.125 → 55.13); trailing zeros
are dropped, thousands separated by commas; NaN is "n/a".
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

DECIMALS = 2  # decimals of a number from 1 to 1,000
SIGNIFICANT = (3, 5)  # significant digits at least (below 1) and at most (from 1,000 on)
TINY = -5  # the exponent of the leading digit from which down a number is in powers of ten


def places(exponent: int) -> int:
    """The decimals shown of a number whose leading digit is at 10**exponent."""
    if exponent < 0:
        return SIGNIFICANT[0] - 1 - exponent
    return max(0, min(DECIMALS, SIGNIFICANT[1] - 1 - exponent))


def rounded(x) -> str:
    """``x`` as a reader sees it (the module's rule)."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    exact = Decimal(x)  # the binary value, every digit of it
    exponent = exact.adjusted()
    if exponent <= TINY:
        digits = SIGNIFICANT[0] - 1
        mantissa = exact.scaleb(-exponent).quantize(Decimal(1).scaleb(-digits),
                                                    rounding=ROUND_HALF_UP)
        if abs(mantissa) >= 10:  # 9.995e-06 rounds to 1e-05
            mantissa, exponent = mantissa.scaleb(-1), exponent + 1
        text = format(mantissa, "f").rstrip("0").rstrip(".")
        return f"{text}e-{-exponent:02d}"
    q = exact.quantize(Decimal(1).scaleb(-places(exponent)), rounding=ROUND_HALF_UP)
    text = format(q, ",f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
