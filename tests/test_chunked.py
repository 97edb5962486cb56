"""Fitting from chunks and Dask DataFrames equals the in-memory fit, bit for bit.

Counts are additive over rows and sums of integer counts are exact, so a model learned
from per-chunk (per-partition) count tables must have the same structure and the same
log-CPT arrays (``np.array_equal``) as the model fitted on the concatenated rows.
"""

import numpy as np
import pandas as pd
import pytest

from bnclf import (
    AODEClassifier,
    ATANClassifier,
    ChowLiuMultinetClassifier,
    ETANClassifier,
    KDBClassifier,
    LKDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
    WAODEClassifier,
    WATANClassifier,
)
from bnclf.counts._cache import CountCache
from bnclf.counts._chunks import UnseenCategoryError
from bnclf.counts._summary import CountSummary, MissingCountsError
from bnclf.datasets import load_dataset
from bnclf.encoding._frames import DiscreteData

LEARNERS = {
    "NB": NaiveBayesClassifier,
    "TAN": TANClassifier,
    "KDB2": lambda **kw: KDBClassifier(k=2, **kw),
}
OTHERS = {
    "KDB1": lambda **kw: KDBClassifier(k=1, **kw),
    "KDB3": lambda **kw: KDBClassifier(k=3, **kw),
    "AODE": AODEClassifier,
    "AODE-weka": lambda **kw: AODEClassifier(smoothing="weka", **kw),
    "WAODE": WAODEClassifier,
    "ATAN": ATANClassifier,
    "WATAN": WATANClassifier,
    "BMC-CL": ChowLiuMultinetClassifier,
}


@pytest.fixture(scope="module")
def kr():
    return load_dataset("kr-vs-kp")


@pytest.fixture(scope="module")
def soybean():
    return load_dataset("soybean")


def assert_same_model(a, b):
    """Same classes, states, structure(s) and log-CPT arrays, bit for bit."""
    assert np.array_equal(a.classes_, b.classes_) and a.classes_.dtype == b.classes_.dtype
    assert a.categories_ == b.categories_
    assert a.class_name_ == b.class_name_ and a.n_features_in_ == b.n_features_in_
    members_a, members_b = a.network_members(), b.network_members()
    assert len(members_a) == len(members_b)
    for (key_a, net_a), (key_b, net_b) in zip(members_a, members_b):
        assert key_a == key_b and net_a.families == net_b.families
        assert len(net_a.log_cpts) == len(net_b.log_cpts)
        for table_a, table_b in zip(net_a.log_cpts, net_b.log_cpts):
            assert table_a.shape == table_b.shape and np.array_equal(table_a, table_b)
    for attr in ("weights_", "class_log_prior_"):
        if hasattr(a, attr):
            assert np.array_equal(getattr(a, attr), getattr(b, attr))


def chunks_of(X, y, size):
    return [(X.iloc[i : i + size], y.iloc[i : i + size]) for i in range(0, len(X), size)]


# -- fit_chunks ------------------------------------------------------------------------------
@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("dataset", ["kr-vs-kp", "soybean"])
def test_chunked_fit_equals_in_memory_fit(learner, dataset, kr, soybean):
    X, y = kr if dataset == "kr-vs-kp" else soybean
    make = LEARNERS[learner]
    a = make().fit(X, y)
    b = make().fit_chunks(chunks_of(X, y, 500))
    assert_same_model(a, b)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not hasattr(a, "_rows") and not hasattr(b, "_rows")  # a model keeps counts, not rows
    assert isinstance(b.counts_, CountSummary) and b.counts_.n_samples == len(X)


@pytest.mark.parametrize("learner", LEARNERS)
def test_chunked_fit_with_missing_values_ignored(learner, soybean):
    X, y = soybean
    a = LEARNERS[learner](missing="ignore").fit(X, y)
    b = LEARNERS[learner](missing="ignore").fit_chunks(chunks_of(X, y, 150))
    assert_same_model(a, b)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("learner", OTHERS)
def test_other_supported_learners(learner, soybean):
    X, y = soybean
    a = OTHERS[learner]().fit(X, y)
    b = OTHERS[learner]().fit_chunks(chunks_of(X, y, 200))
    assert_same_model(a, b)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


def test_undeclared_columns_are_collected_in_a_first_pass(soybean):
    """Object and integer columns get their sorted values over all chunks, missing values
    a ``<missing>`` state where any chunk has one, and string labels; uneven chunks, a
    function returning a new generator, and plain arrays (names x0, x1, ...)."""
    X, y = soybean
    X = X.astype(object).where(X.notna(), None)
    X["number"] = np.random.default_rng(0).integers(0, 4, len(X))
    y = y.astype(str)
    a = TANClassifier().fit(X, y)

    def chunks():
        for i in range(0, len(X), 97):
            yield X.iloc[i : i + 97], y.iloc[i : i + 97]

    assert_same_model(a, TANClassifier().fit_chunks(chunks))
    arrays = [(X.to_numpy()[i : i + 200], y.to_numpy()[i : i + 200]) for i in range(0, len(X), 200)]
    a = KDBClassifier(k=2).fit(X.to_numpy(), y.to_numpy())
    b = KDBClassifier(k=2).fit_chunks(arrays)
    assert_same_model(a, b)
    assert not hasattr(b, "feature_names_in_")


def test_declared_categories_and_classes_allow_one_pass_over_an_iterator(soybean):
    X, y = soybean
    a = TANClassifier().fit(X, y)
    b = TANClassifier().fit_chunks((X.iloc[i : i + 100], y.iloc[i : i + 100]) for i in range(0, len(X), 100))
    assert_same_model(a, b)
    # categories= and classes= declare object columns and labels
    Xo, yo = X.astype(object), y.astype(str)
    categories = {name: list(X[name].cat.categories) for name in X.columns}
    classes = list(y.cat.categories) + ["never-seen"]  # a declared class with no rows is dropped
    b = NaiveBayesClassifier().fit_chunks(
        ((Xo.iloc[i : i + 100], yo.iloc[i : i + 100]) for i in range(0, len(X), 100)),
        categories=categories,
        classes=classes,
    )
    assert_same_model(NaiveBayesClassifier().fit(X, yo), b)


def test_an_iterator_that_needs_another_pass_is_refused(soybean):
    X, y = soybean
    with pytest.raises(ValueError, match="second pass"):
        KDBClassifier(k=2).fit_chunks((X.iloc[i : i + 100], y.iloc[i : i + 100]) for i in range(0, len(X), 100))
    Xo = X.astype(object)
    with pytest.raises(ValueError, match=r"can be read once.*'date'.*Pass a list"):
        TANClassifier().fit_chunks((Xo.iloc[i : i + 100], y.iloc[i : i + 100]) for i in range(0, len(X), 100))


def test_unseen_category_in_a_chunk_names_the_column_and_the_fix(soybean):
    X, y = soybean
    # the first chunk declares the categories of 'date' without 'july'
    first = X.iloc[:300].copy()
    first["date"] = first["date"].astype(pd.CategoricalDtype([c for c in X["date"].cat.categories if c != "july"]))
    rest = X.iloc[300:]
    assert (rest["date"] == "july").any()
    with pytest.raises(UnseenCategoryError, match=r"column 'date' has values \['july'\] in chunk 1") as info:
        TANClassifier().fit_chunks([(first, y.iloc[:300]), (rest, y.iloc[300:])])
    assert "CategoricalDtype" in str(info.value) and "categories={'date'" in str(info.value)
    with pytest.raises(UnseenCategoryError, match=r"column 'date'.*categories\['date'\]"):
        NaiveBayesClassifier().fit_chunks(chunks_of(X, y, 200), categories={"date": ["may", "june"]})


def test_unsupported_learner_is_refused_by_name(soybean):
    X, y = soybean
    for model in (ETANClassifier(), LKDBClassifier()):
        with pytest.raises(TypeError) as info:
            model.fit_chunks(chunks_of(X, y, 200))
        message = str(info.value)
        assert type(model).__name__ in message
        for name in ("NaiveBayesClassifier", "TANClassifier", "KDBClassifier", "AODEClassifier"):
            assert name in message


def test_missing_error_and_single_class_are_reported_as_in_memory(soybean):
    X, y = soybean
    with pytest.raises(ValueError, match="missing values and missing='error'"):
        NaiveBayesClassifier(missing="error").fit_chunks(chunks_of(X, y, 200))
    one = y[y == y.iloc[0]].index
    with pytest.raises(ValueError, match="only one class"):
        TANClassifier().fit_chunks(chunks_of(X.loc[one], y.loc[one], 10))


def test_fit_of_an_iterator_points_to_fit_chunks(soybean):
    X, y = soybean
    with pytest.raises(TypeError, match="fit_chunks"):
        TANClassifier().fit(iter(chunks_of(X, y, 200)))


# -- the summed-table cache -------------------------------------------------------------------
def test_chunked_count_cache_sums_parts_and_names_missing_tables(soybean):
    X, y = soybean
    model = NaiveBayesClassifier(missing="ignore").fit(X, y)
    codes = model._encoder.transform(X, training=True)
    y_codes = pd.Index(model.classes_).get_indexer(y.astype(object))
    data = DiscreteData(codes, model._encoder.cardinalities_, y_codes, len(model.classes_))
    d = data.n_features
    whole = CountCache(data)
    families = [(d,)] + [(j, d) for j in range(d)] + [(0, 1, 2, d)]
    parts = [
        CountCache(data.subset(rows)).summary(families, pairs=True)
        for rows in np.array_split(np.arange(data.n_samples), 3)
    ]
    total = parts[0] + parts[1] + parts[2]
    assert total.n_samples == data.n_samples
    for family in families + [(3, 1, d), (5,), (4, 7)]:
        assert np.array_equal(total.counts(family), whole.counts(family))
    assert np.array_equal(total.pair_blocks()[0], whole.pair_blocks()[0])
    assert np.array_equal(total.cmi_matrix(), whole.cmi_matrix())
    total.names = [str(n) for n in model.node_names_]
    with pytest.raises(MissingCountsError, match=r"\(date, plant-stand, temp, class\)") as info:
        total.counts_many([(0, 1, 3, d), (0, 1, 2, d)])
    assert info.value.families == [(0, 1, 3, d)]


# -- Dask ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dd():
    return pytest.importorskip("dask.dataframe")


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("dataset", ["kr-vs-kp", "soybean"])
def test_dask_fit_equals_in_memory_fit(learner, dataset, dd, kr, soybean):
    X, y = kr if dataset == "kr-vs-kp" else soybean
    frame = dd.from_pandas(X.assign(label=y), npartitions=4)
    features, labels = frame.drop(columns="label"), frame["label"]
    b = LEARNERS[learner]().fit(features, labels)
    a = LEARNERS[learner]().fit(X, y.rename("label"))
    assert_same_model(a, b)
    # prediction over Dask is lazy, partition by partition, and equals the in-memory one
    predicted, proba = b.predict(features), b.predict_proba(features)
    assert type(predicted).__module__.startswith("dask") and type(proba).__module__.startswith("dask")
    assert list(proba.columns) == list(a.classes_)
    assert np.array_equal(predicted.compute().to_numpy(), a.predict(X))
    assert np.array_equal(proba.compute().to_numpy(), a.predict_proba(X))
    assert np.array_equal(b.predict_log_proba(features).compute().to_numpy(), a.predict_log_proba(X))


def test_dask_fit_collects_undeclared_categories(dd, soybean):
    X, y = soybean
    X = X.astype(object).where(X.notna(), None)
    y = y.astype(str).rename("label")
    frame = dd.from_pandas(X.assign(label=y), npartitions=3)
    a = KDBClassifier(k=2, missing="ignore").fit(X, y)
    b = KDBClassifier(k=2, missing="ignore").fit(frame.drop(columns="label"), frame["label"])
    assert_same_model(a, b)


def test_dask_input_errors(dd, soybean):
    X, y = soybean
    frame = dd.from_pandas(X.assign(label=y), npartitions=2)
    with pytest.raises(TypeError, match="Dask Series"):
        TANClassifier().fit(frame.drop(columns="label"), y)
    with pytest.raises(TypeError, match="ETANClassifier.*Supported"):
        ETANClassifier().fit(frame.drop(columns="label"), frame["label"])


def test_local_cluster_fit_equals_in_memory_fit(dd, soybean):
    distributed = pytest.importorskip("distributed")
    X, y = soybean
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        frame = dd.from_pandas(X.assign(label=y), npartitions=4)
        features = frame.drop(columns="label")
        b = KDBClassifier(k=2).fit(features, frame["label"])
        predicted = b.predict(features).compute()
    a = KDBClassifier(k=2).fit(X, y.rename("label"))
    assert_same_model(a, b)
    assert np.array_equal(predicted.to_numpy(), a.predict(X))


@pytest.mark.slow
def test_local_cluster_of_processes_fit_equals_in_memory_fit(dd, kr):
    """Workers in their own processes (the tables travel pickled): about 15 s to start."""
    distributed = pytest.importorskip("distributed")
    X, y = kr
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        frame = dd.from_pandas(X.assign(label=y), npartitions=4)
        features = frame.drop(columns="label")
        b = TANClassifier().fit(features, frame["label"])
        proba = b.predict_proba(features).compute()
    a = TANClassifier().fit(X, y.rename("label"))
    assert_same_model(a, b)
    assert np.array_equal(proba.to_numpy(), a.predict_proba(X))


# -- partial_fit and refit_parameters ------------------------------------------------------------
@pytest.mark.parametrize("missing", ["category", "ignore"])
@pytest.mark.parametrize("dataset", ["kr-vs-kp", "soybean"])
def test_partial_fit_over_five_chunks_equals_fit(dataset, missing, kr, soybean):
    X, y = kr if dataset == "kr-vs-kp" else soybean
    a = NaiveBayesClassifier(missing=missing).fit(X, y)
    b = NaiveBayesClassifier(missing=missing)
    for rows in np.array_split(np.arange(len(X)), 5):
        b.partial_fit(X.iloc[rows], y.iloc[rows], classes=np.unique(y))
    assert_same_model(a, b)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


def test_partial_fit_gains_a_missing_state_and_continues_a_fit(soybean):
    X, y = soybean
    order = np.argsort(X.isna().sum(axis=1).to_numpy(), kind="stable")  # missing values come last
    X, y = X.iloc[order], y.iloc[order]
    b = NaiveBayesClassifier()
    for rows in np.array_split(np.arange(len(X)), 5):
        b.partial_fit(X.iloc[rows], y.iloc[rows], classes=y.cat.categories)
    assert_same_model(NaiveBayesClassifier().fit(X, y), b)
    # a model fitted with fit continues from its counts (every class is in the first half)
    c = NaiveBayesClassifier().fit(X.iloc[::2], y.iloc[::2]).partial_fit(X.iloc[1::2], y.iloc[1::2])
    assert_same_model(NaiveBayesClassifier().fit(X, y), c)


def test_partial_fit_errors(soybean):
    X, y = soybean
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        NaiveBayesClassifier().partial_fit(X, y)
    model = NaiveBayesClassifier().partial_fit(X.iloc[:100], y.iloc[:100], classes=y.cat.categories)
    with pytest.raises(ValueError, match="differs from the classes of the first call"):
        model.partial_fit(X.iloc[100:], y.iloc[100:], classes=["a", "b"])
    with pytest.raises(ValueError, match="X has 34 features"):
        model.partial_fit(X.iloc[100:, 1:], y.iloc[100:])
    # categories learned from the first chunk: a later unseen value names the column and the fix
    Xo = X.astype(object)
    model = NaiveBayesClassifier().partial_fit(Xo.iloc[:50], y.iloc[:50], classes=y.cat.categories)
    with pytest.raises(UnseenCategoryError, match=r"column '\S+' has values .* partial_fit call") as info:
        model.partial_fit(Xo.iloc[50:], y.iloc[50:])
    assert "CategoricalDtype" in str(info.value) and "categories={" in str(info.value)
    declared = {name: list(X[name].cat.categories) for name in X.columns}
    model = NaiveBayesClassifier().partial_fit(Xo.iloc[:50], y.iloc[:50], classes=y.cat.categories, categories=declared)
    model.partial_fit(Xo.iloc[50:], y.iloc[50:])
    assert model.categories_ == NaiveBayesClassifier().fit(X, y).categories_


def test_refit_parameters_keeps_the_structure_and_adds_counts(kr):
    X, y = kr
    X, y = X.sample(frac=1, random_state=0), y.sample(frac=1, random_state=0)
    first, later = slice(0, 1500), slice(1500, None)
    for make in (TANClassifier, lambda: KDBClassifier(k=2)):
        structure = make().fit(X.iloc[first], y.iloc[first]).network_.families
        added = make().fit(X.iloc[first], y.iloc[first]).refit_parameters(X.iloc[later], y.iloc[later], add=True)
        assert added.network_.families == structure
        # the CPTs of that structure counted on all rows
        whole = make().fit(X, y)
        codes = whole._encoder.transform(X, training=True)
        data = DiscreteData(
            codes, whole._encoder.cardinalities_, pd.Index(whole.classes_).get_indexer(y.astype(object)), 2
        )
        from bnclf.learn._parameters import m_estimated_log_cpts

        expected = m_estimated_log_cpts(CountCache(data), structure, 1.0)
        assert all(np.array_equal(p, q) for p, q in zip(expected, added.network_.log_cpts))
        replaced = make().fit(X.iloc[first], y.iloc[first]).refit_parameters(X.iloc[later], y.iloc[later])
        data_later = DiscreteData(codes[1500:], data.cardinalities, data.y[1500:], 2)
        expected = m_estimated_log_cpts(CountCache(data_later), structure, 1.0)
        assert all(np.array_equal(p, q) for p, q in zip(expected, replaced.network_.log_cpts))
        # from chunks, read once: the families are known
        chunked = (
            make()
            .fit(X.iloc[first], y.iloc[first])
            .refit_parameters(((X.iloc[i : i + 400], y.iloc[i : i + 400]) for i in range(1500, len(X), 400)))
        )
        assert all(np.array_equal(p, q) for p, q in zip(replaced.network_.log_cpts, chunked.network_.log_cpts))


def test_refit_parameters_on_dask_and_errors(dd, kr):
    X, y = kr
    frame = dd.from_pandas(X.assign(label=y), npartitions=3)
    model = TANClassifier().fit(X.iloc[::2], y.iloc[::2])
    expected = TANClassifier().fit(X.iloc[::2], y.iloc[::2]).refit_parameters(X, y)
    model.refit_parameters(frame.drop(columns="label"), frame["label"])
    assert all(np.array_equal(p, q) for p, q in zip(expected.network_.log_cpts, model.network_.log_cpts))
    with pytest.raises(TypeError, match="not one network"):
        AODEClassifier().fit(X, y).refit_parameters(X, y)


def test_a_model_fitted_from_chunks_is_saved_and_loaded_bit_for_bit(tmp_path, kr):
    from bnclf.io._models import load_model, save_model

    X, y = kr
    model = TANClassifier().fit_chunks(chunks_of(X, y, 1000))
    back = load_model(save_model(model, tmp_path / "model.bnclf"))
    assert_same_model(model, back)
    assert np.array_equal(back.predict_proba(X), model.predict_proba(X))
    save_model(model, tmp_path / "model.pkl", format="pickle")
    assert np.array_equal(load_model(tmp_path / "model.pkl", trusted=True).predict_proba(X), model.predict_proba(X))
