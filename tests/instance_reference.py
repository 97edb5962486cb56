"""Plain reference implementations of the instance-specific learners, one test row at a time.

This module is a test oracle for ``bnclf``'s batched LKDB / AKDB, LTAN and
discriminatory target learning (TargetKDB). It is written for a reader, not for
speed: every count is a boolean mask over the training rows, every structure is
built with Python loops, and nothing is imported from ``bnclf``.

Conventions (binding; they pin down what the papers leave open)
---------------------------------------------------------------
Data
    ``X`` (N, d) integer codes ``0 .. r[i]-1``, ``y`` (N,) class codes ``0 .. l-1``,
    ``r`` (d,) cardinalities, ``l`` number of classes. A test row ``x`` (d,) holds
    codes, ``-1`` meaning *unknown* (missing, or a value never seen in training).
    :func:`encode` produces such codes from raw values.
Logs
    Information measures in bits (log2); probabilities in natural log.
CPTs (m-estimate)
    ``P(x_i | pa, c) = (N(x_i, pa, c) + m/r_i) / (N(pa, c) + m)`` (``1/r_i`` if the
    denominator is 0), ``P(c) = (N(c) + m/l) / (N + m)``.
Summed measures (empirical frequencies, 0 log 0 = 0)
    LMI ``I(x_i; C)``, CLMI ``I(x_i; x_j | C)``, MI ``I(X_i; C)``, and the RCMI of
    LTAN ``R_ij = sum_{c in Ω'} p(c) I(X_i; X_j | c)`` (``I(X_i; X_j | c)`` the MI
    inside the class-c rows, ``p(c) = N(c)/N``).
Pointwise measures (smoothed)
    CPMI ``log2 P(x_i,x_j|c) / (P(x_i|c) P(x_j|c))`` with
    ``P(x_i,x_j|c) = (N(x_i,x_j,c) + m/(r_i r_j)) / (N(c) + m)`` and its marginals;
    pointwise y-MI ``log2 P(x_i,y) / (P(x_i) P(y))`` with the pair smoothed as one
    variable of ``r_i * l`` states; pointwise y-CMI = CPMI at ``c = y`` (or the
    pseudo-instance estimates, see :func:`pointwise_y_mi`). The weighted y-MI and
    y-CMI of discriminatory target learning multiply these by their joint
    probability (:func:`y_mi_weight`, :func:`y_cmi_weight`).
Ties
    Ranking: attributes by score descending, the lower index first.
    Parents: candidates by score descending, the earlier-ranked first.
    Prim: see :func:`prim_tree`.
Unknown values
    An attribute whose test value is ``-1`` is left out of that row's structure
    and contributes no factor to any joint.

Structure decisions are exact
-----------------------------
Ties are common on small data (two attributes with the same counts, a constant
attribute, a rare class whose rows all agree), and rounding noise must not break
them. Every measure used to rank, choose parents or build a tree is ``log2`` of a
positive rational number divided by a constant shared by everything it is compared
with, so this module compares those rational numbers exactly (:class:`LogOf`):

* a pointwise measure is ``log2 q`` for one ratio q of smoothed counts;
* a summed measure ``sum_t (n_t / N) log2 q_t`` (counts n_t, the same N for every
  attribute or pair) equals ``(1/N) log2 prod_t q_t ** n_t``;
* a weighted pointwise measure ``w log2 q`` (w a positive rational) is compared
  through ``q1 ** w1`` against ``q2 ** w2`` (:class:`WeightedLog`).

Floats appear only in the reported values and in the posteriors.
"""

from __future__ import annotations

import decimal
import functools
import math
from fractions import Fraction

import numpy as np

UNKNOWN = -1


# ------------------------------------------------------------------------------- exact measures


class LogOf:
    """``log2(num / den)`` (times a positive constant) for positive integers, compared exactly.

    ``a < b`` compares ``a.num / a.den`` with ``b.num / b.den`` (log2 is increasing):
    by the float logs when they are clearly apart, otherwise by exact integer
    cross-multiplication. Multiplying two ``LogOf`` adds their logs.
    """

    __slots__ = ("num", "den", "approx", "size")

    def __init__(self, num, den=1):
        num, den = int(num), int(den)
        if num <= 0 or den <= 0:
            raise ValueError(f"log2 of a non-positive ratio {num}/{den}")
        self.num, self.den = num, den
        log_num, log_den = math.log2(num), math.log2(den)  # fine for huge ints too
        self.approx = log_num - log_den
        self.size = abs(log_num) + abs(log_den)  # bounds the rounding error of approx

    def bits(self, scale=1) -> float:
        """The measure as a float: ``log2(num/den) / scale``."""
        return self.approx / scale

    def _cmp(self, other) -> int:
        gap = self.approx - other.approx
        if abs(gap) > 1e-12 * (1.0 + self.size + other.size):  # far above the rounding error
            return 1 if gap > 0 else -1
        lhs, rhs = self.num * other.den, other.num * self.den
        return (lhs > rhs) - (lhs < rhs)

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __le__(self, other):
        return self._cmp(other) <= 0

    def __ge__(self, other):
        return self._cmp(other) >= 0

    def __eq__(self, other):
        return isinstance(other, LogOf) and self._cmp(other) == 0

    __hash__ = None

    def __mul__(self, other):
        return LogOf(self.num * other.num, self.den * other.den)

    def __repr__(self):
        return f"LogOf({self.num}/{self.den} ~ 2**{self.approx:.6g})"


ZERO = LogOf(1)  # log2(1) = 0


class WeightedLog:
    """``weight * log2(num / den)`` for a positive rational weight, compared exactly.

    The sign is the sign of the log (exact). Two values of the same sign are compared
    by their floats when clearly apart; otherwise ``w1 log q1`` against ``w2 log q2``
    is ``q1 ** (a1 b2)`` against ``q2 ** (a2 b1)`` with ``w = a / b``, compared as
    integers. When those powers would exceed ``_EXACT_BITS`` bits, the logs are
    compared in 200-digit decimal arithmetic instead (a difference below 1e-150 is
    taken as a tie).
    """

    __slots__ = ("weight", "log", "sign", "approx", "error")

    _EXACT_BITS = 4_000_000

    def __init__(self, weight, log: LogOf):
        self.weight = Fraction(weight)
        if self.weight.numerator <= 0:
            raise ValueError(f"the weight {self.weight} is not positive")
        self.log = log
        self.sign = (log.num > log.den) - (log.num < log.den)
        w = self.weight.numerator / self.weight.denominator
        self.approx = w * log.approx
        self.error = 1e-12 * (abs(self.approx) + w * log.size + 1e-300)  # far above the rounding error

    def bits(self) -> float:
        """The measure as a float, in bits."""
        return self.approx

    def _cmp(self, other) -> int:
        if self.sign != other.sign or self.sign == 0:
            return (self.sign > other.sign) - (self.sign < other.sign)
        gap = self.approx - other.approx
        if abs(gap) > self.error + other.error:
            return 1 if gap > 0 else -1
        if self.weight == other.weight and self.log == other.log:
            return 0
        e1 = self.weight.numerator * other.weight.denominator
        e2 = other.weight.numerator * self.weight.denominator
        g = math.gcd(e1, e2)
        e1, e2 = e1 // g, e2 // g
        bits = max(
            e1 * (self.log.num.bit_length() + self.log.den.bit_length()),
            e2 * (other.log.num.bit_length() + other.log.den.bit_length()),
        )
        if bits <= self._EXACT_BITS:  # q1^e1 vs q2^e2: n1^e1 d2^e2 vs n2^e2 d1^e1
            lhs = self.log.num**e1 * other.log.den**e2
            rhs = other.log.num**e2 * self.log.den**e1
            return (lhs > rhs) - (lhs < rhs)
        with decimal.localcontext() as ctx:
            ctx.prec = 200
            a = (decimal.Decimal(self.log.num).ln() - decimal.Decimal(self.log.den).ln()) * decimal.Decimal(e1)
            b = (decimal.Decimal(other.log.num).ln() - decimal.Decimal(other.log.den).ln()) * decimal.Decimal(e2)
            if abs(a - b) <= decimal.Decimal("1e-150") * (abs(a) + abs(b)):
                return 0
            return 1 if a > b else -1

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __eq__(self, other):
        return isinstance(other, WeightedLog) and self._cmp(other) == 0

    __hash__ = None

    def __repr__(self):
        return f"WeightedLog({self.weight} * log2 {self.log.num}/{self.log.den} ~ {self.approx:.6g})"


def is_positive(value) -> bool:
    """Whether a measure (:class:`LogOf` or :class:`WeightedLog`) is > 0, exactly."""
    return value.sign > 0 if isinstance(value, WeightedLog) else value > ZERO


def product(factors) -> LogOf:
    """The sum of the logs of ``factors`` (an empty product is 0 bits)."""
    num = den = 1
    for f in factors:
        num, den = num * f.num, den * f.den
    return LogOf(num, den)


def log_of_powers(cells) -> LogOf:
    """``sum_t n_t log2(a_t / b_t)`` as one :class:`LogOf` of ``prod_t (a_t / b_t) ** n_t``,
    for cells ``(a_t, b_t, n_t)`` of positive integers."""
    num = den = 1
    for a, b, n in cells:
        num, den = num * a**n, den * b**n
    return LogOf(num, den)


@functools.lru_cache(maxsize=None)
def as_ratio(m) -> tuple[int, int]:
    """``m`` as an exact fraction ``p / q`` (the float's exact binary value)."""
    f = Fraction(m)
    return f.numerator, f.denominator


# ------------------------------------------------------------------------------------- encoding


def _is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def encode(train_values, test_values):
    """Integer codes for a training table and a test table.

    Each column is coded by its sorted distinct training values (code 0 = the
    smallest). A test value that is not among them, or is NaN/None, becomes -1.
    Training values must not be missing.

    Returns
    -------
    X_train : int ndarray (N, d)
    X_test : int ndarray (n, d)
    r : int ndarray (d,)
        Cardinalities (number of distinct training values per column).
    """
    train = np.asarray(train_values, dtype=object)
    test = np.asarray(test_values, dtype=object)
    n_train, d = train.shape
    X_train = np.empty((n_train, d), dtype=np.int64)
    X_test = np.empty((test.shape[0], d), dtype=np.int64)
    r = np.empty(d, dtype=np.int64)
    for j in range(d):
        column = [v.item() if isinstance(v, np.generic) else v for v in train[:, j]]
        if any(_is_missing(v) for v in column):
            raise ValueError(f"training column {j} has missing values; code them first")
        levels = sorted(set(column))
        code_of = {v: k for k, v in enumerate(levels)}
        r[j] = len(levels)
        X_train[:, j] = [code_of[v] for v in column]
        for q in range(test.shape[0]):
            v = test[q, j]
            v = v.item() if isinstance(v, np.generic) else v
            X_test[q, j] = UNKNOWN if _is_missing(v) else code_of.get(v, UNKNOWN)
    return X_train, X_test, r


# ------------------------------------------------------------------------------------- counting


def known_attributes(x) -> list[int]:
    """Indices of the attributes whose test value is known, ascending."""
    return [i for i in range(len(x)) if x[i] != UNKNOWN]


def class_counts(y, l, rows=None) -> np.ndarray:
    """``N(c)`` for every class c, over the training rows selected by the boolean mask ``rows``."""
    labels = y if rows is None else y[rows]
    return np.bincount(labels, minlength=l).astype(np.int64)


class RowCounts:
    """The training counts that one test row ``x`` needs, by boolean masks.

    Attributes
    ----------
    n : int                      N, the number of training rows
    n_c : list[int]              N(c)
    known : list[int]            the known attributes of x, ascending
    n_i : dict i -> int          N(x_i)
    n_ic : dict i -> list[int]   N(x_i, c)
    n_ijc : dict (i, j) -> list  N(x_i, x_j, c), for i != j (both orders)
    """

    def __init__(self, X, y, l, x):
        self.n = len(y)
        self.n_c = class_counts(y, l).tolist()
        self.known = known_attributes(x)
        masks = {i: X[:, i] == x[i] for i in self.known}
        self.n_i = {i: int(masks[i].sum()) for i in self.known}
        self.n_ic = {i: class_counts(y, l, masks[i]).tolist() for i in self.known}
        self.n_ijc = {}
        for a, i in enumerate(self.known):
            for j in self.known[a + 1 :]:
                both = class_counts(y, l, masks[i] & masks[j]).tolist()
                self.n_ijc[i, j] = self.n_ijc[j, i] = both


# ------------------------------------------------------------------------- estimates and joints


def log_prior(y, l, m) -> np.ndarray:
    """``log P(c) = log (N(c) + m/l) / (N + m)`` for every class."""
    return np.log((class_counts(y, l) + m / l) / (len(y) + m))


def log_m_estimate(n_value, n_parent, r_i, m) -> np.ndarray:
    """``log (N(x, pa, c) + m/r_i) / (N(pa, c) + m)`` per class; ``log 1/r_i`` where
    the denominator is 0 (only possible with m = 0)."""
    n_value = np.asarray(n_value, dtype=float)
    n_parent = np.asarray(n_parent, dtype=float)
    safe = np.where(n_parent + m > 0, n_parent + m, 1.0)
    return np.log(np.where(n_parent + m > 0, (n_value + m / r_i) / safe, 1.0 / r_i))


def joint_log(X, y, r, l, x, parents, m=1.0, memo=None) -> np.ndarray:
    """``log P(c) + sum_{known i} log P(x_i | x_parents(i), c)`` for every class c.

    Parameters
    ----------
    parents : sequence of length d
        ``parents[i]``: iterable of the feature parents of attribute i (entries -1
        are padding and ignored). Unknown attributes are skipped; the parents of a
        known attribute must be known.
    memo : dict, optional
        A cache ``(i, parents) -> log CPT column`` shared by calls on the same row
        (only a speed-up: the same family gives the same column).
    """
    out = log_prior(y, l, m)
    for i in known_attributes(x):
        pa = tuple(sorted(int(p) for p in parents[i] if p != UNKNOWN))
        assert all(x[p] != UNKNOWN for p in pa), f"attribute {i} has an unknown parent in {pa}"
        if memo is not None and (i, pa) in memo:
            out = out + memo[i, pa]
            continue
        parent_rows = np.ones(len(y), dtype=bool)
        for p in pa:
            parent_rows &= X[:, p] == x[p]
        n_parent = class_counts(y, l, parent_rows)  # N(x_pa, c)
        n_value = class_counts(y, l, parent_rows & (X[:, i] == x[i]))  # N(x_i, x_pa, c)
        column = log_m_estimate(n_value, n_parent, r[i], m)
        if memo is not None:
            memo[i, pa] = column
        out = out + column
    return out


def normalize_log(scores, labels=None) -> np.ndarray:
    """``exp(scores)`` normalized over ``labels`` (default: all); 0 outside them."""
    scores = np.asarray(scores, dtype=float)
    labels = range(len(scores)) if labels is None else list(labels)
    out = np.zeros(len(scores))
    top = max(scores[c] for c in labels)
    for c in labels:
        out[c] = math.exp(scores[c] - top)
    return out / out.sum()


def argmax_lowest(values) -> int:
    """Index of the largest value, the lowest index on ties."""
    values = list(values)
    best = 0
    for i, v in enumerate(values):
        if v > values[best]:
            best = i
    return best


# --------------------------------------------------------- summed measures (training data only)


def mutual_information_with_class(X, y, r, l) -> list[LogOf]:
    """``I(X_i; C) = sum_{a,c} p(a,c) log2 p(a,c) / (p(a) p(c))`` (empirical) per attribute.

    With ``p = N/N_total`` this is ``(1/N) log2 prod_{a,c} (N_ac N / (N_a N_c)) ** N_ac``;
    returned as the exact :class:`LogOf` of that product (bits: ``.bits(N)``).
    """
    n = len(y)
    n_c = class_counts(y, l).tolist()
    out = []
    for i in range(X.shape[1]):
        cells = []
        for a in range(r[i]):
            rows = X[:, i] == a
            n_a = int(rows.sum())
            n_ac = class_counts(y, l, rows).tolist()
            cells += [(n_ac[c] * n, n_a * n_c[c], n_ac[c]) for c in range(l) if n_ac[c] > 0]
        out.append(log_of_powers(cells))
    return out


def label_mi_terms(X, y, r, l) -> dict:
    """``terms[c, i, j]``: ``p(c) I(X_i; X_j | c)`` as an exact :class:`LogOf` (bits: ``.bits(N)``).

    ``I(X_i; X_j | c) = sum_{a,b} p(a,b|c) log2 p(a,b|c) / (p(a|c) p(b|c))`` with
    ``p(a,b|c) = N_abc / N_c`` (the MI inside the class-c rows), so
    ``p(c) I(X_i; X_j | c) = (1/N) log2 prod_{a,b} (N_abc N_c / (N_ac N_bc)) ** N_abc``.
    The RCMI of a row is the product of these over the classes of Ω' (a sum of logs).
    """
    d = X.shape[1]
    terms = {}
    for c in range(l):
        Xc = X[y == c]
        n_c = len(Xc)
        for i in range(d):
            for j in range(i + 1, d):
                table = np.zeros((r[i], r[j]), dtype=np.int64)
                np.add.at(table, (Xc[:, i], Xc[:, j]), 1)
                n_a = table.sum(axis=1).tolist()
                n_b = table.sum(axis=0).tolist()
                table = table.tolist()
                cells = [
                    (table[a][b] * n_c, n_a[a] * n_b[b], table[a][b])
                    for a in range(r[i])
                    for b in range(r[j])
                    if table[a][b] > 0
                ]
                terms[c, i, j] = terms[c, j, i] = log_of_powers(cells)
    return terms


# ------------------------------------------------------------- measures at the row's own values


def local_mi(cnt: RowCounts, i) -> LogOf:
    """LMI ``I(x_i; C) = sum_c p(x_i,c) log2 p(x_i,c) / (p(x_i) p(c))`` (empirical)
    ``= (1/N) log2 prod_c (N(x_i,c) N / (N(x_i) N(c))) ** N(x_i,c)`` (cells with N(x_i,c) = 0
    contribute nothing). Bits: ``.bits(N)``."""
    n, n_i, n_ic, n_c = cnt.n, cnt.n_i[i], cnt.n_ic[i], cnt.n_c
    return log_of_powers((n_ic[c] * n, n_i * n_c[c], n_ic[c]) for c in range(len(n_c)) if n_ic[c] > 0)


def conditional_local_mi(cnt: RowCounts, i, j) -> LogOf:
    """CLMI ``I(x_i; x_j | C) = sum_c p(x_i,x_j,c) log2 p(x_i,x_j|c) / (p(x_i|c) p(x_j|c))``
    ``= (1/N) log2 prod_c (N_ijc N_c / (N_ic N_jc)) ** N_ijc`` (empirical; classes with
    N_ijc = 0 contribute nothing). Bits: ``.bits(N)``."""
    n_c, n_ijc, n_ic, n_jc = cnt.n_c, cnt.n_ijc[i, j], cnt.n_ic[i], cnt.n_ic[j]
    return log_of_powers((n_ijc[c] * n_c[c], n_ic[c] * n_jc[c], n_ijc[c]) for c in range(len(n_c)) if n_ijc[c] > 0)


def cpmi(cnt: RowCounts, r, i, j, c, m=1.0) -> LogOf:
    """CPMI ``I(x_i; x_j | c) = log2 P(x_i,x_j|c) / (P(x_i|c) P(x_j|c))``, m-estimated.

    ``P(x_i,x_j|c) = (N_ijc + m/(r_i r_j)) / (N_c + m)`` and its marginals
    ``P(x_i|c) = (N_ic + m/r_i) / (N_c + m)``, ``P(x_j|c) = (N_jc + m/r_j) / (N_c + m)``, so
    the ratio is ``(N_ijc + m/(r_i r_j)) (N_c + m) / ((N_ic + m/r_i) (N_jc + m/r_j))``.
    With ``m = p/q`` every parenthesis times its own denominator is an integer and
    those denominators cancel (``q r_i r_j * q / (q r_i * q r_j) = 1``):

        ratio = (q r_i r_j N_ijc + p) (q N_c + p) / ((q r_i N_ic + p) (q r_j N_jc + p)).
    """
    p, q = as_ratio(m)
    ri, rj = int(r[i]), int(r[j])
    n_c, n_ic, n_jc, n_ijc = cnt.n_c[c], cnt.n_ic[i][c], cnt.n_ic[j][c], cnt.n_ijc[i, j][c]
    return LogOf((q * ri * rj * n_ijc + p) * (q * n_c + p), (q * ri * n_ic + p) * (q * rj * n_jc + p))


def pointwise_y_mi(cnt: RowCounts, r, l, i, label, m=1.0, smoothing="m-estimate") -> LogOf:
    """Pointwise y-MI ``log2 P(x_i, y) / (P(x_i) P(y))`` at the row's own value.

    ``smoothing="m-estimate"``: the pair (x_i, y) is one variable of r_i*l states,
    ``P(x_i,y) = (N_iy + m/(r_i l)) / (N + m)``; its sums are
    ``P(x_i) = (N_i + m/r_i) / (N + m)`` and ``P(y) = (N_y + m/l) / (N + m)``, so with
    ``m = p/q`` (the denominators q r_i l, q, q r_i, q l cancel)

        ratio = (q r_i l N_iy + p) (q N + p) / ((q r_i N_i + p) (q l N_y + p)).

    ``smoothing="pseudo-instance"`` (the test row added with weight 1/l in each class):
    ``P(x_i,y) = (N_iy + 1/l)/(N + 1)``, ``P(x_i) = (N_i + 1)/(N + 1)``,
    ``P(y) = (N_y + 1/l)/(N + 1)``, so (the denominators l(N+1), N+1, l(N+1) cancel
    against the (N+1)^2 of the product)

        ratio = (l N_iy + 1) (N + 1) / ((N_i + 1) (l N_y + 1)).

    ``smoothing="pseudo-instance-as-printed"`` (Eq. 9 as printed): the same with
    ``P(x_i) = (N_i + 1/l)/(N + 1)``, so

        ratio = l (l N_iy + 1) (N + 1) / ((l N_i + 1) (l N_y + 1)).
    """
    n, n_i, n_y, n_iy, ri = cnt.n, cnt.n_i[i], cnt.n_c[label], cnt.n_ic[i][label], int(r[i])
    if smoothing == "m-estimate":
        p, q = as_ratio(m)
        return LogOf((q * ri * l * n_iy + p) * (q * n + p), (q * ri * n_i + p) * (q * l * n_y + p))
    if smoothing == "pseudo-instance":
        return LogOf((l * n_iy + 1) * (n + 1), (n_i + 1) * (l * n_y + 1))
    if smoothing == "pseudo-instance-as-printed":
        return LogOf(l * (l * n_iy + 1) * (n + 1), (l * n_i + 1) * (l * n_y + 1))
    raise ValueError(f"unknown smoothing {smoothing!r}")


def y_mi_weight(cnt: RowCounts, r, l, i, label, m=1.0, smoothing="m-estimate") -> Fraction:
    """The weight ``P(x_i, y)`` of the weighted pointwise y-MI (Duan et al. 2019, Eq. 8).

    ``"m-estimate"``: ``(N_iy + m/(r_i l)) / (N + m)`` (the joint of
    :func:`pointwise_y_mi`); the pseudo-instance readings: ``(N_iy + 1/l) / (N + 1)``.
    """
    n, n_iy = cnt.n, cnt.n_ic[i][label]
    if smoothing == "m-estimate":  # with m = p/q: (q r_i l N_iy + p) / (r_i l (q N + p))
        p, q = as_ratio(m)
        ril = int(r[i]) * l
        return Fraction(q * ril * n_iy + p, ril * (q * n + p))
    return Fraction(l * n_iy + 1, l * (n + 1))


def y_cmi_weight(cnt: RowCounts, r, l, i, j, label, m=1.0, smoothing="m-estimate") -> Fraction:
    """The weight ``P(x_i, x_j, y)`` of the weighted pointwise y-CMI (Duan et al. 2019, Eq. 2).

    ``"m-estimate"``: ``P(x_i,x_j|y) P(y)`` with ``P(x_i,x_j|y) = (N_ijy + m/(r_i r_j)) /
    (N_y + m)`` (the joint of :func:`cpmi`) and ``P(y) = (N_y + m/l) / (N + m)``; the
    pseudo-instance readings: ``(N_ijy + 1/l) / (N + 1)`` (Eq. 9).
    """
    n, n_y, n_ijy = cnt.n, cnt.n_c[label], cnt.n_ijc[i, j][label]
    if smoothing == "m-estimate":  # with m = p/q, r = r_i r_j: the product of the two fractions
        p, q = as_ratio(m)
        rr = int(r[i]) * int(r[j])
        return Fraction((q * rr * n_ijy + p) * (q * l * n_y + p), rr * (q * n_y + p) * l * (q * n + p))
    return Fraction(l * n_ijy + 1, l * (n + 1))


def pointwise_y_cmi(cnt: RowCounts, r, l, i, j, label, m=1.0, smoothing="m-estimate") -> LogOf:
    """Pointwise y-CMI ``log2 P(x_i,x_j|y) / (P(x_i|y) P(x_j|y))`` at the row's own values.

    ``smoothing="m-estimate"``: the CPMI at ``c = y`` (:func:`cpmi`).
    ``smoothing="pseudo-instance"`` (and ``"pseudo-instance-as-printed"``, which differs
    in ``P(x_i)`` only): ``P(x_i,x_j|y) = (N_ijy + 1/l)/(N_y + 1/l)``,
    ``P(x_i|y) = (N_iy + 1/l)/(N_y + 1/l)``, likewise ``P(x_j|y)``; multiplying every
    count by l,

        ratio = (l N_ijy + 1) (l N_y + 1) / ((l N_iy + 1) (l N_jy + 1)).
    """
    if smoothing == "m-estimate":
        return cpmi(cnt, r, i, j, label, m)
    if smoothing not in ("pseudo-instance", "pseudo-instance-as-printed"):  # P(x_i) is not in it
        raise ValueError(f"unknown smoothing {smoothing!r}")
    n_y, n_iy, n_jy = cnt.n_c[label], cnt.n_ic[i][label], cnt.n_ic[j][label]
    n_ijy = cnt.n_ijc[i, j][label]
    return LogOf((l * n_ijy + 1) * (l * n_y + 1), (l * n_iy + 1) * (l * n_jy + 1))


# ---------------------------------------------------------------------------- structure helpers


def rank_attributes(attributes, score) -> list[int]:
    """Attributes by ``score[i]`` descending; equal scores keep the given (ascending) order.

    (Python's sort is stable, also with ``reverse=True``.)
    """
    return sorted(attributes, key=lambda i: score[i], reverse=True)


def choose_parents(candidates_in_rank_order, score, k) -> list[int]:
    """Up to k candidates with the highest ``score[j]``; ties: the earlier-ranked first."""
    return sorted(candidates_in_rank_order, key=lambda j: score[j], reverse=True)[:k]


def padded(parent_list, k) -> list[int]:
    """Parents sorted ascending and padded with -1 to length k."""
    ps = sorted(int(p) for p in parent_list)
    return ps + [UNKNOWN] * (k - len(ps))


def prim_tree(nodes, weight, root) -> dict[int, int]:
    """Prim's maximum spanning tree over ``nodes``, oriented away from ``root``.

    Start with the root in the tree, ``best[v] = weight[root][v]`` and
    ``from[v] = root`` for every other node. Repeat: take the node not yet in the
    tree with the largest ``best`` (the lowest index on ties); its parent is
    ``from[v]``; then every node u not in the tree with ``weight[v][u] > best[u]``
    (strictly) gets ``best[u] = weight[v][u]``, ``from[u] = v``. Every node is
    connected, whatever the weights.

    Returns
    -------
    dict ``node -> parent`` (the root maps to -1).
    """
    parent = {root: -1}
    best = {v: weight[root][v] for v in nodes if v != root}
    came_from = {v: root for v in best}
    while best:
        v = None
        for u in sorted(best):  # ascending, so the first maximum is the lowest index
            if v is None or best[u] > best[v]:
                v = u
        parent[v] = came_from.pop(v)
        del best[v]
        for u in best:
            if weight[v][u] > best[u]:
                best[u] = weight[v][u]
                came_from[u] = v
    return parent


def symmetric_scores(known, score) -> dict[int, dict[int, LogOf]]:
    """``out[i][j] = out[j][i] = score(i, j)`` for every pair i < j of known attributes
    (every pairwise measure used here is symmetric in i and j)."""
    out = {i: {} for i in known}
    for a, i in enumerate(known):
        for j in known[a + 1 :]:
            out[i][j] = out[j][i] = score(i, j)
    return out


def kdb_parents(x, k, rank_score, parent_score, keep=lambda i, j: True) -> np.ndarray:
    """A KDB structure over the known attributes of ``x``.

    Attributes are ranked by ``rank_score[i]`` (descending); the attribute at
    rank p takes up to k parents among ranks < p, chosen by
    ``parent_score[i][j]`` (descending) among the candidates j with
    ``keep(i, j)``. Returns an int array (d, k), ascending and -1 padded, with
    -1 rows for unknown attributes.
    """
    parents = np.full((len(x), k), UNKNOWN, dtype=np.int64)
    order = rank_attributes(known_attributes(x), rank_score)
    for p, i in enumerate(order[: len(order) if k else 0]):
        candidates = [j for j in order[:p] if keep(i, j)]
        parents[i] = padded(choose_parents(candidates, parent_score[i], k), k)
    return parents


# ---------------------------------------------------------------------------------- LKDB / AKDB


def lkdb_reference(X, y, r, l, x, k, m=1.0):
    """Local KDB (Wang et al. 2015) for one test row.

    Rank the known attributes by LMI ``I(x_i; C)`` descending; the attribute at
    rank p takes up to k parents among ranks < p with the highest CLMI
    ``I(x_i; x_j | C)`` (no threshold). CPTs m-estimated from all training rows.

    Returns
    -------
    parents : int ndarray (d, k)
    proba : ndarray (l,)
    """
    cnt = RowCounts(X, y, l, x)
    lmi = {i: local_mi(cnt, i) for i in cnt.known}
    clmi = symmetric_scores(cnt.known, lambda i, j: conditional_local_mi(cnt, i, j)) if k else {}
    parents = kdb_parents(x, k, lmi, clmi)
    return parents, normalize_log(joint_log(X, y, r, l, x, parents, m))


def akdb_reference(X, y, r, l, x, k, kdb_proba, m=1.0):
    """AKDB: ``(P_KDB(c|x) + P_LKDB(c|x)) / 2``. Returns (LKDB parents, proba)."""
    parents, lkdb = lkdb_reference(X, y, r, l, x, k, m)
    return parents, (np.asarray(kdb_proba, dtype=float) + lkdb) / 2


# ----------------------------------------------------------------------------------------- LTAN


def root_attribute(known, class_mi):
    """The known attribute with the largest ``I(X; C)``, the lowest index on ties."""
    root = known[0]
    for i in known:
        if class_mi[i] > class_mi[root]:
            root = i
    return root


def tree_parents(d, known, weight, root) -> np.ndarray:
    """Prim's tree over ``known`` as parents (d,), -1 for the root and unknown attributes."""
    parents = np.full(d, UNKNOWN, dtype=np.int64)
    if known:
        for v, p in prim_tree(known, weight, root).items():
            parents[v] = p
    return parents


def refined_tree(x, omega, mi_terms, class_mi) -> np.ndarray:
    """TAN-IE tree of one row: Prim over the known attributes on the RCMI
    ``R_ij = sum_{c in omega} p(c) I(X_i; X_j | c)`` (:func:`label_mi_terms`), rooted at
    the known attribute with the largest ``I(X; C)``.

    Returns parents (d,) with -1 for the root and unknown attributes.
    """
    labels = [c for c in range(len(omega)) if omega[c]]
    known = known_attributes(x)
    weight = symmetric_scores(known, lambda i, j: product(mi_terms[c, i, j] for c in labels))
    root = root_attribute(known, class_mi) if known else None
    return tree_parents(len(x), known, weight, root)


def expert_tree(cnt: RowCounts, r, x, c, class_mi, m=1.0) -> np.ndarray:
    """IBMC-CL expert of label c for one row: Prim over the known attributes on the
    CPMI ``I(x_i; x_j | c)`` of the row's own values, same root rule as TAN-IE.

    Returns parents (d,) with -1 for the root and unknown attributes.
    """
    weight = symmetric_scores(cnt.known, lambda i, j: cpmi(cnt, r, i, j, c, m))
    root = root_attribute(cnt.known, class_mi) if cnt.known else None
    return tree_parents(len(x), cnt.known, weight, root)


def as_parent_lists(tree) -> list[list[int]]:
    """Tree parents (d,) as parent lists for :func:`joint_log`."""
    return [[int(p)] if p != UNKNOWN else [] for p in tree]


def ltan_reference(X, y, r, l, x, generalist_proba, delta=0.1, m=1.0, mi_terms=None, class_mi=None) -> dict:
    """LTAN (Sun, Wang & Sun 2017, Algorithm 4) for one test row.

    Parameters
    ----------
    generalist_proba : (l,)
        The generalist TAN posterior ``P_G(c|x)``.
    mi_terms, class_mi : optional
        Precomputed :func:`label_mi_terms` and :func:`mutual_information_with_class`
        of the training data (they do not depend on the row).

    Returns
    -------
    dict with ``omega`` (bool (l,)), ``reconsidered`` (bool), ``refined_parents``
    (d,), ``expert_parents`` (l, d), ``refined_proba`` (l,), ``expert_proba``
    (l,) and ``proba`` (l,), the final posterior.
    """
    d = len(x)
    pg = np.asarray(generalist_proba, dtype=float)
    if mi_terms is None:
        mi_terms = label_mi_terms(X, y, r, l)
    if class_mi is None:
        class_mi = mutual_information_with_class(X, y, r, l)
    c_hat = argmax_lowest(pg)
    omega = np.array([pg[c] / pg[c_hat] >= delta for c in range(l)])
    out = {
        "omega": omega,
        "reconsidered": bool(omega.sum() > 1),
        "refined_parents": np.full(d, UNKNOWN, dtype=np.int64),
        "expert_parents": np.full((l, d), UNKNOWN, dtype=np.int64),
        "refined_proba": np.zeros(l),
        "expert_proba": np.zeros(l),
        "proba": pg.copy(),
    }
    if not out["reconsidered"]:
        return out
    labels = [c for c in range(l) if omega[c]]

    # refined generalist TAN-IE: one tree, class parent of all, normalized over omega
    refined = refined_tree(x, omega, mi_terms, class_mi)
    out["refined_parents"] = refined
    out["refined_proba"] = normalize_log(joint_log(X, y, r, l, x, as_parent_lists(refined), m), labels)

    # experts IBMC-CL: one tree per label c in omega; s_c is the class-c term of its joint
    cnt = RowCounts(X, y, l, x)
    scores = np.zeros(l)
    for c in labels:
        tree = expert_tree(cnt, r, x, c, class_mi, m)
        out["expert_parents"][c] = tree
        scores[c] = joint_log(X, y, r, l, x, as_parent_lists(tree), m)[c]
    out["expert_proba"] = normalize_log(scores, labels)

    # final: the generalist's mass on omega shared by (P_RG + P_E)/2, the rest kept
    mass = sum(pg[c] for c in labels)
    for c in labels:
        out["proba"][c] = mass * (out["refined_proba"][c] + out["expert_proba"][c]) / 2
    return out


def cohen_kappa(first, second, l) -> float:
    """κ of Sun et al. (2017) Eqs. (25)-(27) between two label sequences.

    ``D[a, b]`` counts the rows labelled a by the first and b by the second;
    ``Θ1 = sum_i D_ii / M``, ``Θ2 = sum_i (sum_j D_ij / M)(sum_j D_ji / M)``,
    ``κ = (Θ1 - Θ2) / (1 - Θ2)``; nan for no rows, 1 when Θ2 == 1 (all agree
    on one label).
    """
    M = len(first)
    if M == 0:
        return float("nan")
    D = np.zeros((l, l))
    for a, b in zip(first, second):
        D[a, b] += 1
    theta1 = sum(D[i, i] for i in range(l)) / M
    theta2 = sum((D[i, :].sum() / M) * (D[:, i].sum() / M) for i in range(l))
    if theta2 == 1:
        return 1.0
    return (theta1 - theta2) / (1 - theta2)


def ltan_diagnostics(results, generalist_probas, y_true=None) -> dict:
    """LLP, r̄, and with true labels CP, LP and κ (Sun et al. 2017 Eqs. 21-27).

    ``results``: the :func:`ltan_reference` dicts of the test rows Q, in order.
    R = the reconsidered rows; LLP = |R|/|Q|*100; r̄ = mean |Ω'| over R; CP and LP
    are percentages of R (nan if R is empty) with c_G = argmax P_G and c_L =
    argmax of the final posterior; κ is between TAN-IE's and the experts'
    argmax over Ω' on R.
    """
    reconsidered = np.array([res["reconsidered"] for res in results], dtype=bool)
    R = [q for q in range(len(results)) if reconsidered[q]]
    out = {
        "reconsidered": reconsidered,
        "llp": len(R) / len(results) * 100,
        "r_bar": (sum(int(results[q]["omega"].sum()) for q in R) / len(R)) if R else float("nan"),
    }
    if y_true is None:
        return out
    l = len(results[0]["omega"])
    corrected = lost = 0
    for q in R:
        c_g = argmax_lowest(generalist_probas[q])
        c_l = argmax_lowest(results[q]["proba"])
        truth = int(y_true[q])
        corrected += c_g != truth and c_l == truth
        lost += c_g == truth and c_l != truth
    out["cp"] = corrected / len(R) * 100 if R else float("nan")
    out["lp"] = lost / len(R) * 100 if R else float("nan")
    # the refined / expert posteriors are 0 outside omega and > 0 inside it, so their
    # argmax (lowest index on ties) is the argmax over omega
    out["kappa"] = cohen_kappa(
        [argmax_lowest(results[q]["refined_proba"]) for q in R],
        [argmax_lowest(results[q]["expert_proba"]) for q in R],
        l,
    )
    return out


# ------------------------------------------------------------------------------------ TargetKDB


def target_kdb_reference(
    X,
    y,
    r,
    l,
    x,
    k,
    kdb_proba,
    m=1.0,
    smoothing="pseudo-instance",
    measures="weighted",
    combine="own-label",
):
    """Discriminatory target learning with KDB (Duan et al. 2019) for one test row.

    For each label y, a micro KDB kdb_y: rank the known attributes by pointwise
    y-MI descending; the attribute at rank p takes up to k parents among earlier
    ranks with the highest pointwise y-CMI, keeping only candidates with y-CMI > 0.
    ``measures="weighted"`` multiplies each log ratio by its joint probability
    (:func:`y_mi_weight`, :func:`y_cmi_weight`); ``"pointwise"`` keeps the bare log
    ratios. ``smoothing`` selects the estimates inside the measures only
    (:func:`pointwise_y_mi`); the CPTs stay m-estimated. Each micro model's joint over
    ALL classes (m-estimated CPTs) normalized is its posterior. ``kdb_e``:
    ``combine="own-label"`` normalizes ``P(y, x | kdb_y)`` over the labels y;
    ``"posterior-average"`` is the mean of the l micro posteriors. Final =
    ``(kdb_e + P_KDB) / 2``.

    Returns
    -------
    parents : int ndarray (l, d, k)
    micro : ndarray (l, l), ``micro[y]`` = posterior of kdb_y
    kdb_e : ndarray (l,)
    proba : ndarray (l,)
    """
    cnt = RowCounts(X, y, l, x)
    parents = np.full((l, len(x), k), UNKNOWN, dtype=np.int64)
    joints = np.zeros((l, l))
    memo = {}
    for label in range(l):
        if measures == "weighted":
            ymi = {
                i: WeightedLog(
                    y_mi_weight(cnt, r, l, i, label, m, smoothing), pointwise_y_mi(cnt, r, l, i, label, m, smoothing)
                )
                for i in cnt.known
            }
            ycmi = symmetric_scores(
                cnt.known,
                lambda i, j: WeightedLog(
                    y_cmi_weight(cnt, r, l, i, j, label, m, smoothing),
                    pointwise_y_cmi(cnt, r, l, i, j, label, m, smoothing),
                ),
            )
        elif measures == "pointwise":
            ymi = {i: pointwise_y_mi(cnt, r, l, i, label, m, smoothing) for i in cnt.known}
            ycmi = symmetric_scores(cnt.known, lambda i, j: pointwise_y_cmi(cnt, r, l, i, j, label, m, smoothing))
        else:
            raise ValueError(f"unknown measures {measures!r}")
        parents[label] = kdb_parents(x, k, ymi, ycmi, keep=lambda i, j: is_positive(ycmi[i][j]))
        joints[label] = joint_log(X, y, r, l, x, parents[label], m, memo)
    micro = np.array([normalize_log(row) for row in joints])
    if combine == "own-label":
        kdb_e = normalize_log([joints[label][label] for label in range(l)])
    elif combine == "posterior-average":
        kdb_e = micro.sum(axis=0) / l
    else:
        raise ValueError(f"unknown combine {combine!r}")
    return parents, micro, kdb_e, (kdb_e + np.asarray(kdb_proba, dtype=float)) / 2
