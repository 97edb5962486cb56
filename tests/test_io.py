"""BIF / XMLBIF round trips with awkward names, and estimator persistence."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnclf import KDBClassifier, TANClassifier
from bnclf.io._models import load_model, save_model
from bnclf.io._networks import read_network, safe_identifiers, write_network
from bnclf.io._pgmpy import tables_from_network


@pytest.fixture(scope="module")
def awkward_model():
    rng = np.random.default_rng(3)
    n = 400
    X = pd.DataFrame(
        {
            "age group": rng.choice(["(-inf, 2.5]", "(2.5, inf)"], n),
            "a-b,c": rng.choice(["<5", ">=5", "x-y"], n),
            "größe": rng.choice(["klein", "groß", "sehr groß"], n),
            7: rng.integers(0, 3, n),
            "flag": rng.choice([True, False], n),
            "ratio": rng.choice([0.5, 1.5], n).astype(object),
            "table": rng.choice(["network", "variable"], n),
        }
    )
    y = pd.Series(rng.choice(["yes", "no", "maybe"], n), name="probability")
    return KDBClassifier(k=2).fit(X, y)


def assert_same_network(model, est):
    families, tables, states = tables_from_network(model)
    assert set(model.nodes) == set(est.dag_.nodes)
    assert set(model.edges) == set(est.dag_.edges)
    for child, parents in est.families_.items():
        got = np.transpose(tables[child], [0] + [1 + families[child].index(p) for p in parents])
        np.testing.assert_allclose(got, np.exp(est.log_cpts_[child]), rtol=0, atol=1e-9)
        for v in (child, *parents):
            assert states[v] == est.categories_[v]
            assert [type(s) for s in states[v]] == [type(s) for s in est.categories_[v]]


@pytest.mark.parametrize("suffix", [".bif", ".xmlbif", ".bifxml", ".uai"])
def test_round_trip_keeps_names_states_and_values(awkward_model, tmp_path, suffix):
    path = write_network(awkward_model, tmp_path / f"model{suffix}")
    assert path.exists() and (tmp_path / f"model{suffix}.names.json").exists()
    model = read_network(path)
    assert_same_network(model, awkward_model)
    assert model.get_cpds(7).state_names[7] == [0, 1, 2]
    assert model.get_cpds("flag").state_names["flag"] == [False, True]


@pytest.mark.parametrize(
    "suffix, names, states",
    [
        # BIF: the closest names its grammar allows (bnclf.io._formats.bif_names)
        (".bif", ["age_group", "a-b_c", "gro_e", "_7", "_table", "_probability"], ["_-inf_2.5", "_2.5_inf"]),
        # XMLBIF: the names themselves, as text
        (".xmlbif", ["age group", "a-b,c", "größe", "7", "table", "probability"], ["(-inf, 2.5]", "(2.5, inf)"]),
        # UAI: no names; variables in column order, the class last, states by position
        (".uai", ["var_0", "var_1", "var_2", "var_3", "var_7"], [0, 1]),
    ],
)
def test_file_without_name_map_reads_with_the_files_names(awkward_model, tmp_path, suffix, names, states):
    path = write_network(awkward_model, tmp_path / f"m{suffix}")
    (tmp_path / f"m{suffix}.names.json").unlink()
    model = read_network(path)
    assert set(names) <= set(model.nodes)
    first = names[0]
    assert model.get_cpds(first).state_names[first] == states
    assert list(model.nodes)[-1] == names[-1]  # the class ("probability") is the file's last variable


def test_pgmpy_model_round_trip(tmp_path, krkp):
    X, y = krkp
    est = TANClassifier().fit(X, y)
    path = write_network(est.to_pgmpy(), tmp_path / "krkp.bif")
    assert_same_network(read_network(path), est)
    names = json.loads((tmp_path / "krkp.bif.names.json").read_text())
    assert names["format"] == "bnclf-name-map/1"


def test_safe_identifiers_are_distinct():
    ids = safe_identifiers(["<5", ">=5", "5", "a b", "a_b", "", "table"], "s")
    assert len(set(ids)) == 7
    assert all(i.replace("_", "").isalnum() for i in ids)
    assert not ids[2][0].isdigit() and ids[6] != "table"


def test_unknown_format_is_explained(awkward_model, tmp_path):
    with pytest.raises(ValueError, match=r"use a .bif, .xmlbif \(.xml, .bifxml\) or .uai suffix"):
        write_network(awkward_model, tmp_path / "model.txt")


def test_save_and_load_estimator(awkward_model, tmp_path):
    path = save_model(awkward_model, tmp_path / "m.bnclf")
    loaded = load_model(path)
    X = pd.DataFrame(
        {
            "age group": ["(2.5, inf)"],
            "a-b,c": ["<5"],
            "größe": ["groß"],
            7: [1],
            "flag": [True],
            "ratio": [0.5],
            "table": ["network"],
        }
    )
    np.testing.assert_array_equal(loaded.predict_proba(X), awkward_model.predict_proba(X))
    (tmp_path / "bad.bnclf").write_bytes(b"\x80\x04N.")
    with pytest.raises(ValueError, match="not a safe bnclf model file.*trusted=True"):
        load_model(tmp_path / "bad.bnclf")


def test_names_differing_only_in_case_survive_bif(tmp_path):
    X = pd.DataFrame({"Age": list("xyxyxyxy"), "age": list("xxyyxxyy"), "Class": list("abababab")})
    est = TANClassifier().fit(X, list("01010011"))
    assert est.class_name_ == "class"
    for suffix in (".bif", ".xmlbif"):
        assert_same_network(read_network(write_network(est, tmp_path / f"case{suffix}")), est)


def test_labels_json_cannot_type_come_back_as_text(tmp_path):
    X = pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2021-06-30"] * 4)})
    est = TANClassifier().fit(X, list("01010011"))
    model = read_network(write_network(est, tmp_path / "t.bif"))
    assert model.get_cpds("when").state_names["when"] == ["2020-01-01 00:00:00", "2021-06-30 00:00:00"]


def test_export_rejects_what_it_cannot_write(tmp_path, krkp):
    from sklearn.exceptions import NotFittedError
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline

    with pytest.raises(NotFittedError):
        write_network(TANClassifier(), tmp_path / "a.bif")
    with pytest.raises(TypeError, match="Cannot export a CategoricalNB"):
        write_network(CategoricalNB(), tmp_path / "a.bif")
    with pytest.raises(TypeError, match="Cannot export a dict"):
        write_network({}, tmp_path / "a.bif")
    X, y = krkp
    pipe = make_pipeline(TANClassifier()).fit(X, y)
    assert_same_network(read_network(write_network(pipe, tmp_path / "p.xmlbif")), pipe[-1])


@pytest.mark.parametrize("fmt", ["bif", "xmlbif"])
def test_ensemble_and_multinet_write_one_file_per_member_and_read_back(tmp_path, krkp, fmt):
    from bnclf import ChowLiuMultinetClassifier, WATANClassifier
    from bnclf.io._networks import read_networks

    X, y = krkp
    X = X.iloc[:, :5]
    watan = WATANClassifier().fit(X, y)
    manifest = write_network(watan, tmp_path / f"watan.{fmt}")
    assert manifest.name == f"watan.{fmt}.manifest.json"
    back = read_networks(manifest)
    assert back["kind"] == "ensemble" and len(back["networks"]) == 5
    np.testing.assert_allclose(back["weights"], watan.weights_)
    for model, net in zip(back["networks"], watan.networks_):
        assert set(model.edges) == set(net.dag.edges)
    assert len(list(tmp_path.glob(f"watan.member*.{fmt}"))) == 5

    bmc = ChowLiuMultinetClassifier().fit(X, y)
    back = read_networks(write_network(bmc, tmp_path / f"bmc.{fmt}"))
    assert back["kind"] == "multinet" and list(back["networks"]) == list(bmc.classes_)
    np.testing.assert_allclose(list(back["class_prior"].values()), np.exp(bmc.class_log_prior_))
    for label, net in bmc.network_members():
        model = back["networks"][label]
        assert bmc.class_name_ not in model.nodes
        _, tables, _ = tables_from_network(model)
        for child, table in net.named_log_cpts.items():
            order = [0] + [1 + list(model.get_cpds(child).variables[1:]).index(p) for p in net.named_families[child]]
            np.testing.assert_allclose(np.transpose(tables[child], order), np.exp(table), atol=1e-9)


def test_aode_manifest_records_what_the_row_weights_need(tmp_path, krkp):
    from bnclf import AODEClassifier
    from bnclf.io._networks import read_networks

    X, y = krkp
    est = AODEClassifier(frequency_limit=3).fit(X.iloc[:, :4], y)
    back = read_networks(write_network(est, tmp_path / "aode.xmlbif"))
    assert back["frequency_limit"] == 3 and len(back["networks"]) == 5
    name = X.columns[0]
    assert back["value_counts"][name] == [
        float(v) for v in X[name].value_counts().reindex(est.categories_[name]).fillna(0)
    ]


def test_aode_writes_its_naive_bayes_fallback_only_when_a_row_can_use_it(tmp_path, krkp):
    from pgmpy_oracle import log_joint_per_class

    from bnclf import AODEClassifier, WAODEClassifier
    from bnclf.io._networks import read_networks

    X, y = krkp
    X, y = X.iloc[::40, :4], y.iloc[::40]
    rows = X.iloc[:6].astype(object).mask(np.eye(6, 4, dtype=bool))  # one value missing a row
    for est in (AODEClassifier(frequency_limit=0), WAODEClassifier(smoothing="weka")):
        back = read_networks(write_network(est.fit(X, y), tmp_path / "spodes.xmlbif"))
        assert len(back["networks"]) == 4 and "is not written" in back["row_weights"]
        assert len(list(tmp_path.glob("spodes.member*.xmlbif"))) == 4
        np.testing.assert_allclose(back["weights"], est.weights_[:4])
        # the files and the manifest's weights give the model's posteriors (pgmpy's joints)
        for i in range(len(rows)):
            evidence = {k: v for k, v in rows.iloc[i].items() if not pd.isna(v)}
            joints = [log_joint_per_class(m, "class", list(est.classes_), evidence) for m in back["networks"]]
            joint = np.log(np.exp(joints).T @ np.asarray(back["weights"]))
            np.testing.assert_allclose(np.exp(joint - np.logaddexp.reduce(joint)), est.predict_proba(rows.iloc[[i]])[0])
        for member in tmp_path.glob("spodes.*"):
            member.unlink()
    est = AODEClassifier().fit(X, y)  # frequency_limit=1: a row with no frequent value falls back
    back = read_networks(write_network(est, tmp_path / "aode.xmlbif"))
    assert len(back["networks"]) == 5 and back["weights"][-1] == 0.0
    assert "class" in back["networks"][-1].nodes and "naive Bayes" in back["row_weights"]


@pytest.mark.parametrize("suffix", [".bif", ".xmlbif"])
def test_garbage_truncated_and_mismatched_files_are_rejected_by_name(tmp_path, krkp, suffix):
    X, y = krkp
    est = TANClassifier().fit(X.iloc[:, :5], y)
    path = write_network(est, tmp_path / f"m{suffix}")
    text = path.read_text()
    bad = tmp_path / f"truncated{suffix}"
    bad.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match=f"truncated{suffix}.*(not a readable|not a complete)"):
        read_network(bad)
    garbage = tmp_path / f"garbage{suffix}"
    garbage.write_text("this is not a network\n")
    with pytest.raises(ValueError, match=f"garbage{suffix}"):
        read_network(garbage)
    path.write_text(text + "\n")  # still a valid file, but not the one the name map describes
    with pytest.raises(ValueError, match="names.json belongs to another version"):
        read_network(path)
    with pytest.raises(FileNotFoundError, match="no such network file"):
        read_network(tmp_path / f"absent{suffix}")
    # the line at fault: a truncated block, and text pgmpy's BIF parser would skip; XMLBIF
    # lines come from the XML parser
    cut = text[: len(text) // 2]
    bad.write_text(cut)
    line = "line " + (str(cut.count("\n") + 1) if suffix == ".xmlbif" else "")
    with pytest.raises(ValueError, match=f"truncated{suffix}.*{line}"):
        read_network(bad)
    if suffix == ".bif":
        opened = cut[: cut.rindex("{")].count("\n") + 1  # the last block's opening line
        with pytest.raises(ValueError, match=f"line {opened}: the block opened there is not closed"):
            read_network(bad)
        garbage.write_text("hello world\n" + text)
        with pytest.raises(ValueError, match="garbage.bif.*line 1: unexpected text 'hello world'"):
            read_network(garbage)
    # a name map without its file's hash is refused, by name
    write_network(est, path)
    sidecar = Path(str(path) + ".names.json")
    names = json.loads(sidecar.read_text())
    del names["sha256"]
    sidecar.write_text(json.dumps(names))
    with pytest.raises(ValueError, match="names.json is not a complete bnclf name map.*sha256"):
        read_network(path)


def test_damaged_uai_files_are_refused_with_what_is_wrong(tmp_path, krkp):
    X, y = krkp
    path = write_network(TANClassifier().fit(X.iloc[:, :4], y), tmp_path / "m.uai")
    text = path.read_text()
    cases = {
        "truncated": (text[: len(text) // 2], "the file ends where"),
        "garbage": ("this is not a network\n", "does not start with BAYES"),
        "markov": (text.replace("BAYES", "MARKOV", 1), "does not start with BAYES"),
        "no table": (text.replace("\n5\n", "\n4\n", 1), "functions"),
        "bad value": (text[: text.rindex(" ")] + " x\n", "'x' is not a value"),
        "extra": (text + "0.5\n", "text after the last table"),
    }
    for name, (damaged, message) in cases.items():
        bad = tmp_path / f"{name.replace(' ', '_')}.uai"
        bad.write_text(damaged)
        with pytest.raises(ValueError, match=f"{bad.name} is not a readable UAI network: .*{message}"):
            read_network(bad)
    cut = text.splitlines()
    cut[-1] = " ".join(["0.3"] * len(cut[-1].split()))  # the class prior no longer sums to one
    bad = tmp_path / "sums.uai"
    bad.write_text("\n".join(cut) + "\n")
    with pytest.raises(ValueError, match="sums.uai is not a readable UAI network: the distributions of variable 4"):
        read_network(bad)


@pytest.mark.parametrize("m", [float("inf"), float("nan"), -1.0, "1", True])
def test_impossible_m_is_rejected(m, krkp):
    X, y = krkp
    with pytest.raises(ValueError, match="m=.*finite number >= 0"):
        TANClassifier(m=m).fit(X.iloc[:50, :3], y.iloc[:50])


def _file_tables(model_or_parts):
    """``{node: (states, {parent: states}, table with the parents in sorted order)}``."""
    if isinstance(model_or_parts, tuple):
        _, families, tables, states = model_or_parts
    else:
        families, tables, states = tables_from_network(model_or_parts)
    out = {}
    for child, parents in families.items():
        order = sorted(parents)
        table = np.transpose(tables[child], [0] + [1 + list(parents).index(p) for p in order])
        out[child] = (list(states[child]), {p: list(states[p]) for p in order}, table)
    return out


def test_the_strict_bif_reader_reads_what_pgmpy_reads(awkward_model, tmp_path, krkp):
    from bnclf import ChowLiuMultinetClassifier
    from bnclf.io._formats import read_bif
    from bnclf.io._networks import _bif_reader

    X, y = krkp
    multinet = ChowLiuMultinetClassifier().fit(X.iloc[:, :6], y)
    for name, model in [("kdb", awkward_model), ("multinet", multinet)]:
        manifest = write_network(model, tmp_path / f"{name}.bif")
        files = [manifest] if name == "kdb" else sorted(tmp_path.glob(f"{name}.class_*.bif"))
        for path in files:
            ours = _file_tables(read_bif(path))
            theirs = _file_tables(_bif_reader()(str(path)).get_model())
            assert ours.keys() == theirs.keys() and len(ours) > 1
            for node, (states, parents, table) in ours.items():
                assert (states, parents) == theirs[node][:2]
                np.testing.assert_array_equal(table, theirs[node][2])  # the same numbers, bit for bit


def test_the_strict_bif_reader_refuses_any_other_text_by_line(tmp_path, krkp):
    from bnclf.io._formats import read_bif

    X, y = krkp
    path = write_network(TANClassifier().fit(X.iloc[:, :4], y), tmp_path / "m.bif")
    lines = path.read_text().split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("    ( "))
    numbers = lines[row][lines[row].index(")") + 2 : -1].split(", ")
    header = next(i for i, line in enumerate(lines) if line.startswith("probability"))

    def damaged(number, line):
        return lines[: number - 1] + ([line] if line is not None else []) + lines[number:]

    cases = {
        "a comment": (damaged(row + 1, lines[row] + " // note"), row + 1, "expected a row line"),
        "a row left out": (damaged(row + 1, None), lines.index("}", row), "expected a row line, found '}'"),
        "a row twice": (damaged(row + 2, lines[row]), row + 2, "not a new combination"),
        "a word": (damaged(row + 1, lines[row].replace(numbers[0], "x")), row + 1, "expected 2 probabilities"),
        "a number short": (damaged(row + 1, lines[row].replace(", " + numbers[1], "")), row + 1, "expected 2"),
        "not summing to one": (damaged(row + 1, lines[row].replace(numbers[0], "0.9")), row + 1, "sum to one"),
        "a variable twice": (damaged(6, f"variable {lines[2].split()[1].upper()} {{"), 6, "declared twice"),
        "text after": (lines[:-1] + ["table 1;", ""], len(lines), "text after the last table"),
        "states miscounted": (damaged(4, lines[3].replace("[ 2 ]", "[ 3 ]")), 4, "declares 3 states but lists 2"),
        "no last line break": (lines[:-1], len(lines) - 1, "no line break at the end"),
        "an unknown parent": (damaged(header + 1, lines[header].replace(" )", ", nobody )")), header + 1, "declared"),
    }
    for name, (damaged_lines, number, message) in cases.items():
        bad = tmp_path / f"{name.replace(' ', '_')}.bif"
        bad.write_text("\n".join(damaged_lines))
        with pytest.raises(ValueError, match=f"{bad.name} is not a BIF network as bnclf writes it: line {number}: "):
            read_bif(bad)
        with pytest.raises(ValueError, match=message):
            read_bif(bad)


def _corrupt_the_write(monkeypatch, fmt, call):
    """Make the ``call``-th file written in ``fmt`` hold another table than the model's: two
    probabilities of one distribution swapped (it still sums to one)."""
    import bnclf.io._networks as networks

    write, calls = networks._WRITERS[fmt], []

    def corrupted(nodes, families, tables, states):
        calls.append(1)
        if len(calls) == call:
            tables = dict(tables)
            child = next(c for c in nodes if families[c])
            table = np.array(tables[child], dtype=float)
            column = np.unravel_index(np.argmax(abs(table[0] - table[1])), table.shape[1:])
            table[(0, *column)], table[(1, *column)] = table[(1, *column)], table[(0, *column)]
            tables[child] = table
        return write(nodes, families, tables, states)

    monkeypatch.setitem(networks._WRITERS, fmt, corrupted)


@pytest.mark.parametrize("fmt", ["bif", "xmlbif", "uai"])
def test_a_damaged_member_of_a_set_is_caught(tmp_path, krkp, monkeypatch, fmt):
    from bnclf import AODEClassifier
    from bnclf.io._networks import exported_members

    X, y = krkp
    est = AODEClassifier().fit(X.iloc[::20, :4], y.iloc[::20])
    sizes = [sum(t.size for t in net.log_cpts) for _, net in exported_members(est)]
    last = sorted(range(len(sizes)), key=sizes.__getitem__)[-1]  # members are written smallest first
    assert len(sizes) > 3
    # the last member written: for BIF, one that pgmpy's reader does not read (smaller ones
    # have all its variables and numbers of parents)
    _corrupt_the_write(monkeypatch, fmt, call=len(sizes))
    with pytest.raises(RuntimeError, match=rf"aode\.member{last:02d}\.{fmt} does not read back as written"):
        write_network(est, tmp_path / f"aode.{fmt}")
    assert list(tmp_path.iterdir()) == []  # nothing lands
    monkeypatch.undo()
    assert write_network(est, tmp_path / f"aode.{fmt}").exists()


def test_pgmpy_reads_one_bif_member_of_an_aode_and_bnclf_reads_every_member(tmp_path, krkp, monkeypatch):
    import bnclf.io._networks as networks
    from bnclf import AODEClassifier

    X, y = krkp
    est = AODEClassifier().fit(X.iloc[::20, :4], y.iloc[::20])
    n = len(networks.exported_members(est))
    reads = {"pgmpy": [], "bnclf": []}
    read_network, read_bif = networks.read_network, networks.read_bif
    monkeypatch.setattr(networks, "read_network", lambda p, fmt: reads["pgmpy"].append(p) or read_network(p, fmt))
    monkeypatch.setattr(networks, "read_bif", lambda p: reads["bnclf"].append(p) or read_bif(p))
    write_network(est, tmp_path / "aode.bif")
    # the members share their variables: pgmpy reads the smallest (naive Bayes, tables of
    # one parent) and the smallest SPODE (tables of two parents)
    sizes = [sum(t.size for t in net.log_cpts) for _, net in networks.exported_members(est)]
    smallest = sorted(range(n), key=sizes.__getitem__)
    assert est.weights_[-1] == 0 and smallest[0] == n - 1  # the naive Bayes fallback is written
    assert [p.name for p in reads["pgmpy"]] == [f"aode.member{i:02d}.bif" for i in smallest[:2]]
    assert sorted(p.name for p in reads["bnclf"]) == [f"aode.member{i:02d}.bif" for i in range(n)]
    reads["pgmpy"].clear()
    write_network(est, tmp_path / "aode.xmlbif")
    assert len(reads["pgmpy"]) == n  # XMLBIF: pgmpy's reader reads every member


def test_a_member_changed_after_its_check_fails_the_set(tmp_path, krkp, monkeypatch):
    import bnclf.io._networks as networks
    from bnclf import AODEClassifier

    X, y = krkp
    est = AODEClassifier().fit(X.iloc[::20, :4], y.iloc[::20])
    write_single = networks._write_single

    def then_changed(net, path, *args, **kwargs):
        digest = write_single(net, path, *args, **kwargs)
        if path.name.endswith("member01.xmlbif"):
            path.write_text(path.read_text() + "\n")
        return digest

    monkeypatch.setattr(networks, "_write_single", then_changed)
    with pytest.raises(RuntimeError, match="aode.xmlbif.manifest.json does not read back as written: a member file"):
        write_network(est, tmp_path / "aode.xmlbif")
    assert list(tmp_path.iterdir()) == []


def _uai_posteriors(gum, path, est, rows, uai):
    """P(class | row) from pyAgrum's reading of ``path`` (UAI: variable i is node i)."""
    bn = gum.loadBN(str(path))
    nodes = [v for v in est.network_.named_families]  # features in column order, class last
    order = list(est.feature_names_in_) + [est.class_name_]
    nodes = [v for v in order if v in nodes]
    inference, out = gum.LazyPropagation(bn), []
    for _, row in rows.iterrows():
        if uai:
            given = {nodes.index(v): est.categories_[v].index(row[v]) for v in est.feature_names_in_}
            target = nodes.index(est.class_name_)
        else:
            given, target = {str(v): str(row[v]) for v in est.feature_names_in_}, est.class_name_
        inference.setEvidence(given)
        inference.makeInference()
        post = inference.posterior(target)
        labels = list(post.variable(0).labels())
        keys = [str(k) for k in range(len(est.classes_))] if uai else [str(c) for c in est.classes_]
        out.append([post.toarray()[labels.index(k)] for k in keys])
    return np.array(out)


def test_writing_uai_says_which_tools_read_it_and_points_pyagrum_to_bifxml(tmp_path, capsys):
    """The warning's claim, checked in pyAgrum: for a TAN (tables over two parents) the
    .bifxml it points to gives the model's posteriors and the .uai does not; for naive Bayes
    (one parent at most) the warning says pyAgrum reads the UAI file right, and it does."""
    gum = pytest.importorskip("pyagrum")
    from bnclf.cli import main
    from bnclf.models._naive import NaiveBayesClassifier

    rng = np.random.default_rng(5)
    n = 300
    y = rng.choice(["n", "y"], n)
    a = np.where(rng.random(n) < 0.8, y, rng.choice(["n", "y"], n))
    X = pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.7, a, "z"), "c": rng.choice(["p", "q", "r"], n)})
    X["d"] = np.where(rng.random(n) < 0.8, X["c"], "p")
    rows = X.iloc[:40]
    tan, nb = TANClassifier().fit(X, y), NaiveBayesClassifier().fit(X, y)
    with pytest.warns(UserWarning, match=r"tan\.uai.*pyAgrum 3\.3.*have two or more parents.*\.bifxml"):
        write_network(tan, tmp_path / "tan.uai")
    write_network(tan, tmp_path / "tan.bifxml")
    np.testing.assert_allclose(
        _uai_posteriors(gum, tmp_path / "tan.bifxml", tan, rows, uai=False), tan.predict_proba(rows), atol=1e-9
    )
    wrong = _uai_posteriors(gum, tmp_path / "tan.uai", tan, rows, uai=True)
    assert np.abs(wrong - tan.predict_proba(rows)).max() > 1e-3
    with pytest.warns(UserWarning, match=r"nb\.uai.*pyAgrum reads this file right"):
        write_network(nb, tmp_path / "nb.uai")
    np.testing.assert_allclose(
        _uai_posteriors(gum, tmp_path / "nb.uai", nb, rows, uai=True), nb.predict_proba(rows), atol=1e-6
    )
    save_model(tan, tmp_path / "tan.bnclf")
    assert main(["export", str(tmp_path / "tan.bnclf"), "-o", str(tmp_path / "cli.uai")]) in (None, 0)
    err = capsys.readouterr().err
    assert "cli.uai" in err and "pyAgrum" in err and ".bifxml" in err
