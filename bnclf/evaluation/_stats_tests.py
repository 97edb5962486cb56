"""Statistical comparison of classifiers.

Single dataset, two classifiers
    :func:`corrected_repeated_cv_ttest` (Nadeau–Bengio / Bouckaert–Frank) and
    :func:`bayesian_correlated_ttest` on per-fold scores of an r×k CV.
Many datasets, two classifiers
    :func:`win_draw_loss` with the 5 % relative-difference rule and the one-tailed
    binomial :func:`sign_test`; :func:`wilcoxon_signed_rank`;
    :func:`bayesian_signed_rank`.
Many datasets, many classifiers
    :func:`average_ranks`, :func:`friedman_test` (with Iman–Davenport),
    :func:`nemenyi_critical_difference` / :func:`nemenyi_test`,
    :func:`bonferroni_dunn_test` against a control, :func:`win_draw_loss_table`.

Scores are passed as a DataFrame with one row per dataset and one column per
classifier (or arrays for the pairwise tests). ``lower_is_better=True`` (the
default) is for losses such as the zero-one loss; use ``False`` for accuracy or AUC.

Everything is written with numpy and ``scipy.stats`` distributions, except the
Wilcoxon signed-rank p-value, which is delegated to :func:`scipy.stats.wilcoxon`
(its exact null distribution and tie/zero handling are best taken from scipy).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

__all__ = [
    "rank_scores",
    "average_ranks",
    "FriedmanResult",
    "friedman_test",
    "nemenyi_q",
    "nemenyi_critical_difference",
    "nemenyi_test",
    "bonferroni_dunn_critical_difference",
    "bonferroni_dunn_test",
    "bonferroni_dunn_from_ranks",
    "WinDrawLoss",
    "win_draw_loss",
    "sign_test",
    "win_draw_loss_table",
    "wilcoxon_signed_rank",
    "TTestResult",
    "corrected_repeated_cv_ttest",
    "BayesianResult",
    "bayesian_signed_rank",
    "bayesian_correlated_ttest",
]


# Demšar (2006), Table 5: critical values q_alpha for the two-tailed Nemenyi test
# (studentized range statistic divided by sqrt(2)) and for the Bonferroni–Dunn
# test (normal quantile at alpha / (2 (k - 1))), for k = 2..10 classifiers.
# Published papers (Sun et al. 2017 among them) use these rounded values.
_DEMSAR_NEMENYI = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


_DEMSAR_BONFERRONI_DUNN = {
    0.05: [1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.724, 2.773],
    0.10: [1.645, 1.960, 2.128, 2.241, 2.326, 2.394, 2.450, 2.498, 2.539],
}


def _as_score_frame(scores: pd.DataFrame | ArrayLike) -> pd.DataFrame:
    if isinstance(scores, pd.DataFrame):
        df = scores
    else:
        arr = np.asarray(scores, dtype=float)
        if arr.ndim != 2:
            raise ValueError(f"scores must be 2-D (n_datasets, n_classifiers), got shape {arr.shape}")
        df = pd.DataFrame(arr, columns=[f"clf{j}" for j in range(arr.shape[1])])
    df = df.astype(float)
    if df.isna().any().any():
        bad = df.index[df.isna().any(axis=1)].tolist()
        raise ValueError(f"scores contain missing values (rows {bad}); drop or fill them first")
    if df.shape[1] < 2:
        raise ValueError("at least two classifiers (columns) are needed")
    return df


def rank_scores(scores: pd.DataFrame | ArrayLike, *, lower_is_better: bool = True) -> pd.DataFrame:
    """Rank the classifiers on each dataset (1 = best; ties get average ranks).

    Parameters
    ----------
    scores : DataFrame of shape (n_datasets, n_classifiers)
    lower_is_better : bool, default=True

    Returns
    -------
    DataFrame of the same shape with ranks.
    """
    df = _as_score_frame(scores)
    return df.rank(axis=1, method="average", ascending=lower_is_better)


def average_ranks(scores: pd.DataFrame | ArrayLike, *, lower_is_better: bool = True) -> pd.Series:
    """Average rank of each classifier over the datasets (Demšar 2006).

    Examples
    --------
    Ranking the zero-one losses of Sun et al.'s (2017) Table 4 as printed (four decimals,
    ties averaged) gives LTAN 2.425, NB 5.5, TAN 4.4375, KDB 4.7, AODE 3.4875,
    WATAN 4.275, AKDB 3.175.
    """
    return rank_scores(scores, lower_is_better=lower_is_better).mean(axis=0)


@dataclass(frozen=True)
class FriedmanResult:
    """Result of :func:`friedman_test`.

    Attributes
    ----------
    statistic : float
        Friedman's χ²_F.
    pvalue : float
        Upper tail of χ² with k - 1 degrees of freedom.
    iman_davenport : float
        ``F_F = (N - 1) χ²_F / (N (k - 1) - χ²_F)``.
    iman_davenport_pvalue : float
        Upper tail of F with (k - 1, (k - 1)(N - 1)) degrees of freedom.
    average_ranks : pandas.Series
    n_datasets, n_classifiers : int
    """

    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    average_ranks: pd.Series
    n_datasets: int
    n_classifiers: int

    @property
    def df(self) -> int:
        return self.n_classifiers - 1


def friedman_test(
    scores: pd.DataFrame | ArrayLike, *, lower_is_better: bool = True, tie_correction: bool = True
) -> FriedmanResult:
    """Friedman test of equal average ranks, with the Iman–Davenport F.

    ``χ²_F = 12 / (N k (k + 1)) Σ_j R_j² - 3 N (k + 1)`` with ``R_j`` the rank
    sum of classifier j over N datasets (Sun et al. 2017, Eq. 19), divided by the tie
    correction ``1 - Σ (t³ - t) / (N k (k² - 1))`` over groups of t tied scores
    within a dataset.

    Parameters
    ----------
    scores : DataFrame of shape (n_datasets, n_classifiers)
    lower_is_better : bool, default=True
        Only affects the reported average ranks; the statistic is symmetric.
    tie_correction : bool, default=True
        With the correction the statistic equals
        :func:`scipy.stats.friedmanchisquare` and Sun et al.'s (2017) 57.806 for its
        Table 4; without it, Eq. (19) as printed.

    Returns
    -------
    FriedmanResult

    References
    ----------
    .. [1] Friedman, M. (1937). The use of ranks to avoid the assumption of
       normality implicit in the analysis of variance. JASA 32, 675–701.
    .. [2] Iman, R. L., Davenport, J. M. (1980). Approximations of the critical
       region of the Friedman statistic. Comm. Statist. A9, 571–595.
    .. [3] Demšar, J. (2006). Statistical comparisons of classifiers over multiple
       data sets. JMLR 7, 1–30.
    """
    df = _as_score_frame(scores)
    n, k = df.shape
    if n < 2:
        raise ValueError("the Friedman test needs at least two datasets")
    ranks = rank_scores(df, lower_is_better=lower_is_better)
    rank_sums = ranks.sum(axis=0).to_numpy()
    chi2 = 12.0 / (n * k * (k + 1)) * np.sum(rank_sums**2) - 3.0 * n * (k + 1)
    if tie_correction:
        ties = 0.0
        for row in df.to_numpy():
            _, counts = np.unique(row, return_counts=True)
            ties += np.sum(counts**3 - counts)
        denom = 1.0 - ties / (n * k * (k * k - 1))
        chi2 = chi2 / denom if denom > 0 else float("nan")
    p = float(stats.chi2.sf(chi2, k - 1))
    denom_f = n * (k - 1) - chi2
    f_stat = (n - 1) * chi2 / denom_f if denom_f > 0 else float("inf")
    p_f = float(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1))) if np.isfinite(f_stat) else 0.0
    return FriedmanResult(
        statistic=float(chi2),
        pvalue=p,
        iman_davenport=float(f_stat),
        iman_davenport_pvalue=p_f,
        average_ranks=ranks.mean(axis=0),
        n_datasets=n,
        n_classifiers=k,
    )


def nemenyi_q(n_classifiers: int, alpha: float = 0.05, *, table: str = "demsar") -> float:
    """Critical value ``q_α`` of the Nemenyi test.

    Parameters
    ----------
    n_classifiers : int
    alpha : float, default=0.05
    table : {"demsar", "exact"}, default="demsar"
        ``"demsar"`` uses the three-decimal values of Demšar (2006), Table 5(a),
        when ``alpha`` is 0.05 or 0.10 and there are at most 10 classifiers (the
        values the papers use: Sun et al.'s (2017) ``q = 2.949`` for k = 7), falling back to
        the exact value otherwise; ``"exact"`` is always
        ``studentized_range.ppf(1 - α, k, ∞) / √2``.
    """
    k = int(n_classifiers)
    if k < 2:
        raise ValueError("at least two classifiers are needed")
    if table not in ("demsar", "exact"):
        raise ValueError(f"table must be 'demsar' or 'exact', got {table!r}")
    if table == "demsar":
        for a, values in _DEMSAR_NEMENYI.items():
            if np.isclose(alpha, a) and k <= 10:
                return values[k - 2]
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def nemenyi_critical_difference(
    n_classifiers: int, n_datasets: int, alpha: float = 0.05, *, table: str = "demsar"
) -> float:
    """Nemenyi critical difference of average ranks.

    ``CD = q_α sqrt(k (k + 1) / (6 N))`` (Sun et al. 2017, Eq. 20). For 7 classifiers
    over 40 datasets at α = 0.05 it is 1.4245.

    Parameters
    ----------
    n_classifiers, n_datasets : int
    alpha : float, default=0.05
    table : {"demsar", "exact"}, default="demsar"
        Source of ``q_α``; see :func:`nemenyi_q`.

    References
    ----------
    .. [1] Nemenyi, P. (1963). Distribution-free multiple comparisons. PhD thesis,
       Princeton University.
    .. [2] Demšar, J. (2006). Statistical comparisons of classifiers over multiple
       data sets. JMLR 7, 1–30.
    """
    k, n = int(n_classifiers), int(n_datasets)
    return nemenyi_q(k, alpha, table=table) * np.sqrt(k * (k + 1) / (6.0 * n))


def nemenyi_test(scores: pd.DataFrame | ArrayLike, *, lower_is_better: bool = True) -> pd.DataFrame:
    """Pairwise Nemenyi p-values from average ranks.

    ``z = |R_i - R_j| / sqrt(k (k + 1) / (6 N))``; the p-value is the upper
    tail of the studentized range distribution with k groups and infinite
    degrees of freedom at ``z √2``.

    Returns
    -------
    DataFrame of shape (k, k), symmetric, ones on the diagonal.
    """
    df = _as_score_frame(scores)
    n, k = df.shape
    ranks = average_ranks(df, lower_is_better=lower_is_better).to_numpy()
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    z = np.abs(ranks[:, None] - ranks[None, :]) / se
    p = stats.studentized_range.sf(z * np.sqrt(2.0), k, np.inf)
    p = np.clip(p, 0.0, 1.0)
    np.fill_diagonal(p, 1.0)
    return pd.DataFrame(p, index=df.columns, columns=df.columns)


def bonferroni_dunn_critical_difference(
    n_classifiers: int, n_datasets: int, alpha: float = 0.05, *, table: str = "demsar"
) -> float:
    """Critical difference of the Bonferroni–Dunn test against a control.

    ``CD = q_α sqrt(k (k + 1) / (6 N))`` with ``q_α`` the normal quantile at
    ``1 - α / (2 (k - 1))`` (Demšar 2006, Table 5(b), when ``table="demsar"`` and
    the value is tabulated).
    """
    k, n = int(n_classifiers), int(n_datasets)
    if k < 2:
        raise ValueError("at least two classifiers are needed")
    q = None
    if table == "demsar":
        for a, values in _DEMSAR_BONFERRONI_DUNN.items():
            if np.isclose(alpha, a) and k <= 10:
                q = values[k - 2]
    if q is None:
        q = float(stats.norm.isf(alpha / (2.0 * (k - 1))))
    return q * np.sqrt(k * (k + 1) / (6.0 * n))


def bonferroni_dunn_test(
    scores: pd.DataFrame | ArrayLike, control: Hashable, *, alpha: float = 0.05, lower_is_better: bool = True
) -> pd.DataFrame:
    """Compare every classifier with a control classifier (Bonferroni–Dunn).

    ``z = (R_i - R_control) / sqrt(k (k + 1) / (6 N))``; the two-sided normal
    p-value is multiplied by the number of comparisons ``k - 1`` (capped at 1).

    Parameters
    ----------
    scores : DataFrame of shape (n_datasets, n_classifiers)
    control : column label of the control classifier
    alpha : float, default=0.05
    lower_is_better : bool, default=True

    Returns
    -------
    DataFrame indexed by the other classifiers, sorted by average rank, with
    columns ``average_rank``, ``rank_difference`` (``R_i - R_control``), ``z``,
    ``pvalue`` (unadjusted), ``pvalue_adjusted`` and ``significant``
    (``pvalue_adjusted < alpha``).

    Examples
    --------
    Kelner & Lerner (2012), Table 8(a) (k = 9, N = 22): a rank difference of 4.659 - 2.591
    gives the adjusted p-value 0.0981 reported there for BNC-MDL.

    References
    ----------
    .. [1] Dunn, O. J. (1961). Multiple comparisons among means. JASA 56, 52–64.
    .. [2] Demšar, J. (2006). Statistical comparisons of classifiers over multiple
       data sets. JMLR 7, 1–30.
    """
    df = _as_score_frame(scores)
    if control not in df.columns:
        raise ValueError(f"control {control!r} is not one of the classifiers {list(df.columns)}")
    ranks = average_ranks(df, lower_is_better=lower_is_better)
    return bonferroni_dunn_from_ranks(ranks, control, df.shape[0], alpha)


def bonferroni_dunn_from_ranks(
    ranks: pd.Series | Mapping[Hashable, float], control: Hashable, n_datasets: int, alpha: float = 0.05
) -> pd.DataFrame:
    """Bonferroni–Dunn test from average ranks (see :func:`bonferroni_dunn_test`)."""
    ranks = pd.Series(ranks, dtype=float)
    k = len(ranks)
    se = np.sqrt(k * (k + 1) / (6.0 * n_datasets))
    others = ranks.drop(index=control).sort_values()
    diff = others - ranks[control]
    z = diff / se
    p = 2.0 * stats.norm.sf(np.abs(z))
    p_adj = np.minimum(1.0, p * (k - 1))
    return pd.DataFrame(
        {
            "average_rank": others,
            "rank_difference": diff,
            "z": z,
            "pvalue": p,
            "pvalue_adjusted": p_adj,
            "significant": p_adj < alpha,
        }
    )


@dataclass(frozen=True)
class WinDrawLoss:
    """Win/draw/loss record of one classifier against another.

    ``pvalue`` is the one-tailed binomial sign test of ``wins`` against
    ``losses`` (draws left out).
    """

    wins: int
    draws: int
    losses: int
    pvalue: float = field(default=float("nan"))

    def __str__(self) -> str:
        return f"{self.wins}/{self.draws}/{self.losses}"


def sign_test(wins: int, losses: int, *, alternative: str = "greater") -> float:
    """One-tailed binomial sign test on a win/loss record.

    Under the null hypothesis wins and losses are equiprobable; draws are not
    counted. ``alternative="greater"`` gives ``P(X >= wins)`` for
    ``X ~ Binomial(wins + losses, ½)``.

    Parameters
    ----------
    wins, losses : int
    alternative : {"greater", "less", "two-sided"}, default="greater"

    Returns
    -------
    float
        The p-value (1.0 when there are no wins and no losses).

    Examples
    --------
    LTAN against AODE in Sun et al. (2017), 22 wins and 12 losses: p = 0.0607.

    References
    ----------
    .. [1] Sun, Wang, Sun (2017). Label-Driven Learning Framework. Entropy 19,
       661, §4.2.
    """
    wins, losses = int(wins), int(losses)
    n = wins + losses
    if n == 0:
        return 1.0
    if alternative == "greater":
        return float(stats.binom.sf(wins - 1, n, 0.5))
    if alternative == "less":
        return float(stats.binom.cdf(wins, n, 0.5))
    if alternative == "two-sided":
        k = max(wins, losses)
        return float(min(1.0, 2.0 * stats.binom.sf(k - 1, n, 0.5)))
    raise ValueError(f"alternative must be 'greater', 'less' or 'two-sided', got {alternative!r}")


def win_draw_loss(
    a: ArrayLike, b: ArrayLike, *, threshold: float = 0.05, lower_is_better: bool = True, atol: float = 1e-12
) -> WinDrawLoss:
    """Win/draw/loss record of classifier ``a`` against ``b`` over datasets.

    On a dataset ``a`` wins when it improves on ``b``'s score by at least
    ``threshold`` relative to ``b``: for losses ``(b - a) / b >= threshold``
    ("reduces the zero-one loss of its opponent by at least 5 %"); it loses
    when ``b`` improves on ``a`` likewise; otherwise it is a draw. With
    ``threshold=0`` any strict improvement counts.

    Parameters
    ----------
    a, b : array-like of shape (n_datasets,)
        Scores of the two classifiers, one per dataset.
    threshold : float, default=0.05
    lower_is_better : bool, default=True
        For higher-is-better scores a win is ``(a - b) / b >= threshold``.
    atol : float, default=1e-12
        Tolerance for the boundary comparison.

    Returns
    -------
    WinDrawLoss
        With the one-tailed :func:`sign_test` p-value of wins against losses.

    Notes
    -----
    With this rule, the printed zero-one losses of Sun et al.'s (2017) Table 4 reproduce
    every cell of its Table 5. Two zero scores are a draw.

    References
    ----------
    .. [1] Sun, Wang, Sun (2017). Label-Driven Learning Framework. Entropy 19,
       661, §4.2.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-D of equal length, got {a.shape} and {b.shape}")
    if not lower_is_better:
        # improvement relative to the opponent's score, in the other direction
        wins_mask = (a - b) >= threshold * np.abs(b) - atol
        loss_mask = (b - a) >= threshold * np.abs(a) - atol
    else:
        wins_mask = (b - a) >= threshold * np.abs(b) - atol
        loss_mask = (a - b) >= threshold * np.abs(a) - atol
    equal = np.isclose(a, b, rtol=0.0, atol=atol)
    wins_mask &= ~equal
    loss_mask &= ~equal
    w, lo = int(wins_mask.sum()), int(loss_mask.sum())
    d = len(a) - w - lo
    return WinDrawLoss(w, d, lo, sign_test(w, lo))


def win_draw_loss_table(
    scores: pd.DataFrame | ArrayLike, *, threshold: float = 0.05, lower_is_better: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """W/D/L of every classifier (rows) against every other (columns).

    Returns
    -------
    records : DataFrame of ``"w/d/l"`` strings (row classifier against column
        classifier; empty on the diagonal)
    pvalues : DataFrame of one-tailed sign-test p-values for the row classifier
        being better (``nan`` on the diagonal)
    """
    df = _as_score_frame(scores)
    names = list(df.columns)
    rec = pd.DataFrame("", index=names, columns=names, dtype=object)
    pv = pd.DataFrame(np.nan, index=names, columns=names)
    for i in names:
        for j in names:
            if i == j:
                continue
            r = win_draw_loss(df[i].to_numpy(), df[j].to_numpy(), threshold=threshold, lower_is_better=lower_is_better)
            rec.loc[i, j] = str(r)
            pv.loc[i, j] = r.pvalue
    return rec, pv


def wilcoxon_signed_rank(
    a: ArrayLike, b: ArrayLike, *, alternative: str = "two-sided", zero_method: str = "wilcox", method: str = "auto"
) -> Any:
    """Wilcoxon signed-rank test on paired scores over datasets.

    A thin wrapper over :func:`scipy.stats.wilcoxon` on ``d = a - b``
    (``alternative="less"`` means ``a`` tends to be lower than ``b``).

    Returns
    -------
    scipy's result object with ``statistic`` and ``pvalue``.

    References
    ----------
    .. [1] Wilcoxon, F. (1945). Individual comparisons by ranking methods.
       Biometrics Bulletin 1, 80–83.
    .. [2] Demšar, J. (2006). Statistical comparisons of classifiers over multiple
       data sets. JMLR 7, 1–30.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    return stats.wilcoxon(a, b, alternative=alternative, zero_method=zero_method, method=method)


@dataclass(frozen=True)
class TTestResult:
    """Result of :func:`corrected_repeated_cv_ttest`."""

    statistic: float
    pvalue: float
    df: int
    mean_difference: float
    std_error: float


def _corrected_difference(a, b, n_splits, n_train, n_test):
    """Mean paired difference, its Nadeau–Bengio corrected standard error, and n."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if d.ndim != 1 or len(d) < 2:
        raise ValueError("need at least two paired per-fold scores")
    if n_splits is not None:
        ratio = 1.0 / (int(n_splits) - 1)
    elif n_train is not None and n_test is not None:
        ratio = float(n_test) / float(n_train)
    else:
        raise ValueError("give either n_splits or both n_train and n_test")
    n = len(d)
    return float(d.mean()), float(np.sqrt((1.0 / n + ratio) * d.var(ddof=1))), n


def corrected_repeated_cv_ttest(
    a: ArrayLike,
    b: ArrayLike,
    *,
    n_train: float | None = None,
    n_test: float | None = None,
    n_splits: int | None = None,
    alternative: str = "two-sided",
) -> TTestResult:
    """Corrected repeated k-fold cross-validation paired t-test.

    With ``d_i = a_i - b_i`` the score differences on the ``n = r k`` folds of an
    r×k CV, mean ``d̄`` and sample variance ``σ̂²`` (ddof = 1),

    ``t = d̄ / sqrt((1/n + n_test/n_train) σ̂²)``, Student t with ``n - 1``
    degrees of freedom. The ``n_test/n_train`` term (Nadeau and Bengio's
    correction) accounts for overlapping training sets; for k-fold CV it is
    ``1/(k - 1)``.

    Parameters
    ----------
    a, b : array-like of shape (n_folds,)
        Per-fold scores of the two classifiers on the same folds.
    n_train, n_test : float, optional
        Training and test set sizes (means over folds).
    n_splits : int, optional
        Alternatively the number of folds k, giving ``n_test/n_train = 1/(k-1)``.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: the mean of ``a - b`` is positive.

    Returns
    -------
    TTestResult

    References
    ----------
    .. [1] Nadeau, C., Bengio, Y. (2003). Inference for the generalization error.
       Machine Learning 52, 239–281.
    .. [2] Bouckaert, R. R., Frank, E. (2004). Evaluating the replicability of
       significance tests for comparing learning algorithms. PAKDD 2004, 3–12.
    .. [3] Kelner, R., Lerner, B. (2012). Learning Bayesian network classifiers by
       risk minimization. IJAR 53, 248–272 (Tables 7 and 10).
    """
    mean, se, n = _corrected_difference(a, b, n_splits, n_train, n_test)
    dof = n - 1
    if se == 0:
        t = 0.0 if mean == 0 else np.sign(mean) * np.inf
    else:
        t = mean / se
    if alternative == "two-sided":
        p = 2.0 * stats.t.sf(abs(t), dof)
    elif alternative == "greater":
        p = stats.t.sf(t, dof)
    elif alternative == "less":
        p = stats.t.cdf(t, dof)
    else:
        raise ValueError(f"unknown alternative {alternative!r}")
    return TTestResult(float(t), float(min(1.0, p)), dof, mean, float(se))


@dataclass(frozen=True)
class BayesianResult:
    """Posterior probabilities of a Bayesian comparison of ``a`` and ``b``.

    With differences ``z = a - b``: ``p_left`` is the posterior probability that
    ``a - b < -rope``, ``p_rope`` that the difference is practically zero and
    ``p_right`` that ``a - b > rope``. For losses, left means ``a`` is better.

    For the signed-rank test the probabilities are those of each region being the
    most probable one (as in the code accompanying Benavoli et al. 2017);
    ``samples`` holds the posterior samples of ``(θ_left, θ_rope, θ_right)``
    (signed-rank), or the location and scale of the posterior of the mean
    difference (correlated t-test).
    """

    p_left: float
    p_rope: float
    p_right: float
    samples: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))


def bayesian_signed_rank(
    a: ArrayLike,
    b: ArrayLike,
    *,
    rope: float = 0.01,
    prior: float = 0.5,
    n_samples: int = 50_000,
    random_state: int | np.random.RandomState | None = None,
) -> BayesianResult:
    """Bayesian signed-rank test with a region of practical equivalence.

    The differences ``z_1..z_n = a - b`` (one per dataset) get a Dirichlet
    process posterior with a pseudo-observation ``z_0 = 0`` of weight ``prior``:
    weights ``w ~ Dirichlet(prior, 1, ..., 1)``. For each sample,

    ``θ_left = Σ_ij w_i w_j I(z_i + z_j < -2 rope)``,
    ``θ_rope = Σ_ij w_i w_j I(|z_i + z_j| <= 2 rope)``,
    ``θ_right = Σ_ij w_i w_j I(z_i + z_j > 2 rope)``

    (sums over i, j = 0..n), and the reported probabilities are the fractions of
    samples in which each θ is the largest (ties shared).

    Parameters
    ----------
    a, b : array-like of shape (n_datasets,)
    rope : float, default=0.01
        Half-width of the region of practical equivalence (0.01 = one point of
        accuracy).
    prior : float, default=0.5
        Strength of the prior pseudo-observation at 0.
    n_samples : int, default=50000
    random_state : int, RandomState or None

    Returns
    -------
    BayesianResult

    References
    ----------
    .. [1] Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a
       change: a tutorial for comparing multiple classifiers through Bayesian
       analysis. JMLR 18(77), 1–36.
    .. [2] Benavoli, A., Mangili, F., Corani, G., Zaffalon, M., Ruggeri, F. (2014).
       A Bayesian Wilcoxon signed-rank test based on the Dirichlet process.
       ICML 2014.
    """
    from sklearn.utils import check_random_state

    z = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if z.ndim != 1 or len(z) == 0:
        raise ValueError("need at least one paired score")
    z = np.concatenate([[0.0], z])
    weights = np.ones(len(z))
    weights[0] = prior
    rng = check_random_state(random_state)
    sums = z[:, None] + z[None, :]
    left = (sums < -2 * rope).astype(float)
    right = (sums > 2 * rope).astype(float)
    theta = np.empty((n_samples, 3))
    chunk = max(1, min(n_samples, 2_000_000 // (len(z) ** 2 + 1)))
    for start in range(0, n_samples, chunk):
        w = rng.dirichlet(weights, min(chunk, n_samples - start))
        t_left = np.einsum("si,ij,sj->s", w, left, w)
        t_right = np.einsum("si,ij,sj->s", w, right, w)
        theta[start : start + len(w), 0] = t_left
        theta[start : start + len(w), 2] = t_right
        theta[start : start + len(w), 1] = 1.0 - t_left - t_right
    winners = np.isclose(theta, theta.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    share = winners / winners.sum(axis=1, keepdims=True)
    p = share.mean(axis=0)
    return BayesianResult(float(p[0]), float(p[1]), float(p[2]), theta)


def bayesian_correlated_ttest(
    a: ArrayLike,
    b: ArrayLike,
    *,
    rope: float = 0.01,
    n_train: float | None = None,
    n_test: float | None = None,
    n_splits: int | None = None,
) -> BayesianResult:
    """Bayesian correlated t-test on the per-fold scores of one dataset.

    The posterior of the mean difference of ``a - b`` over the ``n`` folds of an
    r×k CV is a Student t with ``n - 1`` degrees of freedom, location ``d̄`` and
    scale ``sqrt((1/n + ρ/(1-ρ)) σ̂²)`` with ``ρ = n_test / (n_train + n_test)``
    (so ``ρ/(1-ρ) = n_test/n_train``, the Nadeau–Bengio correction).

    Returns
    -------
    BayesianResult
        Exact posterior probabilities of the three regions (no sampling).

    References
    ----------
    .. [1] Corani, G., Benavoli, A. (2015). A Bayesian approach for comparing
       cross-validated algorithms on multiple data sets. Machine Learning 100,
       285–304.
    .. [2] Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a
       change. JMLR 18(77), 1–36.
    """
    mean, scale, n = _corrected_difference(a, b, n_splits, n_train, n_test)
    if scale == 0:
        p_left = float(mean < -rope)
        p_right = float(mean > rope)
    else:
        dist = stats.t(n - 1, loc=mean, scale=scale)
        p_left = float(dist.cdf(-rope))
        p_right = float(dist.sf(rope))
    return BayesianResult(p_left, max(0.0, 1.0 - p_left - p_right), p_right, np.array([mean, scale]))
