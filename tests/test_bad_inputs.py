"""Bad input across the API and the command line: every case raises the stated exception
with a message that names the column or parameter at fault and says how to fix it; the
command line answers with one ``bnclf: error:`` line and exit status 2, never a traceback."""

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from bnclf import (
    AODEClassifier,
    ETANClassifier,
    KDBClassifier,
    LKDBClassifier,
    LTANClassifier,
    MDLDiscretizer,
    NaiveBayesClassifier,
    QuantileDiscretizer,
    TANClassifier,
    TargetKDBClassifier,
)
from bnclf.cli._main import main
from bnclf.models import make_classifier

X = pd.DataFrame({"a": list("xyxyxy"), "b": list("uuvvuv")})
Y = [0, 1, 0, 1, 1, 0]


def fitted(est=None):
    return (est or TANClassifier()).fit(X, Y)


def _missing_at_predict():
    fitted(NaiveBayesClassifier(handle_unknown="error")).predict(X.assign(a=[np.nan] * 6))


# (id, callable, exception type, patterns that must all appear in the message)
API_CASES = [
    (
        "continuous column",
        lambda: TANClassifier().fit(X.assign(c=np.linspace(0, 1, 6)), Y),
        ValueError,
        ["'c'", "continuous", "MDLDiscretizer"],
    ),
    (
        "NaN labels",
        lambda: TANClassifier().fit(X, [0, np.nan, 1, 0, 1, 0]),
        ValueError,
        ["missing labels", "drop those rows"],
    ),
    ("one class", lambda: TANClassifier().fit(X, [1] * 6), ValueError, ["only one class", "at least two classes"]),
    ("y is None", lambda: TANClassifier().fit(X, None), ValueError, ["y", "fit(X, y)"]),
    ("y two columns", lambda: TANClassifier().fit(X, np.zeros((6, 2))), ValueError, ["1-D"]),
    ("no rows", lambda: TANClassifier().fit(X.iloc[:0], []), ValueError, ["0 samples"]),
    ("rows differ", lambda: TANClassifier().fit(X, Y[:5]), ValueError, ["6 rows", "5", "one label per row"]),
    ("no features", lambda: TANClassifier().fit(pd.DataFrame(index=range(6)), Y), ValueError, ["0 feature"]),
    (
        "duplicate names",
        lambda: TANClassifier().fit(pd.DataFrame([["x", "y"]] * 6, columns=["a", "a"]), Y),
        ValueError,
        ["'a'", "unique"],
    ),
    (
        "empty column",
        lambda: TANClassifier().fit(X.assign(c=np.nan), Y),
        ValueError,
        ["'c'", "no observed values", "drop it"],
    ),
    ("1-D X", lambda: TANClassifier().fit(np.array(list("abab")), [0, 1, 0, 1]), ValueError, ["2-D", "reshape"]),
    (
        "missing='error'",
        lambda: TANClassifier(missing="error").fit(X.assign(a=["x", None] * 3), Y),
        ValueError,
        ["'a'", "missing='category'", "impute"],
    ),
    ("missing option", lambda: TANClassifier(missing="drop").fit(X, Y), ValueError, ["missing='drop'", "category"]),
    (
        "handle_unknown option",
        lambda: TANClassifier(handle_unknown="skip").fit(X, Y),
        ValueError,
        ["handle_unknown='skip'", "marginalize"],
    ),
    ("m negative", lambda: TANClassifier(m=-1).fit(X, Y), ValueError, ["m=-1", ">= 0"]),
    ("m infinite", lambda: TANClassifier(m=float("inf")).fit(X, Y), ValueError, ["m=inf", "finite"]),
    ("m text", lambda: TANClassifier(m="1").fit(X, Y), ValueError, ["m='1'", "number"]),
    ("k negative", lambda: KDBClassifier(k=-1).fit(X, Y), ValueError, ["k=-1", "integer >= 0"]),
    ("k fractional", lambda: KDBClassifier(k=1.5).fit(X, Y), ValueError, ["k=1.5", "integer"]),
    ("k boolean", lambda: KDBClassifier(k=True).fit(X, Y), ValueError, ["k=True", "integer"]),
    ("TAN root", lambda: TANClassifier(root="zz").fit(X, Y), ValueError, ["root='zz'", "feature name", "None"]),
    (
        "AODE frequency limit",
        lambda: AODEClassifier(frequency_limit=-1).fit(X, Y),
        ValueError,
        ["frequency_limit=-1", ">= 0"],
    ),
    (
        "AODE smoothing",
        lambda: AODEClassifier(smoothing="x").fit(X, Y),
        ValueError,
        ["smoothing='x'", "m-estimate", "weka"],
    ),
    ("ETAN k", lambda: ETANClassifier(k=0).fit(X, Y), ValueError, ["k=0", ">= 1"]),
    ("LTAN delta", lambda: LTANClassifier(delta=0).fit(X, Y), ValueError, ["delta=0", "0 < delta"]),
    (
        "TargetKDB smoothing",
        lambda: TargetKDBClassifier(smoothing="laplace").fit(X, Y),
        ValueError,
        ["smoothing='laplace'", "pseudo-instance"],
    ),
    ("predict before fit", lambda: TANClassifier().predict(X), NotFittedError, ["not fitted", "Call 'fit'"]),
    (
        "too few columns",
        lambda: fitted().predict(X[["a"]]),
        ValueError,
        ["1 features", "expecting 2", "feature_names_in_ = ['a', 'b']"],
    ),
    (
        "renamed columns",
        lambda: fitted().predict(X.rename(columns={"a": "z"})),
        ValueError,
        ["missing ['a']", "unexpected ['z']", "feature_names_in_"],
    ),
    (
        "unseen value, handle_unknown='error'",
        lambda: fitted(TANClassifier(handle_unknown="error")).predict(X.assign(a="w")),
        ValueError,
        ["'a'", "never seen", "handle_unknown='marginalize'"],
    ),
    (
        "missing value, handle_unknown='error'",
        _missing_at_predict,
        ValueError,
        ["'a'", "missing", "handle_unknown='marginalize'"],
    ),
    ("unknown classifier", lambda: make_classifier("forest"), ValueError, ["'forest'", "choose one of"]),
    ("import path spec", lambda: make_classifier("os.system"), ValueError, ["import path", "register_classifier"]),
    ("unknown parameter", lambda: make_classifier("kdb(j=1)"), ValueError, ["['j']", "valid parameters"]),
    ("non-literal value", lambda: make_classifier("kdb(k=[foo])"), ValueError, ["'k'", "literal", "kdb(k=2)"]),
    ("word for a number", lambda: make_classifier("kdb(k=foo)"), ValueError, ["k='foo'", "integer"]),
    ("unparsable spec", lambda: make_classifier("kdb(("), ValueError, ["cannot parse", "kdb(("]),
    (
        "quantile bins",
        lambda: QuantileDiscretizer(n_bins=1).fit(pd.DataFrame({"v": np.arange(6.0)})),
        ValueError,
        ["n_bins", ">= 2"],
    ),
    (
        "discretizer column absent",
        lambda: MDLDiscretizer(columns=["z"]).fit(pd.DataFrame({"v": np.arange(6.0)}), Y),
        ValueError,
        ["['z']", "columns ['v']"],
    ),
    ("discretizer column text", lambda: MDLDiscretizer(columns=["a"]).fit(X, Y), ValueError, ["'a'", "non-numeric"]),
    (
        "MDL without y",
        lambda: MDLDiscretizer().fit(pd.DataFrame({"v": np.arange(6.0)})),
        ValueError,
        ["y", "QuantileDiscretizer"],
    ),
    (
        "MDL on a label matrix",
        lambda: MDLDiscretizer().fit(pd.DataFrame({"v": np.arange(6.0)}), np.eye(6, 3)),
        ValueError,
        ["3 columns", "QuantileDiscretizer", "discretizer='quantile'"],
    ),
    (
        "LKDB has no global network",
        lambda: fitted(LKDBClassifier()).to_pgmpy(),
        ValueError,
        ["per test instance", "explain(row)"],
    ),
    ("explain two rows", lambda: fitted(LKDBClassifier()).explain(X.iloc[:2]), ValueError, ["one row", "iloc"]),
    ("diagnose label count", lambda: fitted(LTANClassifier()).diagnose(X, Y[:3]), ValueError, ["3 labels", "6 rows"]),
]


@pytest.mark.parametrize("call, exc, patterns", [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_api_bad_input(call, exc, patterns):
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    for pattern in patterns:
        assert pattern in message, f"{pattern!r} not in {message!r}"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from bnclf.datasets import load_dataset

    d = tmp_path_factory.mktemp("cli")
    Xi, yi = load_dataset("iris")
    Xi.assign(**{"class": yi}).to_csv(d / "iris.csv", index=False)
    Xi.iloc[:, :2].to_csv(d / "two_columns.csv", index=False)
    Xi.iloc[:, :2].set_axis(["width", "height"], axis=1).to_csv(d / "other_columns.csv", index=False)
    (d / "headerless.csv").write_text("5.1,3.5,1.4,0.2,setosa\n4.9,3.0,1.4,0.2,setosa\n6.2,2.9,4.3,1.3,versicolor\n")
    (d / "garbage.bnclf").write_bytes(b"\x00not a model")
    (d / "empty.bnclf").write_bytes(b"")
    (d / "twice.csv").write_text("a,b,a,class\nx,y,z,p\nx,y,w,q\n")
    (d / "relational.arff").write_text(
        "@relation r\n@attribute a {x,y}\n@attribute bag relational\n@attribute b numeric\n@end bag\n"
        '@attribute class {p,q}\n@data\nx,"1\\n2",p\ny,"3",q\n'
    )
    Xi.assign(prediction=range(len(Xi))).to_csv(d / "with_prediction.csv", index=False)
    (d / "latin1.csv").write_bytes("a,b,class\ncaf\u00e9,u,p\nthe,v,q\n".encode("latin-1"))
    assert main(["fit", str(d / "iris.csv"), "--model", "tan", "-o", str(d / "tan.bnclf")]) is None
    return d


CLI_CASES = [
    ("fit: no such file", ["fit", "{d}/nope.csv"], ["no such file"]),
    ("fit: class not a column", ["fit", "{d}/iris.csv", "--class", "kind"], ["'kind'", "columns are"]),
    ("fit: unknown model", ["fit", "{d}/iris.csv", "--model", "forest"], ["'forest'", "choose one of"]),
    ("fit: bad parameter", ["fit", "{d}/iris.csv", "--model", "kdb(k=-1)"], ["k=-1"]),
    ("fit: code in a spec", ["fit", "{d}/iris.csv", "--model", "subprocess.getoutput(cmd='id')"], ["import path"]),
    ("fit: headerless file", ["fit", "{d}/headerless.csv"], ["looks like data", "--no-header"]),
    ("fit: names count", ["fit", "{d}/headerless.csv", "--no-header", "--names", "a,b"], ["--names gives 2 names"]),
    (
        "predict: garbage model",
        ["predict", "{d}/garbage.bnclf", "{d}/iris.csv"],
        ["garbage.bnclf", "not a safe bnclf model file", "bnclf fit"],
    ),
    (
        "predict: empty model",
        ["predict", "{d}/empty.bnclf", "{d}/iris.csv"],
        ["empty.bnclf", "is empty, not a bnclf model file", "bnclf fit -o"],
    ),
    (  # some of the model's columns missing: summed out with a warning (tests/test_missing_columns.py)
        "predict: none of the model's columns",
        ["predict", "{d}/tan.bnclf", "{d}/other_columns.csv"],
        ["has none of the model's columns", "'petallength'", "'width'", "fitted on"],
    ),
    ("predict: --id not a column", ["predict", "{d}/tan.bnclf", "{d}/iris.csv", "--id", "rid"], ["--id 'rid'"]),
    ("evaluate: empty --models", ["evaluate", "{d}/iris.csv", "--models", ""], ["--models is empty"]),
    (
        "explain: not instance-specific",
        ["explain", "{d}/tan.bnclf", "{d}/iris.csv"],
        ["instance-specific", "bnclf plot"],
    ),
    ("show: no such node", ["show", "{d}/tan.bnclf", "--cpt", "colour"], ["'colour'", "nodes"]),
    ("export: unknown suffix", ["export", "{d}/tan.bnclf", "-o", "{d}/tan.txt"], ["Cannot tell the format", "fmt="]),
    ("fit: a column named twice", ["fit", "{d}/twice.csv"], ["names 'a' more than once", "--names"]),
    ("fit: --names twice", ["fit", "{d}/twice.csv", "--names", "a,a,b,class"], ["'a' twice"]),
    (
        "predict: --id named like an output column",
        ["predict", "{d}/tan.bnclf", "{d}/with_prediction.csv", "--id", "prediction"],
        ["--id 'prediction' has the name of an output column", "leave --id out"],
    ),
    ("fit: Latin-1 bytes", ["fit", "{d}/latin1.csv"], ["is not UTF-8 text", "iconv"]),
    ("fit: relational ARFF", ["fit", "{d}/relational.arff"], ["line 3", "'bag' is relational", "flatten"]),
    ("fit: a device", ["fit", "/dev/zero"], ["/dev/zero is not a regular file", "save it to a file"]),
    ("fit: a folder", ["fit", "{d}"], ["is a folder", "name a file in it"]),
    ("predict: a device as the model", ["predict", "/dev/zero", "{d}/iris.csv"], ["not a regular file"]),
    ("predict: a device as the rows", ["predict", "{d}/tan.bnclf", "/dev/zero"], ["not a regular file"]),
    (
        "evaluate: --folds 0",
        ["evaluate", "{d}/iris.csv", "--models", "nb", "--folds", "0"],
        ["n_splits=0", "--folds 2"],
    ),
    ("evaluate: --folds 1", ["evaluate", "{d}/iris.csv", "--models", "nb", "--folds", "1"], ["at least 2 folds"]),
    (
        "evaluate: --folds beyond the rows",
        ["evaluate", "{d}/iris.csv", "--models", "nb", "--folds", "100000"],
        ["more than the 150 rows", "--folds 10"],
    ),
    ("evaluate: --jobs 0", ["evaluate", "{d}/iris.csv", "--models", "nb", "--jobs", "0"], ["n_jobs=0", "--jobs N"]),
    (
        "evaluate: a keyword given twice",
        ["evaluate", "{d}/iris.csv", "--models", "kdb(k=3, k=4)"],
        ["gives 'k' twice", "kdb(k=4)"],
    ),
    (
        "evaluate: a bin count beyond the rows",
        ["evaluate", "{d}/iris.csv", "--models", "nb", "--discretize", "quantile", "--bins", "1000000"],
        ["n_bins=1000000", "training rows", "--bins"],
    ),
    (
        "compare: --alpha 7",
        ["compare", "--datasets", "{d}/iris.csv", "--classifiers", "nb", "--alpha", "7"],
        ["--alpha 7", "between 0 and 1"],
    ),
]


@pytest.mark.parametrize("argv, patterns", [c[1:] for c in CLI_CASES], ids=[c[0] for c in CLI_CASES])
def test_cli_bad_input_is_one_error_line(argv, patterns, files, capsys):
    argv = [a.replace("{d}", str(files)) for a in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("bnclf: error:")]
    assert len(errors) == 1, captured.err
    assert "Traceback" not in captured.err
    for pattern in patterns:
        assert pattern in errors[0], f"{pattern!r} not in {errors[0]!r}"


def test_at_least_forty_cases():
    assert len(API_CASES) + len(CLI_CASES) >= 40


def test_tables_too_large_for_memory_name_the_columns_and_the_fix(monkeypatch):
    from bnclf import KDBClassifier, TANClassifier
    from bnclf._config import TableTooLargeError
    from bnclf.encoding._frames import IdLikeColumnWarning

    monkeypatch.setenv("BNCLF_MEMORY_BUDGET", "1M")
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame(
        {"id": np.arange(n).astype(str), "a": rng.integers(0, 3, n).astype(str), "b": rng.integers(0, 3, n).astype(str)}
    )
    y = rng.integers(0, 2, n)
    with pytest.warns(IdLikeColumnWarning, match="'id'.*identifier.*drop it"):
        with pytest.raises(
            TableTooLargeError,
            match=r"'id' \(400 values\).*memory budget of "
            r"1\.0 MiB.*drop identifier columns",
        ):
            TANClassifier().fit(X, y)
    wide = pd.DataFrame(rng.integers(0, 12, size=(300, 8)).astype(str), columns=[f"f{i}" for i in range(8)])
    with pytest.raises(
        TableTooLargeError,
        match=r"count table of 'f\d+' \(12 values\).*"
        r"'class' \(2 values\).*Lower k",
    ):
        KDBClassifier(k=5).fit(wide, rng.integers(0, 2, 300))
    KDBClassifier(k=2).fit(wide, rng.integers(0, 2, 300))  # within the budget
    monkeypatch.setenv("BNCLF_MEMORY_BUDGET", "lots")
    with pytest.raises(ValueError, match="BNCLF_MEMORY_BUDGET='lots' is not a size"):
        KDBClassifier(k=1).fit(wide, rng.integers(0, 2, 300))


def test_the_two_oversized_examples_are_refused_before_anything_is_allocated():
    """TAN on two 100,000-valued identifier columns (a 149 GiB pair table) and KDB(k=5) on
    60 features of 50 values (233 GiB families): refused from the sizes, within seconds,
    under a budget of 8 GiB, naming the columns, the size and the fix."""
    import bnclf
    from bnclf._config import TableTooLargeError
    from bnclf.encoding._frames import IdLikeColumnWarning

    rng = np.random.default_rng(0)
    n = 100_000
    ids = pd.DataFrame({"id1": np.arange(n), "id2": rng.permutation(n)}).astype("category")
    with bnclf.config_context(memory_budget="8G"):
        with pytest.warns(IdLikeColumnWarning, match="'id[12]'"):
            too_large = r"'id1' \(100000 values\).*298\.0 GiB.*drop identifier columns"
            with pytest.raises(TableTooLargeError, match=too_large):
                TANClassifier().fit(ids, rng.integers(0, 2, n))
        wide = pd.DataFrame(rng.integers(0, 50, (2000, 60)), columns=[f"f{i}" for i in range(60)]).astype("category")
        with pytest.raises(
            TableTooLargeError, match=r"('f\d+' \(50 values\), ){6}'class' \(2 values\).*232\.8 GiB.*Lower k"
        ):
            KDBClassifier(k=5).fit(wide, rng.integers(0, 2, 2000))


@pytest.mark.parametrize("spec", ["rmcv", "rmho", "bnc-2p", "hc(criterion=cll)"])
def test_searched_families_are_sized_before_they_are_counted(spec):
    """The class-score searches count each candidate family over all folds: sized first."""
    import warnings

    import bnclf
    from bnclf._config import TableTooLargeError

    rng = np.random.default_rng(0)
    n = 600
    ids = pd.DataFrame({"id1": np.arange(n).astype(str), "id2": rng.permutation(n).astype(str)})
    with bnclf.config_context(memory_budget="1M"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(
            TableTooLargeError, match=r"(?=.*'id\d' \(600 values\))(?=.*'class' \(2 values\)).*max_parents"
        ):
            make_classifier(spec).fit(ids, rng.integers(0, 2, n))


def test_the_memory_budget_is_a_setting_that_reaches_the_workers(monkeypatch):
    import bnclf
    from bnclf import KDBClassifier
    from bnclf._config import TableTooLargeError, memory_budget
    from bnclf.evaluation._protocols import _parallel_map

    monkeypatch.delenv("BNCLF_MEMORY_BUDGET", raising=False)
    rng = np.random.default_rng(1)
    wide = pd.DataFrame(rng.integers(0, 12, size=(300, 8)).astype(str), columns=[f"f{i}" for i in range(8)])
    y = rng.integers(0, 2, 300)
    with bnclf.config_context(memory_budget="1M"):
        assert memory_budget() == 1 << 20
        with pytest.raises(TableTooLargeError, match=r"memory budget of 1\.0 MiB.*set_config\(memory_budget="):
            KDBClassifier(k=5).fit(wide, y)
        # joblib's worker processes check against the budget of the process that started them
        assert _parallel_map(memory_budget, [(), ()], n_jobs=2) == [1 << 20, 1 << 20]
    assert bnclf.get_config()["memory_budget"] is None
    KDBClassifier(k=5).fit(wide, y)  # the default budget (a quarter of the memory) holds it
    monkeypatch.setenv("BNCLF_MEMORY_BUDGET", "2M")
    assert memory_budget() == 2 << 20
    with bnclf.config_context(memory_budget=3 << 20):  # the setting wins over the environment
        assert memory_budget() == 3 << 20
    for bad, pattern in [("lots", "memory_budget='lots' is not a size"), (0, "positive, finite"), (-1.0, "positive")]:
        with pytest.raises(ValueError, match=pattern):
            bnclf.set_config(memory_budget=bad)
    with pytest.raises(TypeError, match="memory_budget=True is not a size"):
        bnclf.set_config(memory_budget=True)
    assert bnclf.get_config()["memory_budget"] is None


def test_config_blocks_in_threads_do_not_leak():
    from concurrent.futures import ThreadPoolExecutor

    import bnclf
    from bnclf._config import memory_budget

    def in_a_block(k):
        with bnclf.config_context(memory_budget=(k + 1) << 20):
            for _ in range(200):
                assert memory_budget() == (k + 1) << 20
        return bnclf.get_config()["memory_budget"]

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(in_a_block, range(16))) == [None] * 16
    assert bnclf.get_config()["memory_budget"] is None
    with bnclf.config_context(memory_budget="4M"):
        bnclf.set_config(memory_budget="5M")  # inside a block: the block's setting too
        assert memory_budget() == 5 << 20
    assert memory_budget() == 5 << 20  # and for the rest of the session
    bnclf.set_config(memory_budget=None)
    assert bnclf.get_config()["memory_budget"] is None


def test_workers_are_capped_at_the_cores_and_the_tasks():
    from joblib import cpu_count

    from bnclf.evaluation._protocols import worker_count

    cores = cpu_count()
    with pytest.warns(UserWarning, match=f"n_jobs=1000 is more than the {cores} cores"):
        assert worker_count(1000, 10) == min(cores, 10)
    assert worker_count(-1, 1) == 1
    assert worker_count(-1) == cores
    assert worker_count(None, 5) == 1
    with pytest.raises(ValueError, match="n_jobs=0 .* --jobs N"):
        worker_count(0)


def test_the_tables_of_a_whole_fit_are_held_to_one_budget():
    """AODE on 150 columns of 100 values: each (xi, xj, class) table is 160 kB, within any
    budget, while the 11,175 of them take 1.7 GiB together; the fit is refused before it
    counts them, naming the sum, the largest table and the fix."""
    import tracemalloc

    import bnclf

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 100, (2000, 150)), columns=[f"c{j}" for j in range(150)]).astype("category")
    y = rng.integers(0, 2, 2000)
    tracemalloc.start()
    try:
        with bnclf.config_context(memory_budget="512M"), pytest.raises(MemoryError) as info:
            AODEClassifier().fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    for pattern in ["11,175 count tables", "together take 1.7 GiB", "512.0 MiB", "(100 values)", "memory_budget"]:
        assert pattern in message, message
    assert peak < 64 << 20  # refused before the tables were counted


def test_only_question_marks_and_empty_cells_are_missing_and_spaces_do_not_make_states(tmp_path):
    from bnclf.datasets import load_table

    (tmp_path / "t.csv").write_text("a,b,class\nx,NA,p\nx ,None,q\ny,null,p\n?,,q\n  y  ,NA,q\n")
    X, y = load_table(tmp_path / "t.csv")
    assert X["a"].tolist()[:3] == ["x", "x", "y"] and pd.isna(X["a"].iloc[3]) and X["a"].iloc[4] == "y"
    assert X["b"].tolist()[:3] == ["NA", "None", "null"] and pd.isna(X["b"].iloc[3])
    model = NaiveBayesClassifier().fit(X, y)
    assert model.network_.states[0] == ["x", "y", "<missing>"]


def test_dot_output_survives_any_name():
    """A name ending in a backslash, with quotes, angle brackets, ampersands or a newline
    cannot break the DOT text: nodes are plain identifiers, names are HTML-like labels."""
    import html
    import re

    from bnclf.io import network_dot

    names = ["a\\", 'b "q" <&>', "c\nd"]
    frame = pd.DataFrame({names[0]: list("xyxyxy"), names[1]: list("uuvvuv"), names[2]: list("pqpqqp")})
    net = TANClassifier().fit(frame, Y).network_
    labels, edges = {}, []
    lines = network_dot(net).splitlines()
    assert lines[0] == "digraph bnclf {" and lines[-1] == "}"
    for line in lines[1:-1]:
        node = re.fullmatch(r"  (n\d+) \[label=<([^<>]*(?:<br/>[^<>]*)*)>(, [^\]]*)?\];", line)
        edge = re.fullmatch(r"  (n\d+) -> (n\d+);", line)
        assert node or edge or line.strip() == "rankdir=TB;", line
        if node:
            labels[node.group(1)] = html.unescape(node.group(2).replace("<br/>", "\n"))
        if edge:
            edges.append((labels[edge.group(1)], labels[edge.group(2)]))
    assert set(labels.values()) == {*names, "class"}
    assert sorted(edges) == sorted((str(p), str(c)) for c, ps in net.named_families.items() for p in ps)


@pytest.mark.parametrize(
    "edit, patterns",
    [
        (("type discrete [ 2 ] { x, y }", "type discrete [ 3 ] { x, y }"), ["line 4", "declares 3 states but lists 2"]),
        (("( 0 ) 0.625, 0.375;", "( 0 ) 0.625, 0.275;"), ["line 12", "probabilities of a do not sum to one"]),
    ],
    ids=["declared cardinality", "not normalized"],
)
def test_a_damaged_bif_names_the_line_and_the_problem(tmp_path, edit, patterns):
    from bnclf.io import read_network, write_network

    path = write_network(NaiveBayesClassifier().fit(X, Y), tmp_path / "t.bif")
    text = path.read_text()
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(ValueError) as info:
        read_network(path)
    for pattern in patterns:
        assert pattern in str(info.value), str(info.value)
    assert "no probability block" not in str(info.value)


def test_a_gzip_compressed_csv_is_read_whatever_its_name(tmp_path):
    import gzip

    from bnclf.datasets import load_table

    text = "a,b,class\nx,u,p\ny,v,q\nx,v,p\n"
    (tmp_path / "plain.csv").write_text(text)
    (tmp_path / "packed.csv").write_bytes(gzip.compress(text.encode()))
    for got, want in zip(load_table(tmp_path / "packed.csv"), load_table(tmp_path / "plain.csv")):
        pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want))


def test_unhashable_cells_name_their_column_at_fit_and_at_predict():
    bad = X.assign(a=[[1], [2], [1], [2], [1], [2]])
    with pytest.raises(ValueError, match=r"column 'a' holds list values such as \[1\].*astype\(str\)"):
        NaiveBayesClassifier().fit(bad, Y)
    model = NaiveBayesClassifier().fit(X, Y)
    for rows in (bad, bad.iloc[:1]):
        with pytest.raises(ValueError, match=r"column 'a' holds list values"):
            model.predict(rows)


def test_a_header_read_as_data_under_no_header_is_pointed_out(tmp_path):
    from bnclf.datasets import read_csv_table

    (tmp_path / "h.csv").write_text("a,b,class\nx,u,p\ny,v,q\nx,v,p\n")
    with pytest.warns(UserWarning, match="looks like column names.*leave out --no-header"):
        frame = read_csv_table(tmp_path / "h.csv", header=False)
    assert frame.shape == (4, 3)  # still read as asked
    (tmp_path / "d.csv").write_text("x,u,p\ny,v,q\nx,v,p\n")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_csv_table(tmp_path / "d.csv", header=False)  # data first: no warning


def test_decimal_commas_in_a_semicolon_file_are_numbers(tmp_path):
    from bnclf.datasets import read_csv_table

    (tmp_path / "dc.csv").write_text("a;b;class\n1,5;x,y;p\n2,25;y;q\n-3;x;p\n")
    frame = read_csv_table(tmp_path / "dc.csv")
    assert frame["a"].tolist() == [1.5, 2.25, -3.0]
    assert frame["b"].tolist() == ["x,y", "y", "x"]  # text with a comma stays text


@pytest.mark.parametrize(
    "tamper, field, what",
    [
        (lambda m: m["nodes"].append(list(m["nodes"][0])), "nodes", "listed twice"),
        (lambda m: m["nodes"].pop(), "nodes", "but the network has"),
        (lambda m: m["nodes"][0].__setitem__(1, ["a", "list"]), "nodes", "cannot be a name"),
        (lambda m: m["states"][m["nodes"][0][0]].pop(), "states of", "but the file has"),
        (lambda m: m.__setitem__("states", []), "states", "one entry per node"),
        (lambda m: m.__setitem__("nodes", "abc"), "nodes", "list of [name in the file, original] pairs"),
    ],
    ids=["duplicate", "missing node", "unhashable", "missing state", "states not a map", "nodes not pairs"],
)
def test_a_name_map_is_checked_field_by_field(tmp_path, tamper, field, what):
    """The sidecar's hash ties it to its network file, not its fields: a hand-edited name map
    with the right hash is refused by file and field, never with an internal error."""
    import json

    from bnclf.io import read_network, write_network

    path = write_network(NaiveBayesClassifier().fit(X, Y), tmp_path / "t.xmlbif")
    sidecar = tmp_path / "t.xmlbif.names.json"
    name_map = json.loads(sidecar.read_text())
    tamper(name_map)
    sidecar.write_text(json.dumps(name_map))
    with pytest.raises(ValueError) as info:
        read_network(path)
    message = str(info.value)
    assert "t.xmlbif.names.json" in message and field in message and what in message, message
    assert "write the network again" in message


@pytest.mark.parametrize("suffix", [".bif", ".xmlbif", ".bifxml"])
@pytest.mark.parametrize("bad", ["-0.5, 1.5", "nan, 1"])
def test_a_probability_outside_zero_and_one_is_refused_naming_the_variable_and_the_line(tmp_path, suffix, bad):
    """A distribution that sums to one but holds a negative probability (or NaN): refused by
    variable and line; the untouched file reads back as the model (the oracle)."""
    from bnclf.io import read_network, write_network

    est = NaiveBayesClassifier().fit(X, Y)
    path = write_network(est, tmp_path / f"t{suffix}")
    assert set(read_network(path).nodes) == set(est.dag_.nodes)
    (tmp_path / f"t{suffix}.names.json").unlink()  # the edited file no longer has its hash
    text = path.read_text()
    old = "0.625, 0.375" if suffix == ".bif" else "0.625 0.375"
    assert old in text
    new = bad if suffix == ".bif" else bad.replace(",", "")
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1))
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ValueError) as info:
        read_network(path)
    message = str(info.value)
    assert str(path) in message and f"line {line}:" in message and "variable 'a'" in message, message
    assert "not a probability" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == before


_TWO = "variable {0} {{\n  type discrete [ 2 ] {{ x, y }};\n}}\n"


@pytest.mark.parametrize(
    "names, parents, patterns",
    [
        (("A", "B"), {"A": "B", "B": "A"}, ["the arcs", "A -> B", "B -> A", "form a cycle", "lines 9, 13"]),
        (("A", "B", "C"), {"A": "C", "B": "A", "C": "B"}, ["form a cycle", "-> A", "-> B", "-> C"]),
        (("A", "a"), {"A": None, "a": "A"}, ["lines 3 and 6", "'A' and 'a' differ only in letter case"]),
    ],
    ids=["two-cycle", "three-cycle", "letter case"],
)
def test_a_bif_with_a_cycle_or_a_letter_case_clash_names_it(tmp_path, names, parents, patterns):
    """Not 'variable B has no probability block': the cycle, or the clash, by name and line.
    The oracle: the same file with the first arc removed (and the clash renamed) reads."""
    from bnclf.io import read_network

    def bif(parents_of, names):
        text = "network t {\n}\n" + "".join(_TWO.format(v) for v in names)
        for v in names:
            p = parents_of[v]
            rows = "  table 0.5, 0.5;\n" if p is None else "  (x) 0.5, 0.5;\n  (y) 0.4, 0.6;\n"
            text += f"probability ( {v}{'' if p is None else ' | ' + p} ) {{\n{rows}}}\n"
        return text

    path = tmp_path / "net.bif"
    path.write_text(bif(parents, names))
    with pytest.raises(ValueError) as info:
        read_network(path)
    message = str(info.value)
    assert str(path) in message and "no probability block" not in message
    for pattern in patterns:
        assert pattern in message, message
    fixed = dict(parents, **{names[0]: None})
    renamed = [n if k == 0 or n.lower() != names[0].lower() else n + "2" for k, n in enumerate(names)]
    fixed = {r: (None if fixed[n] is None else fixed[n]) for r, n in zip(renamed, names)}
    path.write_text(bif(fixed, renamed))
    assert set(read_network(path).nodes) == set(renamed)


@pytest.mark.parametrize("sidecar", ["names", "manifest"])
def test_a_sidecar_nested_too_deep_names_the_file(tmp_path, sidecar):
    """100,000 nested lists: a clear error naming the file, never a RecursionError."""
    from bnclf import AODEClassifier
    from bnclf.io import read_network, read_networks, write_network

    deep = "[" * 100_000 + "]" * 100_000
    if sidecar == "names":
        path = write_network(NaiveBayesClassifier().fit(X, Y), tmp_path / "t.xmlbif")
        target, read = tmp_path / "t.xmlbif.names.json", read_network
    else:
        path = write_network(AODEClassifier().fit(X, Y), tmp_path / "t.xmlbif")
        target, read = path, read_networks
    target.write_text(deep)
    with pytest.raises(ValueError) as info:
        read(path)
    assert not isinstance(info.value, RecursionError) and str(target) in str(info.value)
