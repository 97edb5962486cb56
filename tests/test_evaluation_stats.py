"""Statistical tests of bnclf.evaluation against scipy, the seed papers and hand computations."""

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bnclf.evaluation import _stats_tests as st

DATA = Path(__file__).parent / "data"
TABLE4_CLASSIFIERS = ["LTAN", "NB", "TAN", "KDB", "AODE", "WATAN", "AKDB"]


@pytest.fixture(scope="module")
def table4():
    """Sun et al. (2017), Table 4: zero-one losses of 7 classifiers on 40 datasets, as printed."""
    df = pd.read_csv(DATA / "sun2017_table4.csv")
    assert df.shape[0] == 40
    return df.set_index("dataset")[TABLE4_CLASSIFIERS]


# --- agreement with scipy.stats --------------------------------------------------------


def _random_scores(seed, n=15, k=5, ties=False):
    rng = np.random.default_rng(seed)
    x = rng.random((n, k))
    if ties:
        x = np.round(x * 4) / 4  # many ties within rows
    return pd.DataFrame(x, columns=[f"c{j}" for j in range(k)])


@pytest.mark.parametrize("seed,ties", [(0, False), (1, True), (2, True)])
def test_friedman_equals_scipy(seed, ties):
    scores = _random_scores(seed, ties=ties)
    ours = st.friedman_test(scores)
    ref = stats.friedmanchisquare(*[scores[c] for c in scores.columns])
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


def test_iman_davenport_formula():
    scores = _random_scores(3, n=12, k=4)
    res = st.friedman_test(scores)
    n, k = 12, 4
    ff = (n - 1) * res.statistic / (n * (k - 1) - res.statistic)
    assert res.iman_davenport == pytest.approx(ff)
    assert res.iman_davenport_pvalue == pytest.approx(stats.f.sf(ff, k - 1, (k - 1) * (n - 1)))


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_wilcoxon_equals_scipy(alternative):
    rng = np.random.default_rng(4)
    a = rng.random(20)
    b = a + rng.normal(0.05, 0.1, 20)
    ours = st.wilcoxon_signed_rank(a, b, alternative=alternative)
    ref = stats.wilcoxon(a, b, alternative=alternative)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert ours.statistic == pytest.approx(ref.statistic)


@pytest.mark.parametrize("wins,losses", [(22, 12), (8, 2), (0, 5), (5, 5), (30, 4), (1, 0)])
def test_sign_test_equals_binomtest(wins, losses):
    for alt in ("greater", "less", "two-sided"):
        ref = stats.binomtest(wins, wins + losses, 0.5, alternative=alt).pvalue
        assert st.sign_test(wins, losses, alternative=alt) == pytest.approx(ref, rel=1e-12)


# --- Sun, Wang & Sun (2017), Section 4.2 -----------------------------------------------------


def test_nemenyi_cd_sun2017():
    # 7 classifiers, 40 datasets, alpha = 0.05: CD = 1.4245 (q_0.05 = 2.949)
    assert st.nemenyi_q(7, 0.05) == 2.949
    assert round(st.nemenyi_critical_difference(7, 40, 0.05), 4) == 1.4245


def test_nemenyi_q_exact():
    q = st.nemenyi_q(7, 0.05, table="exact")
    assert stats.studentized_range.sf(q * np.sqrt(2), 7, np.inf) == pytest.approx(0.05, abs=1e-6)
    assert q == pytest.approx(2.949, abs=1e-3)
    # outside the tabulated range the exact value is used
    assert st.nemenyi_q(12, 0.05) == pytest.approx(st.nemenyi_q(12, 0.05, table="exact"))


def test_average_ranks_table4(table4):
    ranks = st.average_ranks(table4)
    # the values quoted for Sun et al. (2017) (three decimals, halves rounded up) ...
    quoted = {
        "LTAN": "2.425",
        "NB": "5.5",
        "TAN": "4.438",
        "KDB": "4.7",
        "AODE": "3.488",
        "WATAN": "4.275",
        "AKDB": "3.175",
    }
    # ... and the exact averages (rank sums over 40 datasets are multiples of 1/2)
    exact = {"LTAN": 2.425, "NB": 5.5, "TAN": 4.4375, "KDB": 4.7, "AODE": 3.4875, "WATAN": 4.275, "AKDB": 3.175}
    for name, value in exact.items():
        assert ranks[name] == pytest.approx(value, abs=1e-12), name
        rounded = Decimal(repr(float(ranks[name]))).quantize(Decimal("0.001"), ROUND_HALF_UP)
        assert rounded == Decimal(quoted[name]), name
    # ties are averaged: Lung Cancer has LTAN = TAN = KDB = 0.5938 (ranks 3, 4, 5 -> 4)
    r = st.rank_scores(table4)
    assert r.loc["Lung Cancer", ["LTAN", "TAN", "KDB"]].tolist() == [4.0, 4.0, 4.0]


def test_friedman_table4(table4):
    res = st.friedman_test(table4)
    assert round(res.statistic, 3) == 57.806
    assert res.df == 6
    assert res.statistic > stats.chi2.ppf(0.95, 6)
    assert round(stats.chi2.ppf(0.95, 6), 3) == 12.592


def test_win_draw_loss_reproduces_table5(table4):
    # Sun et al. (2017), Table 5 (row classifier against column classifier)
    table5 = {
        ("TAN", "NB"): "26/3/11",
        ("KDB", "NB"): "26/4/10",
        ("KDB", "TAN"): "7/22/11",
        ("AODE", "NB"): "28/7/5",
        ("AODE", "TAN"): "21/4/15",
        ("AODE", "KDB"): "20/8/12",
        ("WATAN", "NB"): "28/1/11",
        ("WATAN", "TAN"): "5/33/2",
        ("WATAN", "KDB"): "13/20/7",
        ("WATAN", "AODE"): "13/7/20",
        ("AKDB", "NB"): "27/7/6",
        ("AKDB", "TAN"): "21/9/10",
        ("AKDB", "KDB"): "20/15/5",
        ("AKDB", "AODE"): "16/8/16",
        ("AKDB", "WATAN"): "22/10/8",
        ("LTAN", "NB"): "30/6/4",
        ("LTAN", "TAN"): "27/9/4",
        ("LTAN", "KDB"): "26/9/5",
        ("LTAN", "AODE"): "22/6/12",
        ("LTAN", "WATAN"): "25/11/4",
        ("LTAN", "AKDB"): "18/15/7",
    }
    records, pvalues = st.win_draw_loss_table(table4)
    for (row, col), expected in table5.items():
        assert records.loc[row, col] == expected, (row, col)
    # "the comparison result with AODE is almost significant (p = 0.0607)"
    assert round(pvalues.loc["LTAN", "AODE"], 4) == 0.0607
    assert pvalues.loc["LTAN", "TAN"] < 0.05


def test_ltan_vs_tan_marks(table4):
    # the circles/bullets of Table 4 mark LTAN improving/degrading TAN by at least 5 %
    df = pd.read_csv(DATA / "sun2017_table4.csv").set_index("dataset")
    for name, row in table4.iterrows():
        r = st.win_draw_loss([row["LTAN"]], [row["TAN"]])
        mark = df.loc[name, "ltan_vs_tan"]
        expected = (1, 0, 0) if mark == "improvement" else (0, 0, 1) if mark == "degradation" else (0, 1, 0)
        assert (r.wins, r.draws, r.losses) == expected, name


# --- Kelner & Lerner (2012), Table 8(a) ------------------------------------------------------


def test_bonferroni_dunn_kelner2012_table8a():
    ranks = {
        "RMCV": 2.591,
        "BNC-MDL": 4.659,
        "MDL (NBC)": 4.932,
        "NBC": 5.000,
        "TAN": 5.091,
        "MDL (empty)": 5.341,
        "K2 (empty)": 5.364,
        "K2 (NBC)": 5.386,
        "BNC-2P": 6.636,
    }
    expected = {
        "BNC-MDL": 0.0981,
        "MDL (NBC)": 0.0367,
        "NBC": 0.0282,
        "TAN": 0.0197,
        "MDL (empty)": 0.0069,
        "K2 (empty)": 0.0063,
        "K2 (NBC)": 0.0057,
    }
    res = st.bonferroni_dunn_from_ranks(ranks, "RMCV", n_datasets=22)
    for name, p in expected.items():
        assert round(res.loc[name, "pvalue_adjusted"], 4) == p, name
    assert res.loc["BNC-2P", "pvalue_adjusted"] < 1e-4
    assert list(res.index) == list(expected) + ["BNC-2P"]  # sorted by rank


def test_bonferroni_dunn_test_matches_ranks_version():
    scores = _random_scores(5, n=10, k=4)
    a = st.bonferroni_dunn_test(scores, "c0")
    b = st.bonferroni_dunn_from_ranks(st.average_ranks(scores), "c0", 10)
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="control"):
        st.bonferroni_dunn_test(scores, "nope")


def test_bonferroni_dunn_cd():
    # Demšar's Table 5(b): q_0.05 = 2.638 for k = 7
    cd = st.bonferroni_dunn_critical_difference(7, 40, 0.05)
    assert cd == pytest.approx(2.638 * np.sqrt(7 * 8 / 240))
    exact = st.bonferroni_dunn_critical_difference(7, 40, 0.05, table="exact")
    assert exact == pytest.approx(stats.norm.isf(0.05 / 12) * np.sqrt(7 * 8 / 240))


# --- hand examples ------------------------------------------------------------------------


def test_win_draw_loss_hand_example():
    a = [0.10, 0.20, 0.30, 0.00, 0.50, 0.95]
    b = [0.20, 0.20, 0.29, 0.00, 0.40, 1.00]
    # win (50 %), draw (equal), draw (3.3 % < 5 %), draw (both 0), loss (20 %), win (exactly 5 %)
    r = st.win_draw_loss(a, b)
    assert (r.wins, r.draws, r.losses) == (2, 3, 1)
    assert str(r) == "2/3/1"
    assert r.pvalue == pytest.approx(4 / 8)  # P(X >= 2 | n = 3)
    # higher-is-better orientation reverses the outcome
    r2 = st.win_draw_loss(a, b, lower_is_better=False)
    assert (r2.wins, r2.losses) == (1, 2)
    # threshold 0: any strict difference counts
    r0 = st.win_draw_loss(a, b, threshold=0.0)
    assert (r0.wins, r0.draws, r0.losses) == (2, 2, 2)


def test_sign_test_hand_example():
    # 8 wins, 2 losses: P(X >= 8) = (C(10,8) + C(10,9) + C(10,10)) / 2^10 = 56/1024
    assert st.sign_test(8, 2) == pytest.approx(56 / 1024)
    assert st.sign_test(0, 0) == 1.0


def test_corrected_ttest_hand_example():
    # 2 x 5-fold CV: n = 10 differences, n_test / n_train = 1/4
    d = np.array([0.02, 0.01, 0.03, 0.00, 0.04, 0.02, 0.01, 0.03, 0.02, 0.02])
    b = np.full(10, 0.2)
    a = b + d
    # mean 0.02, sum of squared deviations 12e-4, sample variance 12e-4 / 9
    t_hand = 0.02 / np.sqrt((1 / 10 + 1 / 4) * 12e-4 / 9)
    res = st.corrected_repeated_cv_ttest(a, b, n_splits=5)
    assert res.statistic == pytest.approx(t_hand, rel=1e-9)
    assert res.statistic == pytest.approx(2.92770, abs=1e-4)
    assert res.df == 9
    assert res.pvalue == pytest.approx(2 * stats.t.sf(t_hand, 9), rel=1e-9)
    same = st.corrected_repeated_cv_ttest(a, b, n_train=400, n_test=100)
    assert same.statistic == pytest.approx(res.statistic)
    one = st.corrected_repeated_cv_ttest(a, b, n_splits=5, alternative="greater")
    assert one.pvalue == pytest.approx(res.pvalue / 2)
    # the corrected test is more conservative than the naive paired t-test
    assert res.pvalue > stats.ttest_rel(a, b).pvalue


def test_nemenyi_test_pvalues():
    scores = _random_scores(6, n=30, k=4)
    p = st.nemenyi_test(scores)
    assert np.allclose(p.to_numpy(), p.to_numpy().T)
    assert np.allclose(np.diag(p), 1.0)
    ranks = st.average_ranks(scores)
    cd = st.nemenyi_critical_difference(4, 30, 0.05, table="exact")
    for a in scores.columns:
        for b in scores.columns:
            if a != b:
                assert (p.loc[a, b] < 0.05) == (abs(ranks[a] - ranks[b]) > cd)


# --- Bayesian tests -------------------------------------------------------------------------


def test_bayesian_signed_rank_single_difference():
    # z = (0, 0.5) with prior weight 0.5 at 0: theta_rope = w0^2, theta_right = 1 - w0^2,
    # w0 ~ Beta(0.5, 1), so P(right is largest) = P(w0 < 1/sqrt 2) = (1/sqrt 2)^0.5
    res = st.bayesian_signed_rank([0.5], [0.0], rope=0.01, n_samples=50_000, random_state=0)
    assert res.p_right == pytest.approx(2**-0.25, abs=0.01)
    assert res.p_left == 0.0
    assert res.p_rope == pytest.approx(1 - 2**-0.25, abs=0.01)


def test_bayesian_signed_rank_behaviour():
    rng = np.random.default_rng(0)
    b = rng.random(20)
    better = st.bayesian_signed_rank(b + 0.05, b, rope=0.01, n_samples=5000, random_state=1)
    assert better.p_right > 0.95
    swapped = st.bayesian_signed_rank(b, b + 0.05, rope=0.01, n_samples=5000, random_state=1)
    assert swapped.p_left == pytest.approx(better.p_right)
    equal = st.bayesian_signed_rank(b + rng.normal(0, 0.001, 20), b, rope=0.01, n_samples=5000, random_state=1)
    assert equal.p_rope > 0.95
    total = better.p_left + better.p_rope + better.p_right
    assert total == pytest.approx(1.0)


def test_bayesian_correlated_ttest():
    d = np.array([0.02, 0.01, 0.03, 0.00, 0.04, 0.02, 0.01, 0.03, 0.02, 0.02])
    res = st.bayesian_correlated_ttest(0.2 + d, np.full(10, 0.2), rope=0.01, n_splits=5)
    scale = np.sqrt((1 / 10 + 1 / 4) * 12e-4 / 9)
    assert res.p_right == pytest.approx(stats.t.sf((0.01 - 0.02) / scale, 9))
    assert res.p_left == pytest.approx(stats.t.cdf((-0.01 - 0.02) / scale, 9))
    assert res.p_left + res.p_rope + res.p_right == pytest.approx(1.0)


def test_scores_validation():
    with pytest.raises(ValueError, match="missing"):
        st.friedman_test(pd.DataFrame({"a": [1.0, np.nan], "b": [1.0, 2.0]}))
    with pytest.raises(ValueError, match="two classifiers"):
        st.average_ranks(pd.DataFrame({"a": [1.0, 2.0]}))
    arr = st.average_ranks(np.array([[0.1, 0.2], [0.3, 0.2]]))
    assert arr.tolist() == [1.5, 1.5]
