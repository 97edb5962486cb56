"""Tests of bnclf.encoding: MDL (Fayyad & Irani) and quantile discretizers."""

import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from bnclf.encoding._discretize import MDLDiscretizer, QuantileDiscretizer, interval_labels, mdl_cut_points
from bnclf.io._arff import load_arff_xy, write_arff

DATA = Path(__file__).parent / "data"

# Cut points printed by Weka 3.6.14's weka.filters.supervised.attribute.Discretize
# with default options (class = last attribute), read with getCutPoints(i) and
# printed with Java's Double.toString, for the ARFF files copied into tests/data.
WEKA_IRIS = {
    "sepallength": [5.55, 6.15],
    "sepalwidth": [2.95, 3.3499999999999996],
    "petallength": [2.45, 4.75],
    "petalwidth": [0.8, 1.75],
}
WEKA_GLASS = {
    "RI": [1.517335, 1.517985],
    "Na": [14.065],
    "Mg": [2.6950000000000003],
    "Al": [1.39, 1.775],
    "Si": [],
    "K": [0.055, 0.615, 0.745],
    "Ca": [7.02, 8.315000000000001, 10.075],
    "Ba": [0.335],
    "Fe": [],
}
# labor.arff has missing values in every numeric attribute.
WEKA_LABOR = {
    "duration": [],
    "wage-increase-first-year": [2.65],
    "wage-increase-second-year": [3.25],
    "wage-increase-third-year": [3.25],
    "working-hours": [],
    "standby-pay": [6.0],
    "shift-differential": [3.5],
    "statutory-holidays": [10.5],
}
# Number of iris rows in each interval of Weka's discretized output (same run).
WEKA_IRIS_BIN_COUNTS = {
    "sepallength": [59, 36, 55],
    "sepalwidth": [57, 57, 36],
    "petallength": [50, 45, 55],
    "petalwidth": [50, 54, 46],
}


@pytest.fixture(scope="module")
def iris():
    # Weka's iris.arff (UCI's version; sklearn's copy differs in two rows).
    return load_arff_xy(DATA / "iris.arff")


# --------------------------------------------------------------------------- Weka


@pytest.mark.parametrize(
    "name, expected",
    [("iris.arff", WEKA_IRIS), ("glass.arff", WEKA_GLASS), ("labor.arff", WEKA_LABOR)],
)
def test_mdl_cut_points_equal_weka(name, expected):
    X, y = load_arff_xy(DATA / name)
    disc = MDLDiscretizer().fit(X, y)
    assert list(disc.cut_points_) == list(expected)
    for column, cuts in expected.items():
        got = disc.cut_points_[column]
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, np.array(cuts, dtype=float), err_msg=column)


def test_iris_intervals_and_counts_equal_weka(iris):
    X, y = iris
    out = MDLDiscretizer().fit_transform(X, y)
    assert list(out.columns) == list(X.columns)
    assert list(out["petallength"].cat.categories) == [
        "(-inf, 2.45]",
        "(2.45, 4.75]",
        "(4.75, inf)",
    ]
    assert list(out["sepalwidth"].cat.categories) == ["(-inf, 2.95]", "(2.95, 3.35]", "(3.35, inf)"]
    for column, counts in WEKA_IRIS_BIN_COUNTS.items():
        assert out[column].value_counts(sort=False).tolist() == counts


def test_single_bin_column():
    X, y = load_arff_xy(DATA / "glass.arff")
    out = MDLDiscretizer().fit_transform(X, y)
    assert list(out["Si"].cat.categories) == ["(-inf, inf)"]
    assert (out["Si"] == "(-inf, inf)").all()


def _weka_reference(x, y):
    """Literal transcription of Weka 3.6's cutPointsForSubset (one row at a time)."""

    def ln(v):
        return 0.0 if v < 1e-6 else v * math.log(v)

    def entropy(a):
        s = sum(a)
        return 0.0 if s == 0 else (-sum(ln(v) for v in a) + ln(s)) / (s * math.log(2))

    def cond_entropy(m):
        r, t = 0.0, 0.0
        for row in m:
            for v in row:
                r += ln(v)
            r -= ln(sum(row))
            t += sum(row)
        return 0.0 if t == 0 else -r / (t * math.log(2))

    keep = ~np.isnan(x)
    order = np.argsort(x[keep], kind="stable")
    xs, ys = x[keep][order].tolist(), y[keep][order].tolist()
    k = int(max(y) + 1)

    def subset(first, last):
        if last - first < 2:
            return []
        counts = [[0.0] * k, [0.0] * k]
        for i in range(first, last):
            counts[1][ys[i]] += 1
        prior = list(counts[1])
        prior_e = best_e = entropy(prior)
        best, best_counts = -1, None
        for i in range(first, last - 1):
            counts[0][ys[i]] += 1
            counts[1][ys[i]] -= 1
            if xs[i] < xs[i + 1]:
                e = cond_entropy(counts)
                if e < best_e:
                    best_e, best, best_counts = e, i, [list(counts[0]), list(counts[1])]
        if prior_e - best_e <= 0:
            return []
        n = last - first
        kt = sum(v > 0 for v in prior)
        kl = sum(v > 0 for v in best_counts[0])
        kr = sum(v > 0 for v in best_counts[1])
        delta = math.log(3**kt - 2, 2) - (kt * prior_e - kr * entropy(best_counts[1]) - kl * entropy(best_counts[0]))
        if not prior_e - best_e > (math.log(n - 1) / math.log(2) + delta) / n:
            return []
        cut = (xs[best] + xs[best + 1]) / 2.0
        return subset(first, best + 1) + [cut] + subset(best + 1, last)

    return subset(0, len(xs))


@settings(max_examples=60, deadline=None, database=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 2), st.booleans()), min_size=2, max_size=60),
    shift=st.integers(0, 2),
)
def test_vectorized_search_equals_row_by_row_transcription(data, shift):
    x = np.array([float(v + shift * c) if not miss else np.nan for v, c, miss in data])
    y = np.array([c for _, c, _ in data])
    expected = _weka_reference(x, y)
    got = mdl_cut_points(x, y, int(y.max()) + 1)
    np.testing.assert_array_equal(got, np.array(expected, dtype=float))


# --------------------------------------------------------------------------- behaviour


def test_separable_toy_gives_midpoint_cut():
    X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    y = np.array(["a", "a", "a", "b", "b", "b"])
    disc = MDLDiscretizer().fit(X, y)
    np.testing.assert_array_equal(disc.cut_points_["x0"], [6.5])
    assert disc.bin_labels_["x0"] == ["(-inf, 6.5]", "(6.5, inf)"]
    assert disc.transform(X)["x0"].tolist() == ["(-inf, 6.5]"] * 3 + ["(6.5, inf)"] * 3


def test_pure_noise_gives_no_cut():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"noise": rng.normal(size=500)})
    y = rng.integers(0, 2, 500)
    disc = MDLDiscretizer().fit(X, y)
    assert disc.cut_points_["noise"].size == 0
    out = disc.transform(X)
    assert list(out["noise"].cat.categories) == ["(-inf, inf)"]
    assert out["noise"].notna().all()


def test_missing_values_are_ignored_and_preserved(iris):
    X, y = iris
    X_missing = X.copy()
    rng = np.random.default_rng(1)
    holes = rng.random(X.shape) < 0.1
    X_missing = X_missing.mask(holes)
    disc = MDLDiscretizer().fit(X_missing, y)
    for column in X.columns:
        rows = ~holes[:, X.columns.get_loc(column)]
        alone = mdl_cut_points(X[column].to_numpy()[rows], pd.factorize(y)[0][rows], 3)
        np.testing.assert_array_equal(disc.cut_points_[column], alone)
    out = disc.transform(X_missing)
    np.testing.assert_array_equal(out.isna().to_numpy(), holes)


def test_fitted_on_training_rows_only():
    X = pd.DataFrame({"v": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0]})
    y = [0, 0, 0, 1, 1, 1]
    disc = MDLDiscretizer().fit(X, y)
    new = pd.DataFrame({"v": [-1e9, 6.5, 6.5000001, 1e9, np.inf, -np.inf, np.nan]}, index=list("abcdefg"))
    out = disc.transform(new)
    assert out.index.tolist() == list("abcdefg")
    assert out["v"].cat.codes.tolist() == [0, 0, 1, 1, 1, 0, -1]
    np.testing.assert_array_equal(disc.cut_points_["v"], [6.5])  # transform does not refit


def test_only_float_columns_by_default_others_pass_through():
    rng = np.random.default_rng(2)
    n = 60
    y = np.repeat([0, 1], n // 2)
    X = pd.DataFrame(
        {
            "f": np.where(y == 1, 5.0, 0.0) + rng.random(n),
            "i": rng.integers(0, 3, n),
            "c": pd.Categorical(rng.choice(["u", "v"], n)),
            "o": rng.choice(["p", "q"], n).astype(object),
            "b": rng.random(n) < 0.5,
        }
    )
    disc = MDLDiscretizer().fit(X, y)
    assert disc.columns_ == ["f"] and list(disc.cut_points_) == ["f"]
    out = disc.transform(X)
    assert isinstance(out["f"].dtype, pd.CategoricalDtype)
    for column in ["i", "c", "o", "b"]:
        pdt.assert_series_equal(out[column], X[column])
    assert disc.feature_names_in_.tolist() == list("ficob")
    assert disc.n_features_in_ == 5
    pdt.assert_frame_equal(X, X.copy())  # input untouched

    explicit = MDLDiscretizer(columns=["i", "f"]).fit(X, y)
    assert explicit.columns_ == ["i", "f"]
    assert isinstance(explicit.transform(X)["i"].dtype, pd.CategoricalDtype)
    with pytest.raises(ValueError, match="'o'.*non-numeric"):
        MDLDiscretizer(columns=["o"]).fit(X, y)
    with pytest.raises(ValueError, match=r"\['zz'\]"):
        MDLDiscretizer(columns=["zz"]).fit(X, y)


def test_ndarray_input(iris):
    X, y = iris
    disc = MDLDiscretizer().fit(X.to_numpy(), y.to_numpy())
    assert not hasattr(disc, "feature_names_in_")
    assert disc.n_features_in_ == 4
    assert list(disc.cut_points_) == ["x0", "x1", "x2", "x3"]
    np.testing.assert_array_equal(disc.cut_points_["x2"], WEKA_IRIS["petallength"])
    out = disc.transform(X.to_numpy())
    assert list(out.columns) == ["x0", "x1", "x2", "x3"]
    assert disc.get_feature_names_out().tolist() == ["x0", "x1", "x2", "x3"]


def test_validation_errors(iris):
    X, y = iris
    y_nan = y.astype(object).copy()
    y_nan.iloc[3] = np.nan
    with pytest.raises(ValueError, match="y contains 1 missing value.*Drop those rows"):
        MDLDiscretizer().fit(X, y_nan)
    with pytest.raises(ValueError, match="X has 150 rows but y has 149"):
        MDLDiscretizer().fit(X, y[:-1])
    with pytest.raises(ValueError, match="requires y to be passed"):
        MDLDiscretizer().fit(X)
    disc = MDLDiscretizer().fit(X, y)
    with pytest.raises(ValueError, match=r"missing the columns \['petalwidth'\]"):
        disc.transform(X.drop(columns="petalwidth"))
    with pytest.raises(ValueError, match=r"\['extra'\]"):
        disc.transform(X.assign(extra=1.0))
    with pytest.raises(ValueError, match="X has 3 features, but MDLDiscretizer is expecting 4"):
        disc.transform(X.to_numpy()[:, :3])
    # same columns in another order: output follows the fit order
    out = disc.transform(X[X.columns[::-1]])
    assert list(out.columns) == list(X.columns)


def test_pipeline_clone_and_cross_validation(iris):
    X, y = iris
    pipe = make_pipeline(MDLDiscretizer(), OrdinalEncoder(), CategoricalNB())
    pipe.fit(X, y)
    assert pipe.score(X, y) > 0.9
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.85

    disc = MDLDiscretizer(columns=["petallength"])
    copy = clone(disc)
    assert copy.get_params() == {"columns": ["petallength"]}
    assert not hasattr(copy, "cut_points_")
    quant = clone(QuantileDiscretizer(n_bins=3))
    assert quant.get_params() == {"n_bins": 3, "columns": None}


def test_refit_resets_state(iris):
    X, y = iris
    disc = MDLDiscretizer().fit(X, y)
    disc.fit(X.to_numpy(), y)
    assert not hasattr(disc, "feature_names_in_")
    assert list(disc.cut_points_) == ["x0", "x1", "x2", "x3"]


def test_interval_labels_precision():
    assert interval_labels([]) == ["(-inf, inf)"]
    assert interval_labels([3.3499999999999996]) == ["(-inf, 3.35]", "(3.35, inf)"]
    labels = interval_labels([1.0000001, 1.0000002])
    assert len(set(labels)) == 3
    assert labels[1] == "(1.0000001, 1.0000002]"


# --------------------------------------------------------------------------- quantiles


def test_quantile_edges_equal_numpy_quartiles(iris):
    X, _ = iris
    disc = QuantileDiscretizer().fit(X)
    for column in X.columns:
        np.testing.assert_array_equal(disc.cut_points_[column], np.unique(np.quantile(X[column], [0.25, 0.5, 0.75])))
    out = disc.transform(X)
    counts = out["sepallength"].value_counts(sort=False).to_numpy()
    assert counts.sum() == 150 and counts.min() >= 30
    assert len(out["sepallength"].cat.categories) == 4


def test_quantile_duplicate_edges_collapse():
    x = np.array([0.0] * 10 + [1.0, 2.0, 3.0, 4.0])
    disc = QuantileDiscretizer(n_bins=4).fit(x.reshape(-1, 1))
    # quartiles are 0, 0, 0.75: the two zeros collapse
    np.testing.assert_array_equal(np.quantile(x, [0.25, 0.5, 0.75]), [0.0, 0.0, 0.75])
    np.testing.assert_array_equal(disc.cut_points_["x0"], [0.0, 0.75])
    assert disc.bin_labels_["x0"] == ["(-inf, 0]", "(0, 0.75]", "(0.75, inf)"]

    constant = QuantileDiscretizer().fit(np.ones((8, 1)))
    assert constant.cut_points_["x0"].size == 0
    binary = QuantileDiscretizer().fit(np.array([[0.0]] * 2 + [[1.0]] * 6))
    # quartiles 0.75, 1, 1: a cut at the maximum would leave the top bin empty
    np.testing.assert_array_equal(binary.cut_points_["x0"], [0.75])


def test_quantile_missing_values_and_y_optional():
    x = np.array([1.0, np.nan, 2.0, 3.0, 4.0, np.nan, 5.0])
    disc = QuantileDiscretizer(n_bins=2).fit(x.reshape(-1, 1), y=np.arange(7))
    np.testing.assert_array_equal(disc.cut_points_["x0"], [3.0])
    out = disc.transform(x.reshape(-1, 1))["x0"]
    assert out.isna().tolist() == list(np.isnan(x))
    assert out.cat.codes.tolist() == [0, -1, 0, 0, 1, -1, 1]
    with pytest.raises(ValueError, match="n_bins"):
        QuantileDiscretizer(n_bins=1).fit(x.reshape(-1, 1))


def test_quantile_in_pipeline(iris):
    X, y = iris
    pipe = make_pipeline(QuantileDiscretizer(), OrdinalEncoder(), CategoricalNB())
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.8


# --------------------------------------------------------------------------- Weka (slow)

_WEKA_JAR = "/usr/share/java/weka.jar"
_JAVA = r"""
import weka.core.Instances;
import weka.core.converters.ConverterUtils.DataSource;
import weka.filters.Filter;
import weka.filters.supervised.attribute.Discretize;
public class CutPoints {
  public static void main(String[] args) throws Exception {
    for (String path : args) {
      Instances d = DataSource.read(path);
      d.setClassIndex(d.numAttributes() - 1);
      Discretize f = new Discretize();
      f.setAttributeIndices("first-last");
      f.setInputFormat(d);
      Filter.useFilter(d, f);
      for (int i = 0; i < d.numAttributes(); i++) {
        if (!d.attribute(i).isNumeric()) continue;
        double[] c = f.getCutPoints(i);
        StringBuilder sb = new StringBuilder(path + "|" + d.attribute(i).name() + "|");
        if (c != null) for (double v : c) sb.append(" ").append(Double.toString(v));
        System.out.println(sb);
      }
    }
  }
}
"""


@pytest.mark.slow
@pytest.mark.skipif(
    not (os.path.exists(_WEKA_JAR) and shutil.which("javac") and shutil.which("java")),
    reason="needs Weka 3.6 (weka.jar) and a JDK",
)
def test_random_datasets_equal_live_weka(tmp_path):
    rng = np.random.default_rng(12345)
    paths = []
    for t in range(60):
        n = int(rng.choice([5, 20, 60, 200, 1000]))
        k = int(rng.integers(2, 6))
        y = rng.integers(0, k, n)
        columns = {}
        for j in range(3):
            kind = j % 3
            if kind == 0:
                x = np.round(rng.normal(y * rng.uniform(0, 2), 1), int(rng.integers(0, 3)))
            elif kind == 1:
                x = rng.integers(0, 5, n).astype(float) + (y == 1)
            else:
                x = np.round(rng.exponential(1 + y, n), 1)
            x[rng.random(n) < 0.1 * rng.random()] = np.nan
            columns[f"a{j}"] = x
        labels = [f"c{v}" for v in range(k)]
        columns["class"] = pd.Categorical([labels[v] for v in y], categories=labels)
        path = tmp_path / f"r{t:02d}.arff"
        write_arff(pd.DataFrame(columns), path)
        paths.append(str(path))
    (tmp_path / "CutPoints.java").write_text(_JAVA)
    subprocess.run(["javac", "-cp", _WEKA_JAR, "CutPoints.java"], cwd=tmp_path, check=True)
    result = subprocess.run(
        ["java", "-cp", f"{_WEKA_JAR}:{tmp_path}", "CutPoints", *paths],
        capture_output=True,
        text=True,
        check=True,
    )
    fitted = {}
    lines = result.stdout.splitlines()
    assert len(lines) == 3 * len(paths)
    for line in lines:
        path, column, text = line.split("|")
        if path not in fitted:
            X, y = load_arff_xy(path)
            fitted[path] = MDLDiscretizer().fit(X, y).cut_points_
        expected = [float(v) for v in text.split()]
        assert fitted[path][column].tolist() == expected, (path, column)


def test_quantile_bins_ignore_any_target_even_a_label_matrix():
    X = pd.DataFrame({"v": np.arange(20.0)})
    alone = QuantileDiscretizer(n_bins=4).fit(X)
    with_labels = QuantileDiscretizer(n_bins=4).fit(X, np.eye(20, 3))
    np.testing.assert_array_equal(alone.cut_points_["v"], with_labels.cut_points_["v"])


def test_infinite_values_get_finite_cut_points_and_intervals_of_their_own():
    """-inf and +inf rows, each its own class: MDL separates them with finite cut points
    (a midpoint next to an infinity would be infinite or NaN), and the quantile bins too."""
    from bnclf import QuantileDiscretizer

    x = np.r_[[-np.inf] * 20, np.linspace(0, 1, 40), [np.inf] * 20]
    y = np.r_[[0] * 20, [1] * 40, [2] * 20]
    frame = pd.DataFrame({"x": x})
    for disc in (MDLDiscretizer().fit(frame, y), QuantileDiscretizer(n_bins=4).fit(frame)):
        cuts = disc.cut_points_["x"]
        assert np.isfinite(cuts).all() and (cuts[1:] > cuts[:-1]).all()
        assert all("nan" not in label and "(inf" not in label for label in disc.bin_labels_["x"])
        bins = disc.transform(frame)["x"]
        first, last = disc.bin_labels_["x"][0], disc.bin_labels_["x"][-1]
        assert (bins[x == -np.inf] == first).all() and (bins[np.isfinite(x)] != first).all()
        assert (bins[x == np.inf] == last).all() and (bins[np.isfinite(x)] != last).all()
    mdl = MDLDiscretizer().fit(frame, y)
    table = pd.crosstab(mdl.transform(frame)["x"], y)
    assert (table.gt(0).sum(axis=1) == 1).all() and len(table) == 3  # three class-pure intervals
    huge = np.r_[[1e308] * 10, [1.5e308] * 10]  # the midpoint of two huge values overflows
    cuts = MDLDiscretizer().fit(pd.DataFrame({"x": huge}), [0] * 10 + [1] * 10).cut_points_["x"]
    assert np.isfinite(cuts).all() and 1e308 <= cuts[0] < 1.5e308
