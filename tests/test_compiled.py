"""The compiled loops (numba) against the numpy paths they stand in for, and the setting that
chooses between them."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from test_ensembles import rows_with_unknowns
from test_search import coded

import bnclf
from bnclf import AODEClassifier, RMCVClassifier, WAODEClassifier, config_context
from bnclf._compiled import compiled_loops
from bnclf.inference._kernels import log_weighted_sum
from bnclf.learn._class_score import TIE_TOLERANCE, ClassScore, FamilyContributions, first_best
from bnclf.learn._search import DagState
from bnclf.models._search_based import _holdout_folds

numba = pytest.importorskip("numba")


# ----------------------------------------------------------------------------- the setting
def test_the_setting_chooses_the_path(monkeypatch):
    monkeypatch.delenv("BNCLF_COMPILED", raising=False)
    assert bnclf.get_config()["compiled"] is None
    assert compiled_loops() is not None  # numba is installed here
    with config_context(compiled=False):
        assert compiled_loops() is None
        assert bnclf.get_config()["compiled"] is False
    monkeypatch.setenv("BNCLF_COMPILED", "0")
    assert compiled_loops() is None
    with config_context(compiled=True):  # an explicit True overrides the environment
        assert compiled_loops() is not None


def test_compiled_true_without_numba_names_the_fix(monkeypatch):
    import bnclf._compiled as compiled

    monkeypatch.setattr(compiled, "_load", lambda: None)
    with config_context(compiled=None):
        assert compiled_loops() is None  # the default falls back on numpy
    with config_context(compiled=True), pytest.raises(ImportError, match=r"pip install 'bnclf\[fast\]'"):
        compiled_loops()


def test_a_bad_setting_is_refused():
    with pytest.raises(TypeError, match="compiled='yes'"):
        bnclf.set_config(compiled="yes")
    with pytest.raises(TypeError, match="compiled=1"), config_context(compiled=1):
        pass
    assert bnclf.get_config()["compiled"] is None


# ----------------------------------------------------------------------------- RMCV
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_zero_one_errors_equal_first_best_row_by_row(n_classes):
    """Ties (exact and within the tolerance), rows where every class is impossible and rows
    where class 0 alone is: the errors of first_best applied row by row."""
    loops = compiled_loops()
    rng = np.random.default_rng(n_classes)
    n = 400
    y = rng.integers(0, n_classes, n)
    zero_penalty = 1024.0
    impossible = -0.5 * zero_penalty
    for case in range(6):
        base = rng.normal(size=(n_classes, n)).round(1)  # many exact ties
        entries = rng.normal(size=(n_classes, n)).round(1)
        if case == 1:
            entries[1] = base[0] + entries[0] - base[1] + 1e-11  # ties within the tolerance
        if case == 2:
            base[:, ::7] = -zero_penalty  # every class impossible
        if case == 3:
            base[0, ::5] = -zero_penalty  # class 0 alone impossible
        if case == 4:
            entries[:] = 0.0
        sums = base + entries
        predicted = first_best(np.where(sums < impossible, -np.inf, sums).T)
        expected = int((predicted != y).sum())
        assert loops.zero_one_errors(base, entries, y, impossible, TIE_TOLERANCE) == expected


@pytest.mark.parametrize("m", [0.0, 1.0])
def test_fold_entries_equal_the_numpy_counts(krkp, m):
    """Every family shape the search asks for (the class as a parent and as the child, one
    and two feature parents, configurations no fold's training rows hold): the same
    entries as the numpy branch, bit for bit under maximum likelihood."""
    X, y = krkp
    rows = np.random.default_rng(1).permutation(len(y))[:500]
    _, codes, cards = coded(X.iloc[rows, :10].reset_index(drop=True), y.iloc[rows].reset_index(drop=True))
    d = codes.shape[1] - 1
    folds = _holdout_folds(codes[:, d], 10, 0, all_folds=True)
    families = [(3, [d]), (d, []), (d, [2]), (d, [2, 5]), (4, [1, d]), (0, [6, 7, d]), (9, [0, 1, 2, d])]
    with config_context(compiled=False):
        table = FamilyContributions(codes, cards, folds, m=m)
        expected = [table.get(child, frozenset(pa)) for child, pa in families]
    with config_context(compiled=True):
        table = FamilyContributions(codes, cards, folds, m=m)
        got = [table.get(child, frozenset(pa)) for child, pa in families]
    for e, g in zip(expected, got):
        assert e.shape == g.shape
        if m == 0.0:
            np.testing.assert_array_equal(g, e)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-15, atol=0)


def test_zero_one_scores_of_moves_equal_the_numpy_batches(krkp):
    X, y = krkp
    rows = np.random.default_rng(2).permutation(len(y))[:800]
    _, codes, cards = coded(X.iloc[rows, :12].reset_index(drop=True), y.iloc[rows].reset_index(drop=True))
    d = codes.shape[1] - 1
    folds = _holdout_folds(codes[:, d], 5, 0, all_folds=True)

    state = DagState(d + 1, [(d, j) for j in range(d)] + [(0, 1), (3, 4), (4, d)][:2])
    values = {}
    for compiled in (False, True):
        with config_context(compiled=compiled):
            score = ClassScore(FamilyContributions(codes, cards, folds))
            score.start(state)
            values[compiled] = score.evaluate(state, state.legal_moves())
    np.testing.assert_array_equal(values[True][0], values[False][0])
    assert values[True][1] == values[False][1]


@pytest.mark.parametrize("dataset", ["krkp", "soybean"])
def test_rmcv_searches_the_same_structures(dataset, request):
    X, y = request.getfixturevalue(dataset)
    rows = np.random.default_rng(3).permutation(len(y))[:600]
    X = X.iloc[rows, :10] if dataset == "krkp" else X.iloc[rows, :8]
    y = y.iloc[rows]
    fits = []
    for compiled in (False, True):
        with config_context(compiled=compiled):
            model = RMCVClassifier(n_splits=5, random_state=0).fit(X, y)
            fits.append((sorted(model.network_.graph.edges), model.search_trace_["score"].tolist()))
    assert fits[0] == fits[1]


# ----------------------------------------------------------------------------- pair counts
def _reference_bitset_slots(used, cards, has_unknown):
    """``(slot, last_of)`` of the compiled ``bitset_slots`` by numpy steps: the reference the
    compiled pass is checked against."""
    d = len(cards)
    owner = np.repeat(np.arange(d), cards)[used]  # each value's feature, increasing
    first = np.searchsorted(owner, np.arange(d))
    last = np.searchsorted(owner, np.arange(d), side="right") - 1
    derived = (last >= first) & ~np.asarray(has_unknown[:d], dtype=bool)
    last_of = np.full(used.size, -1, dtype=np.int64)
    last_of[last[derived]] = first[derived]
    counted = last_of < 0
    past = int(counted.sum())
    return np.append(np.where(counted, np.cumsum(counted) - 1, past + owner), past), last_of


@pytest.mark.parametrize("unknown_in", [(0, 1, 2, 3, 4, 5), (1, 5), ()], ids=["all", "some", "none"])
@pytest.mark.parametrize("n_classes", [1, 2, 5, 40])
def test_bitset_pair_counts_equal_the_one_hot_products_and_each_pairs_bincount(n_classes, unknown_in, monkeypatch):
    """Rows of many classes (one with no row), unknown codes, a one-valued feature and
    values no row holds; chunks of 64 rows and a chunk of all rows: the counts of the
    numpy one-hot products, each pair's table ``np.bincount`` over combined codes. The last
    value in use of a feature without unknown codes takes no bitset: its counts are totals
    less its feature's other values' (features with unknown codes: all, some, none)."""
    import bnclf.counts._bitsets as bitsets_module
    from bnclf.counts import CountCache
    from bnclf.encoding import DiscreteData

    rng = np.random.default_rng(n_classes)
    cards = np.array([2, 5, 1, 9, 3, 70])
    n = 1000
    codes = np.column_stack([rng.integers(0, max(1, r - 1), n) for r in cards])  # the last value: never held
    for j in unknown_in:
        codes[rng.random(n) < 0.1, j] = -1
    y = rng.integers(0, n_classes, n)
    y[y == n_classes - 1] = 0  # the last class has no row
    data = DiscreteData(codes, cards, y, n_classes)
    with config_context(compiled=False):
        expected = CountCache(data).pair_counts_in_use()
    for words in (1, 1 << 18):  # 64 rows a chunk; every row in one
        monkeypatch.setattr(bitsets_module, "CHUNK_WORDS", words)
        cache = CountCache(data)
        counts, used, offsets = cache.pair_counts_in_use()
        slot, last_of = _reference_bitset_slots(used, cards, cache._has_unknown)
        assert (last_of >= 0).sum() == 6 - len(unknown_in)  # one value without a bitset per fully known feature
        np.testing.assert_array_equal(used, expected[1])
        np.testing.assert_array_equal(counts, expected[0])
    column = np.full(cards.sum(), -1)
    column[used] = np.arange(used.size)
    for i in range(len(cards)):
        for j in range(len(cards)):
            both = (codes[:, i] >= 0) & (codes[:, j] >= 0)
            flat = (codes[both, i] * cards[j] + codes[both, j]) * n_classes + y[both]
            table = np.bincount(flat, minlength=cards[i] * cards[j] * n_classes).reshape(cards[i], cards[j], -1)
            if i == j:  # a value paired with itself: its own count
                table = np.zeros((cards[i], cards[i], n_classes))
                np.add.at(table, (codes[both, i], codes[both, i], y[both]), 1)
            a, b = column[offsets[i] : offsets[i] + cards[i]], column[offsets[j] : offsets[j] + cards[j]]
            held = np.ix_(a >= 0, b >= 0)
            np.testing.assert_array_equal(counts[np.ix_(a[a >= 0], b[b >= 0])], table[held])
            assert not table.sum() - table[held].sum()  # every count lies among the values in use


@pytest.mark.parametrize("seed", range(40))
def test_compiled_bitset_slots_and_values_in_use_equal_the_numpy_steps(seed):
    """The compiled bitset plan, against the numpy steps it replaces: the values in use and
    each value's column (``np.flatnonzero``, a cumulative sum), and the numpy steps of the
    slots and last values, on random value sets (features with no value held, one value,
    every value; unknown codes in some features)."""
    import bnclf._compiled_loops as loops

    rng = np.random.default_rng(seed)
    cards = rng.integers(1, 7, rng.integers(1, 9)).astype(np.int64)
    seen = rng.random(int(cards.sum())) < rng.choice([0.0, 0.3, 0.7, 1.0])
    has_unknown = np.append(rng.random(cards.size) < 0.4, False)
    used, column = loops.values_in_use(seen)
    np.testing.assert_array_equal(used, np.flatnonzero(seen))
    np.testing.assert_array_equal(column, np.where(seen, np.cumsum(seen) - 1, used.size))
    slot, last_of, counted, derived = loops.bitset_slots(used, cards, has_unknown)
    expected_slot, expected_last_of = _reference_bitset_slots(used, cards, has_unknown)
    np.testing.assert_array_equal(slot, expected_slot)
    np.testing.assert_array_equal(last_of, expected_last_of)
    np.testing.assert_array_equal(counted, np.flatnonzero(expected_last_of < 0))
    np.testing.assert_array_equal(derived, np.flatnonzero(expected_last_of >= 0))


@pytest.mark.parametrize("unknown", [0.0, 0.1])
@pytest.mark.parametrize("n_classes", [2, 5])
def test_pair_measures_read_from_bitset_counts_equal_the_one_hot_products_bit_for_bit(unknown, n_classes, monkeypatch):
    """The pair information terms (TAN's and KDB's conditional mutual information) and the
    exact pair tables the cache keeps from them, with the compiled loops read from the
    bitset counts (no one-hot product is formed) and without them from one-hot products:
    the same numbers, bit for bit, with unknown codes, a one-valued feature and values no
    row holds."""
    from bnclf.counts import CountCache
    from bnclf.encoding import DiscreteData

    rng = np.random.default_rng(n_classes)
    cards = np.array([2, 5, 1, 9, 3, 7])
    n = 700
    codes = np.column_stack([rng.integers(0, max(1, r - 1), n) for r in cards])
    codes[rng.random(codes.shape) < unknown] = -1
    data = DiscreteData(codes, cards, rng.integers(0, n_classes, n), n_classes)
    with config_context(compiled=False):
        numpy_cache = CountCache(data)
        expected = numpy_cache.pair_information_terms()
        pairs = [(i, j, 6) for i in range(6) for j in range(i + 1, 6)]
        numpy_cache.counts_many(pairs)  # from the exact pair sources the terms leave
        numpy_tables = [numpy_cache.counts(family) for family in pairs]

    def no_products(*args):
        raise AssertionError("a one-hot product was formed")

    monkeypatch.setattr(CountCache, "_class_onehot_chunks", no_products)
    cache = CountCache(data)
    got = cache.pair_information_terms()
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(cache._pair_sources, numpy_cache._pair_sources):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    cache.counts_many(pairs)
    for family, table in zip(pairs, numpy_tables):
        np.testing.assert_array_equal(cache.counts(family), table)


# ----------------------------------------------------------------------------- AODE
def test_log_weighted_sum_equals_numpy():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(50, 6, 4)) * 30
    values[3, :, 1] = -np.inf  # every member gives zero
    values[4, 2, :] = -np.inf
    values[5, 1, 2] = np.nan
    weights = rng.random((50, 6))
    weights[7] = 0.0  # no member
    weights[8, :3] = 0.0
    with config_context(compiled=False):
        expected = log_weighted_sum(values, weights)
    with config_context(compiled=True), np.errstate(invalid="ignore"):
        got = log_weighted_sum(values, weights)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))


def _aode_frames(krkp, n_train=1500):
    X, y = krkp
    rows = np.random.default_rng(4).permutation(len(y))
    X, y = X.iloc[rows, :14].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
    return X.iloc[:n_train], y.iloc[:n_train], rows_with_unknowns(X, n_train, 300, seed=3)


@pytest.mark.parametrize(
    "est",
    [AODEClassifier(), AODEClassifier(m=0.0), AODEClassifier(smoothing="weka"), WAODEClassifier(smoothing="weka")],
    ids=["aode", "aode-ml", "aode-weka", "waode-weka"],
)
def test_aode_tables_and_posteriors_equal_numpy(krkp, est):
    """The all-pairs log-CPT table bit for bit, and the posteriors of rows with missing and
    never-seen values (unknown children and super-parents)."""
    Xtr, ytr, test = _aode_frames(krkp)
    out = {}
    for compiled in (False, True):
        with config_context(compiled=compiled):
            fitted = clone(est).fit(Xtr, ytr)
            pairs = np.asarray(fitted._spode_tables["pairs"])  # the whole table
            out[compiled] = (pairs, fitted.predict_proba(test), fitted.predict(test))
    # the same steps; the C library's logarithm against numpy's: the last bit at most (none here)
    np.testing.assert_array_equal(np.isneginf(out[True][0]), np.isneginf(out[False][0]))
    np.testing.assert_allclose(out[True][0], out[False][0], rtol=1e-15, atol=0)
    np.testing.assert_allclose(out[True][1], out[False][1], rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(out[True][2], out[False][2])


def test_aode_weighted_counts_agree_to_rounding(krkp):
    Xtr, ytr, test = _aode_frames(krkp, 800)
    weights = np.random.default_rng(2).random(len(ytr)) * 3
    probas = []
    for compiled in (False, True):
        with config_context(compiled=compiled):
            model = AODEClassifier().fit(Xtr, ytr, sample_weight=weights)
            probas.append(model.predict_proba(test))
    np.testing.assert_allclose(probas[1], probas[0], rtol=1e-12)


def test_aode_sub_table_of_the_values_in_use_gives_the_full_tables_sums(monkeypatch):
    """Rows that hold few of the declared values read a sub-table; the sums are those of the
    full table (forced both ways)."""
    import bnclf.inference._super_parent as super_parent

    rng = np.random.default_rng(5)
    cats = list("abcdefgh")
    X = pd.DataFrame({f"f{i}": pd.Categorical(rng.choice(cats, 600), categories=cats) for i in range(6)})
    y = (X["f0"].cat.codes + X["f1"].cat.codes + rng.integers(0, 3, 600)) % 3
    test = X.iloc[:200].copy()
    for c in test.columns:  # the test rows hold only four of the eight values
        test[c] = pd.Categorical(np.asarray(test[c].cat.codes % 4).choose(cats[:4]), categories=cats)
    monkeypatch.setattr(super_parent, "_PROBABILITY_CELLS", 0)  # the sums in logarithms
    model = AODEClassifier().fit(X, y)
    results = []
    for share, by_parent in ((0.0, ()), (1.0, ()), (0.0, (3,))):  # the full table, the sub-table; by parent
        monkeypatch.setattr(super_parent, "_COMPACT_SHARE", share)
        monkeypatch.setattr(super_parent, "_BY_PARENT_CLASSES", by_parent)
        model._build_derived()
        assert model._member_kernel()._probabilities is None
        results.append(model.predict_joint_log_proba(test))
        assert list(model._member_kernel()._tables_in_use) == ([True] if by_parent else [False] if share else [])
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])
    with config_context(compiled=False):
        np.testing.assert_allclose(model.predict_joint_log_proba(test), results[0], rtol=1e-13)


@pytest.mark.parametrize("n_classes", [2, 3, 4, 7])
def test_spode_loops_of_every_class_count_equal_each_rows_sums(n_classes):
    """Two and three classes take their own compiled copies of the loop (the count a
    constant): each gives every SPODE's sum of its children's entries, added in order, and
    their products, as a plain per-row computation does, with unknown children left out."""
    import bnclf._compiled_loops as loops

    rng = np.random.default_rng(n_classes)
    d, r, n = 7, 3, 70  # more rows than one block of the loop
    width = d * r
    flat = np.log(rng.random((width * width, n_classes)))
    position = rng.integers(0, r, (n, d)) + np.arange(d) * r
    known = rng.random((n, d)) > 0.15
    sums = np.empty((n, d, n_classes))
    loops.spode_sums(position, known, flat, width, sums)
    products = np.empty((n, d, n_classes))
    for start in range(0, n, loops._ROWS_PER_BLOCK):
        stop = min(n, start + loops._ROWS_PER_BLOCK)
        loops._children_sums(position, known, np.exp(flat), width, start, stop, products[start:stop], True)
    expected_sums, expected_products = np.zeros_like(sums), np.ones_like(products)
    for t in range(n):
        for j in np.flatnonzero(known[t]):
            for p in range(d):
                entry = flat[position[t, j] * width + position[t, p]]
                expected_sums[t, p] = expected_sums[t, p] + entry
                expected_products[t, p] = expected_products[t, p] * np.exp(entry)
    np.testing.assert_array_equal(sums, expected_sums)
    np.testing.assert_array_equal(products, expected_products)


@pytest.mark.parametrize("n_classes", [2, 3, 4, 5, 7, 8, 11])
@pytest.mark.parametrize("d", [1, 3, 4, 5, 9])
def test_spode_products_four_super_parents_at_a_time_are_the_same_bits(n_classes, d):
    """The product loop of AODE's probability path (four super-parents and four classes at a
    time, the last four classes overlapping; fewer than four classes by the child-major loop)
    gives every SPODE's product of its children's probabilities, in turn from one, as a plain
    per-row computation does, bit for bit, on every row whose values are all known. With four
    classes or more a row with an unknown value is left as it is, for the caller (as
    ``averaged_spodes`` leaves it); with fewer, its unknown children are left out."""
    import bnclf._compiled_loops as loops

    rng = np.random.default_rng(10 * n_classes + d)
    r, n = 3, 50
    width = d * r
    probabilities = rng.random((width * width, n_classes))
    position = rng.integers(0, r, (n, d)) + np.arange(d) * r
    known = rng.random((n, d)) > 0.3 / d
    known[:5], known[5, 0] = True, False
    products = np.full((n, d, n_classes), np.nan)
    loops._children_products(position, known, probabilities, width, 0, n, products)
    expected = np.ones_like(products)
    for t in range(n):
        for j in np.flatnonzero(known[t]):
            for p in range(d):
                expected[t, p] = expected[t, p] * probabilities[position[t, j] * width + position[t, p]]
    every = known.all(axis=1)
    assert every.sum() >= 5 and (~every).sum() >= 1
    np.testing.assert_array_equal(products[every], expected[every])
    if n_classes >= 4:
        assert np.isnan(products[~every]).all()
    else:
        np.testing.assert_array_equal(products[~every], expected[~every])


@pytest.mark.parametrize("n_classes", [2, 3, 4, 7])
@pytest.mark.parametrize("d", [3, 4, 5, 9])
def test_spode_sums_by_super_parent_value_are_the_same_bits(n_classes, d):
    """The loop over the table laid out by super-parent value (sums in registers, four
    super-parents at a time, then the rest; other class counts a pass per class) adds each
    SPODE's children in turn from zero: on every row whose values are all known, every sum
    equals the per-row sums in order and the child-major loop's, bit for bit, and so does
    AODE's combination of them; rows with an unknown value are left to the caller."""
    import bnclf._compiled_loops as loops

    rng = np.random.default_rng(100 * n_classes + d)
    r, n = 3, 70
    width = d * r
    flat = np.log(rng.random((width * width, n_classes)))
    by_parent = flat.reshape(width, width, n_classes).transpose(1, 0, 2).reshape(width * width, n_classes).copy()
    position = rng.integers(0, r, (n, d)) + np.arange(d) * r
    known = rng.random((n, d)) > 0.15 / d
    known[:5] = True
    known[5, -1] = False
    complete = known.all(axis=1)
    assert 5 <= complete.sum() < n
    expected = np.zeros((n, d, n_classes))
    for t in range(n):
        for j in range(d):
            for p in range(d):
                expected[t, p] = expected[t, p] + flat[position[t, j] * width + position[t, p]]
    got = np.empty((n, d, n_classes))
    for start in range(0, n, loops._ROWS_PER_BLOCK):
        stop = min(n, start + loops._ROWS_PER_BLOCK)
        loops._parent_sums(position, by_parent, width, start, stop, got[start:stop], n_classes)
    np.testing.assert_array_equal(got, expected)
    priors, parents = np.log(rng.random((d, n_classes))), np.log(rng.random((width, n_classes)))
    nb_prior, nb_children = np.log(rng.random(n_classes)), np.log(rng.random((width, n_classes)))
    log_w = np.log(rng.dirichlet(np.ones(d + 1), size=n))
    combined = [np.full((n, n_classes), np.nan), np.full((n, n_classes), np.nan)]
    for table, layout, out in ((flat, False, combined[0]), (by_parent, True, combined[1])):
        loops.averaged_spodes(position, known, table, width, priors, parents, nb_prior, nb_children, log_w, out, layout)
        assert np.isnan(out[~complete]).all()  # left for the caller
    np.testing.assert_array_equal(combined[0], combined[1])
    members = expected + priors + parents[position]
    nb = nb_prior + nb_children[position].sum(axis=1)
    terms = np.concatenate([members, nb[:, None]], axis=1) + log_w[:, :, None]
    peak = terms.max(axis=1)
    reference = np.log(np.exp(terms - peak[:, None]).sum(axis=1)) + peak
    np.testing.assert_allclose(combined[1][complete], reference[complete], rtol=1e-13)


@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("products", [True, False], ids=["products", "logarithms"])
def test_aode_posteriors_of_every_class_count_equal_numpy(n_classes, products, monkeypatch):
    import bnclf.inference._super_parent as super_parent

    rng = np.random.default_rng(10 + n_classes)
    cats = list("abcde")
    X = pd.DataFrame({f"f{i}": pd.Categorical(rng.choice(cats, 500), categories=cats) for i in range(8)})
    y = pd.Series((X["f0"].cat.codes + X["f1"].cat.codes + rng.integers(0, 2, 500)) % n_classes)
    test = rows_with_unknowns(X, 400, 100, seed=1)
    if not products:
        monkeypatch.setattr(super_parent, "_PROBABILITY_CELLS", 0)
    model = AODEClassifier().fit(X.iloc[:400], y.iloc[:400])
    assert (model._member_kernel()._probabilities is not None) == products
    compiled = model.predict_joint_log_proba(test)
    with config_context(compiled=False):
        np.testing.assert_allclose(compiled, model.predict_joint_log_proba(test), rtol=1e-13)


@pytest.mark.parametrize("est", [AODEClassifier(), WAODEClassifier(smoothing="weka")], ids=["aode", "waode-weka"])
def test_aode_products_of_probabilities_equal_the_sums_of_logarithms(krkp, est, monkeypatch):
    """The probability path (small tables) against the log path of the same loops and the
    numpy path, rows with missing and never-seen values included."""
    import bnclf.inference._super_parent as super_parent

    Xtr, ytr, test = _aode_frames(krkp)
    model = clone(est).fit(Xtr, ytr)
    assert model._member_kernel()._probabilities is not None
    products = model.predict_joint_log_proba(test)
    monkeypatch.setattr(super_parent, "_PROBABILITY_CELLS", 0)
    model._build_derived()
    assert model._member_kernel()._probabilities is None
    np.testing.assert_allclose(products, model.predict_joint_log_proba(test), rtol=1e-13)
    with config_context(compiled=False):
        np.testing.assert_allclose(products, model.predict_joint_log_proba(test), rtol=1e-13)


def test_aode_products_are_not_taken_where_they_could_underflow(monkeypatch):
    import bnclf._compiled_loops as loops
    from bnclf.inference._super_parent import SuperParentKernel

    rng = np.random.default_rng(0)
    d, r, c = 5, 3, 2
    width = d * r
    tables = np.log(rng.dirichlet(np.ones(r), size=(width, width * c)).reshape(width, width, c, r)[..., 0])
    args = (np.arange(d) * r, np.full(d, r), np.log(np.full((d, c), 0.5)), np.log(np.full((width, c), 1 / 3)))
    nb = (np.log(np.full(c, 0.5)), np.log(np.full((width, c), 1 / 3)))
    assert SuperParentKernel(tables, *args, *nb)._probabilities is not None
    assert SuperParentKernel(tables - 200.0, *args, *nb)._probabilities is None  # 5 * -200: below exp(-700)
    kernel = SuperParentKernel(tables, *args, *nb)
    assert kernel._weights_keep_products_normal(np.full((2, d + 1), 1 / (d + 1)), loops)
    assert not kernel._weights_keep_products_normal(np.full((2, d + 1), 1e-300), loops)
    codes = rng.integers(0, r, (40, d))
    products = []
    real = loops.averaged_spode_probabilities
    monkeypatch.setattr(loops, "averaged_spode_probabilities", lambda *a: products.append(1) or real(*a))
    weights = np.full((40, d + 1), 1 / (d + 1))
    np.testing.assert_allclose(kernel.log_weighted_sum(codes, weights), log_weighted_sum(kernel(codes), weights))
    assert products  # normal weights: the products
    products.clear()
    weights = np.full((40, d + 1), 1e-318)  # subnormal weights: the sums of logarithms
    np.testing.assert_allclose(kernel.log_weighted_sum(codes, weights), log_weighted_sum(kernel(codes), weights))
    assert not products


@pytest.mark.parametrize("seed", range(12))
def test_kernel_preparation_loops_equal_their_numpy_steps(seed):
    """The compiled steps before AODE's product loop: the rows' value positions (``codes >=
    0``, ``np.where(known, codes + offsets, 0)``, ``known.all()``), and the smallest finite
    entry of each small table (``min`` over the finite entries, 0 when none; NaN for a table
    with an entry NaN or above 0) against numpy's reductions, with and without ``-inf``."""
    import bnclf._compiled_loops as loops

    rng = np.random.default_rng(seed)
    offsets = np.cumsum(rng.integers(1, 5, 6))
    codes = np.asfortranarray(rng.integers(-1 if seed % 2 else 0, 4, (30, 6)))
    position, known, every_known = loops.row_positions(codes, offsets)
    np.testing.assert_array_equal(known, codes >= 0)
    np.testing.assert_array_equal(position, np.where(codes >= 0, codes + offsets, 0))
    assert every_known == bool((codes >= 0).all())
    tables = [np.log(rng.random(k)) for k in (0, 1, 7, 40)]
    tables[seed % 4 if seed % 4 else 3][: seed % 3] = -np.inf  # some -inf entries (all, in a short table)
    for k, table in enumerate(tables):
        finite = table[np.isfinite(table)]
        expected = float(finite.min()) if finite.size else 0.0
        got = loops.lowest_log_entries(*[t if i == k else np.zeros(1) for i, t in enumerate(tables)])
        assert got[k] == expected
        for bad in (np.nan, 0.5):  # not log-probabilities
            spoiled = np.append(table, bad)
            assert np.isnan(loops.lowest_log_entries(*[spoiled if i == k else np.zeros(1) for i in range(4)])[k])


def test_aode_numpy_product_path_does_not_depend_on_earlier_predictions():
    """The numpy product path takes exactly the values the rows hold (a product over more
    columns rounds differently); the compiled loop may keep a larger sub-table, which gives
    it the same sums."""
    rng = np.random.default_rng(0)
    cats = [f"v{i}" for i in range(8)]
    X = pd.DataFrame({f"f{i}": pd.Categorical(rng.choice(cats, 900), categories=cats) for i in range(60)})
    y = pd.Series(rng.integers(0, 3, 900))

    def using(frame, k):  # the rows hold only the first k values of every column
        frame = frame.copy()
        for c in frame.columns:
            frame[c] = pd.Categorical(np.asarray(frame[c].cat.codes % k).choose(cats[:k]), categories=cats)
        return frame

    wide, narrow = using(X.iloc[:300], 6), using(X.iloc[300:], 2)
    for compiled in (False, True):
        fresh = AODEClassifier().fit(X, y)
        with config_context(compiled=compiled):
            expected = fresh.predict_joint_log_proba(narrow)
        model = AODEClassifier().fit(X, y)
        with config_context(compiled=compiled):
            model.predict_joint_log_proba(wide)
            np.testing.assert_array_equal(model.predict_joint_log_proba(narrow), expected)


def test_pair_measures_fall_back_on_products_when_the_pair_counts_pass_the_budget(monkeypatch):
    """An all-pairs count array over the memory budget is not made for the pair measures: they
    take the one-hot products (which need no such array) and give the same terms."""
    from bnclf.counts import CountCache
    from bnclf.encoding import DiscreteData

    rng = np.random.default_rng(1)
    cards = np.array([4, 5, 9, 3, 6])
    data = DiscreteData(np.column_stack([rng.integers(0, r, 400) for r in cards]), cards, rng.integers(0, 2, 400), 2)
    expected = CountCache(data).pair_information_terms()
    formed = []
    real = CountCache._class_onehot_chunks
    monkeypatch.setattr(CountCache, "_class_onehot_chunks", lambda self, *a: formed.append(1) or real(self, *a))
    with config_context(memory_budget=8_000):  # the pair counts: 2 * 27**2 * 8 = 11,664 bytes
        cache = CountCache(data)
        got = cache.pair_information_terms()
    assert formed and getattr(cache, "_pair_counts", None) is None
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
