"""Run the installed Weka (Debian's ``weka`` package, 3.6.x) on ARFF files.

Two ways of running a Weka classifier are offered:

:func:`run_weka`
    Weka's own command line, ``java -cp weka.jar <classname> <options> -t train.arff
    -T test.arff -p 0 -distribution``: the predicted label of every test row, in file
    order, exactly as Weka's ``Evaluation`` prints them (``classifyInstance`` on a copy
    of the row with its class set missing). With ``report_times=True`` (default) a
    second command line, ``... -t train.arff -T test.arff -o`` (training statistics
    on, so Weka 3.6 prints its timings), gives Weka's *own* reported times:

    * ``build_time_s``: "Time taken to build model" (``System.currentTimeMillis``,
      printed with 2 decimals). For an ``UpdateableClassifier`` such as ``AODE``, Weka
      3.6's command line trains incrementally *while reading the training file*
      (``buildClassifier(header)`` then ``updateClassifier`` row by row), so this
      includes ARFF parsing; for other classifiers (``WAODE``) the file is read first.
    * ``test_time_train_s``: "Time taken to test model on training data". Weka 3.6
      reports no time for the *test* file; this is the time to re-read and classify
      the *training* rows (file parsing included).

    ``wall_time_s`` is the wall-clock time of the ``-p 0`` run (JVM start-up, reading
    both files, training and predicting).

:func:`time_weka`
    In-JVM timings without JVM start-up and file parsing: a small Java class
    (:data:`TIMER_SOURCE`, compiled once with ``javac`` into a cache directory) reads
    both ARFF files, then ``repeats`` times builds a fresh classifier with
    ``buildClassifier(train)`` and classifies every test row with
    ``classifyInstance``, timing each phase with ``System.nanoTime``. It returns all
    times, the best ones, the predictions and the full-precision class distributions
    (``distributionForInstance``) of the last model. The first repeat includes JIT
    warm-up; use the best (minimum) of several.

:func:`weka_read_network`
    A network file (XMLBIF) read by Weka's own ``BIFReader``: its variables, values and
    parents, the class distribution it gives each of some rows
    (``distributionForInstance``), and the parents of a ``BayesNet`` built on training
    data with the file's structure (``search.fixed.FromFile``). A small Java class
    (:data:`NETWORK_SOURCE`) is compiled once, as for :func:`time_weka`.

:func:`write_split_arff`
    Two all-categorical frames (a train/test split, class last) as the ARFF files Weka
    reads (the splits of the speed benchmarks are in :mod:`benchmarks.speed.splits`).

Only the standard library and numpy/pandas are needed (``write_split_arff`` also imports
``bnclf``, lazily).
The Weka jar is ``$WEKA_JAR`` or ``/usr/share/java/weka.jar``; ``java`` is ``$JAVA``
or the first ``java`` on ``PATH``.

Example::

    from benchmarks.weka_runner import run_weka, weka_available
    if weka_available():
        out = run_weka("weka.classifiers.bayes.AODE", "train.arff", "test.arff")
        out["predictions"]  # ['won', 'nowin', ...]
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = [
    "WEKA_JAR",
    "weka_available",
    "weka_version",
    "arff_class_values",
    "run_weka",
    "time_weka",
    "weka_read_network",
    "write_split_arff",
]

WEKA_JAR = os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar")
AODE = "weka.classifiers.bayes.AODE"
WAODE = "weka.classifiers.bayes.WAODE"


def _java() -> str | None:
    return os.environ.get("JAVA") or shutil.which("java")


def weka_version() -> str | None:
    """Version printed by ``weka.core.Version`` (e.g. ``"3.6.14"``), or None."""
    java = _java()
    if java is None or not Path(WEKA_JAR).is_file():
        return None
    try:
        proc = subprocess.run(
            [java, "-cp", WEKA_JAR, "weka.core.Version"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    lines = [s.strip() for s in proc.stdout.splitlines() if s.strip()]
    return lines[0] if lines else None


def weka_available() -> bool:
    """True when ``java`` and the Weka jar are present and Weka starts."""
    return weka_version() is not None


# --------------------------------------------------------------------------- ARFF header


def _split_values(text: str) -> list[str]:
    """Values of an ARFF nominal declaration body ``a, 'b c', "d"`` (quotes removed)."""
    values, buf, quote, i = [], [], None, 0
    escapes = {"n": "\n", "r": "\r", "t": "\t"}
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                nxt = text[i + 1]
                buf.append(escapes.get(nxt, nxt))
                i += 2
                continue
            if ch == quote:
                quote = None
            else:
                buf.append(ch)
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            values.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    values.append("".join(buf).strip())
    return values


def arff_class_values(path, class_index: int = -1) -> list[str]:
    """Declared values of the nominal class attribute (last by default) of an ARFF file."""
    decls = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            s = line.strip()
            low = s.lower()
            if low.startswith("@data"):
                break
            if low.startswith("@attribute"):
                decls.append(s)
    if not decls:
        raise ValueError(f"{path}: no @attribute declarations")
    decl = decls[class_index]
    start, end = decl.find("{"), decl.rfind("}")
    if start < 0 or end < start:
        raise ValueError(f"{path}: class attribute is not nominal: {decl}")
    return _split_values(decl[start + 1 : end])


# --------------------------------------------------------------------------- command line

_TIME_BUILD = re.compile(r"Time taken to build model:\s*([0-9.eE+-]+)\s*seconds")
_TIME_TEST_TRAIN = re.compile(r"Time taken to test model on training data:\s*([0-9.eE+-]+)\s*seconds")
_INST = re.compile(r"\s*(\d+) ")


def _run(cmd, timeout):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(
            f"Weka failed (exit {proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"{proc.stderr.strip()}\n{proc.stdout.strip()[-2000:]}"
        )
    return proc


def _parse_predictions(stdout: str, labels: list[str]):
    """Predicted labels and (3-decimal) distributions from ``-p 0 -distribution`` output.

    Weka 3.6 prints ``padLeft(inst#, 6) + " " + padLeft(actual, 10) + " " +
    padLeft(predicted, 10) + " " + error + " " + distribution``, where actual and
    predicted are ``"<1-based index>:<label cut to fit 10 chars>"`` or ``"?"``; labels
    may contain spaces, so the two fields are taken by position after ``inst#``, and
    the label by index from the ARFF header.
    """
    lines = stdout.splitlines()
    try:
        start = next(i for i, s in enumerate(lines) if "=== Predictions on test data ===" in s)
    except StopIteration:
        raise RuntimeError(f"no predictions in Weka's output:\n{stdout[-2000:]}") from None
    preds, dists = [], []
    for line in lines[start + 1 :]:
        m = _INST.match(line)
        if not m:
            continue
        rest = line[m.end() :]
        field = rest[11:21].strip()
        if field == "?" or ":" not in field:
            preds.append(None)
        else:
            preds.append(labels[int(field.split(":", 1)[0]) - 1])
        tokens = line.split()
        dist = tokens[-1] if tokens else ""
        parts = dist.split(",")
        if len(parts) == len(labels):
            try:
                dists.append([float(p.lstrip("*")) for p in parts])
            except ValueError:
                dists.append([np.nan] * len(labels))
            starred = [k for k, p in enumerate(parts) if p.startswith("*")]
            if starred and preds[-1] is not None and labels[starred[0]] != preds[-1]:
                raise RuntimeError(f"inconsistent prediction line: {line!r}")
        else:
            dists.append([np.nan] * len(labels))
    return preds, np.asarray(dists, dtype=float).reshape(len(preds), len(labels))


def run_weka(
    classname, train_arff, test_arff, options=(), *, report_times: bool = True, timeout: float | None = 3600
) -> dict:
    """Train Weka ``classname`` on ``train_arff`` and predict every row of ``test_arff``.

    Both files must have the same header, the class being the last attribute
    (nominal). ``options`` are the classifier's own options (e.g. ``("-F", "1")``).

    Returns a dict with

    ``predictions``
        list of predicted class labels (str; None where Weka predicts "?"), in the
        order of the test file's rows.
    ``distributions``
        ndarray (n_test, n_classes) of Weka's printed class probabilities (3 decimals).
    ``classes``
        the class attribute's declared values.
    ``wall_time_s``
        wall-clock seconds of the ``-p 0`` run (JVM start-up and file reading included).
    ``build_time_s``, ``test_time_train_s``
        Weka's own reported "Time taken to build model" and "Time taken to test
        model on training data" (seconds, 10 ms resolution) from a second run
        with ``-o``; None if ``report_times`` is False or Weka printed none. See the
        module docstring for what they include.
    ``command``
        the ``-p 0`` command line.
    """
    java = _java()
    if java is None or not Path(WEKA_JAR).is_file():
        raise RuntimeError(f"Weka is not available (java={java!r}, jar={WEKA_JAR!r})")
    train_arff, test_arff = os.fspath(train_arff), os.fspath(test_arff)
    labels = arff_class_values(test_arff)
    base = [java, "-cp", WEKA_JAR, classname, *map(str, options), "-t", train_arff, "-T", test_arff]
    cmd = base + ["-p", "0", "-distribution"]
    t0 = time.perf_counter()
    proc = _run(cmd, timeout)
    wall = time.perf_counter() - t0
    preds, dists = _parse_predictions(proc.stdout, labels)
    out = {
        "classname": classname,
        "options": list(map(str, options)),
        "classes": labels,
        "predictions": preds,
        "distributions": dists,
        "wall_time_s": wall,
        "build_time_s": None,
        "test_time_train_s": None,
        "command": cmd,
    }
    if report_times:
        text = _run(base + ["-o"], timeout).stdout
        m = _TIME_BUILD.search(text)
        out["build_time_s"] = float(m.group(1)) if m else None
        m = _TIME_TEST_TRAIN.search(text)
        out["test_time_train_s"] = float(m.group(1)) if m else None
    return out


# --------------------------------------------------------------------------- in-JVM timer

TIMER_CLASS = "BnclfWekaTimer"
TIMER_SOURCE = r"""
import weka.classifiers.Classifier;
import weka.core.Instances;
import weka.core.converters.ConverterUtils.DataSource;

/** args: classname train.arff test.arff repeats [classifier options...] */
public class BnclfWekaTimer {
  public static void main(String[] args) throws Exception {
    String classname = args[0];
    Instances train = DataSource.read(args[1]);
    Instances test = DataSource.read(args[2]);
    int repeats = Integer.parseInt(args[3]);
    String[] options = new String[args.length - 4];
    System.arraycopy(args, 4, options, 0, options.length);
    train.setClassIndex(train.numAttributes() - 1);
    test.setClassIndex(test.numAttributes() - 1);
    if (!train.equalHeaders(test)) throw new Exception("train and test headers differ");
    int n = test.numInstances();
    double[] pred = new double[n];
    Classifier model = null;
    for (int r = 0; r < repeats; r++) {
      model = Classifier.forName(classname, (String[]) options.clone());
      long t0 = System.nanoTime();
      model.buildClassifier(train);
      long t1 = System.nanoTime();
      for (int i = 0; i < n; i++) pred[i] = model.classifyInstance(test.instance(i));
      long t2 = System.nanoTime();
      System.out.println("TIME " + r + " " + (t1 - t0) + " " + (t2 - t1));
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      double[] d = model.distributionForInstance(test.instance(i));
      sb.setLength(0);
      sb.append("PRED ").append(i).append(' ');
      sb.append(Double.isNaN(pred[i]) ? "?" : Integer.toString((int) pred[i]));
      for (int k = 0; k < d.length; k++) sb.append(' ').append(Double.toString(d[k]));
      System.out.println(sb);
    }
  }
}
"""


def _compiled_classpath(class_name: str, source: str, what: str) -> str:
    """Compile ``source`` (the Java class ``class_name``) once per source and jar; its classpath."""
    javac = os.environ.get("JAVAC") or shutil.which("javac")
    if javac is None:
        raise RuntimeError(f"{what} needs javac (a JDK), which was not found")
    key = hashlib.sha256((source + WEKA_JAR).encode()).hexdigest()[:16]
    out_dir = Path(tempfile.gettempdir()) / f"bnclf-weka-{class_name}-{key}"
    if not (out_dir / f"{class_name}.class").is_file():
        out_dir.mkdir(parents=True, exist_ok=True)
        src = out_dir / f"{class_name}.java"
        src.write_text(source)
        _run([javac, "-nowarn", "-cp", WEKA_JAR, "-d", str(out_dir), str(src)], 600)
    return f"{out_dir}{os.pathsep}{WEKA_JAR}"


def _timer_classpath() -> str:
    """Compile :data:`TIMER_SOURCE` once (per source and jar) and return its classpath."""
    return _compiled_classpath(TIMER_CLASS, TIMER_SOURCE, "time_weka")


def time_weka(
    classname,
    train_arff,
    test_arff,
    options=(),
    *,
    repeats: int = 5,
    java_options=("-Xmx4g",),
    timeout: float | None = 3600,
) -> dict:
    """Time Weka's ``buildClassifier`` and ``classifyInstance`` inside one JVM.

    Returns a dict with ``build_s`` and ``test_s`` (lists, one entry per repeat,
    ``System.nanoTime``), ``best_build_s``/``best_test_s`` (minima), ``n_test``,
    ``predictions`` (labels from ``classifyInstance`` of the last model; None for
    a missing prediction), ``distributions`` (full-precision
    ``distributionForInstance``, ndarray n_test x n_classes), ``classes`` and
    ``wall_time_s`` (the whole java run).
    """
    java = _java()
    if java is None or not Path(WEKA_JAR).is_file():
        raise RuntimeError(f"Weka is not available (java={java!r}, jar={WEKA_JAR!r})")
    labels = arff_class_values(test_arff)
    cmd = [
        java,
        *java_options,
        "-cp",
        _timer_classpath(),
        TIMER_CLASS,
        classname,
        os.fspath(train_arff),
        os.fspath(test_arff),
        str(int(repeats)),
        *map(str, options),
    ]
    t0 = time.perf_counter()
    proc = _run(cmd, timeout)
    wall = time.perf_counter() - t0
    build, test, preds, dists = [], [], [], []
    for line in proc.stdout.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "TIME":
            build.append(int(parts[2]) * 1e-9)
            test.append(int(parts[3]) * 1e-9)
        elif parts[0] == "PRED":
            preds.append(None if parts[2] == "?" else labels[int(parts[2])])
            dists.append([float(v) for v in parts[3:]])
    return {
        "classname": classname,
        "options": list(map(str, options)),
        "classes": labels,
        "repeats": int(repeats),
        "build_s": build,
        "test_s": test,
        "best_build_s": min(build),
        "best_test_s": min(test),
        "n_test": len(preds),
        "predictions": preds,
        "distributions": np.asarray(dists, dtype=float),
        "wall_time_s": wall,
        "command": cmd,
    }


# --------------------------------------------------------------------------- network files

NETWORK_CLASS = "BnclfWekaNetwork"
NETWORK_SOURCE = r"""
import java.io.*;
import weka.classifiers.bayes.BayesNet;
import weka.classifiers.bayes.net.BIFReader;
import weka.classifiers.bayes.net.search.fixed.FromFile;
import weka.core.Instance;
import weka.core.Instances;
import weka.core.converters.ConverterUtils.DataSource;

/** args: network.xml rows.tsv [train.arff]. Prints, tab-separated: the class, the values and
 *  parents of every variable as BIFReader reads the file, the class distribution of every row of
 *  rows.tsv (a header of variable names, then the state names of one row a line), and, with
 *  train.arff, the parents of every attribute of a BayesNet built on it with the file's structure
 *  (search.fixed.FromFile). */
public class BnclfWekaNetwork {
  static String parents(BayesNet net, int i) {
    StringBuilder sb = new StringBuilder(net.getNodeName(i));
    for (int p = 0; p < net.getParentSet(i).getNrOfParents(); p++)
      sb.append('\t').append(net.getNodeName(net.getParentSet(i).getParent(p)));
    return sb.toString();
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    BIFReader net = new BIFReader().processFile(args[0]);
    Instances header = net.m_Instances;
    out.println("CLASS\t" + header.classAttribute().name());
    for (int i = 0; i < header.numAttributes(); i++) {
      StringBuilder sb = new StringBuilder("VALUES\t" + header.attribute(i).name());
      for (int v = 0; v < header.attribute(i).numValues(); v++) sb.append('\t').append(header.attribute(i).value(v));
      out.println(sb);
      out.println("PARENTS\t" + parents(net, i));
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(args[1]), "UTF-8"));
    String[] names = in.readLine().split("\t", -1);
    String line;
    while ((line = in.readLine()) != null) {
      String[] cells = line.split("\t", -1);
      Instance row = new Instance(header.numAttributes());
      row.setDataset(header);
      for (int j = 0; j < names.length; j++) row.setValue(header.attribute(names[j]), cells[j]);
      StringBuilder sb = new StringBuilder("POSTERIOR");
      for (double p : net.distributionForInstance(row)) sb.append('\t').append(Double.toString(p));
      out.println(sb);
    }
    if (args.length > 2) {
      Instances data = DataSource.read(args[2]);
      data.setClassIndex(data.numAttributes() - 1);
      FromFile search = new FromFile();
      search.setBIFFile(args[0]);
      BayesNet fixed = new BayesNet();
      fixed.setSearchAlgorithm(search);
      fixed.buildClassifier(data);
      for (int i = 0; i < data.numAttributes(); i++) out.println("FIXED\t" + parents(fixed, i));
    }
  }
}
"""


def weka_read_network(network_file, rows=(), train_arff=None, *, timeout: float | None = 600) -> dict:
    """Read an XMLBIF file with Weka's ``BIFReader`` and ask it for class distributions.

    Parameters
    ----------
    network_file : path
        An XMLBIF 0.3 file; Weka takes its last variable as the class.
    rows : sequence of dict
        ``{variable name: state name}`` for every variable but the class (Weka's
        ``BayesNet`` fills a missing value in with the mean or mode of its training data
        rather than summing it out, so give every variable).
    train_arff : path, optional
        Training data whose attribute names are the file's variables, class last: a
        ``BayesNet`` with the file's structure (``search.fixed.FromFile``) is built on it.

    Returns
    -------
    dict
        ``class`` (its name), ``values`` and ``parents`` (name -> list, as ``BIFReader``
        read the file), ``distributions`` (``distributionForInstance`` of every row,
        full precision, ndarray n_rows x n_classes) and ``fixed_parents`` (name -> list, the
        parents of the ``BayesNet`` built with ``FromFile``; None without ``train_arff``).
    """
    java = _java()
    if java is None or not Path(WEKA_JAR).is_file():
        raise RuntimeError(f"Weka is not available (java={java!r}, jar={WEKA_JAR!r})")
    rows = list(rows)
    with tempfile.TemporaryDirectory(prefix="bnclf-weka-rows-") as folder:
        table = Path(folder) / "rows.tsv"
        names = list(dict.fromkeys(name for row in rows for name in row))
        lines = ["\t".join(names)] + ["\t".join(row[name] for name in names) for row in rows]
        table.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cmd = [java, "-cp", _compiled_classpath(NETWORK_CLASS, NETWORK_SOURCE, "weka_read_network")]
        cmd += [NETWORK_CLASS, os.fspath(network_file), str(table)]
        cmd += [os.fspath(train_arff)] if train_arff is not None else []
        proc = subprocess.run(cmd, capture_output=True, encoding="utf-8", timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"Weka failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()[-2000:]}")
    out = {"class": None, "values": {}, "parents": {}, "distributions": [], "fixed_parents": None}
    for line in proc.stdout.splitlines():
        kind, *fields = line.split("\t")
        if kind == "CLASS":
            out["class"] = fields[0]
        elif kind == "VALUES":
            out["values"][fields[0]] = fields[1:]
        elif kind == "PARENTS":
            out["parents"][fields[0]] = fields[1:]
        elif kind == "POSTERIOR":
            out["distributions"].append([float(p) for p in fields])
        elif kind == "FIXED":
            out["fixed_parents"] = out["fixed_parents"] or {}
            out["fixed_parents"][fields[0]] = fields[1:]
    out["distributions"] = np.asarray(out["distributions"], dtype=float).reshape(len(rows), -1)
    return out


# --------------------------------------------------------------------------- ARFF files for Weka


def write_split_arff(train, test, directory, name: str):
    """Write two all-categorical DataFrames (class last) as ``name-train.arff`` and
    ``name-test.arff`` with ``bnclf.io.write_arff``; returns the two paths."""
    from bnclf.io._arff import write_arff

    for frame in (train, test):
        bad = [c for c in frame.columns if frame[c].dtype.name != "category"]
        if bad:
            raise ValueError(f"{name}: columns {bad} are not categorical")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = directory / f"{name}-train.arff", directory / f"{name}-test.arff"
    write_arff(train, paths[0], relation=name)
    write_arff(test, paths[1], relation=name)
    return paths


WARM_TIME_SOURCE = Path(__file__).parent / "weka_warm" / "WarmTime.java"
"""The one way every "x Weka's warm JVM" figure is timed: build on the training ARFF, then
``distributionForInstance`` over every test row, five warm-up rounds, then the median of
``reps`` repetitions (a copy of the shared weka-warm tool, kept with the benchmarks)."""


def time_weka_warm(classname: str, train_arff, test_arff, reps: int = 11, *, timeout: float | None = 3600) -> float:
    """Median seconds of Weka's build + ``distributionForInstance`` over the test rows, in one
    warm JVM (:data:`WARM_TIME_SOURCE`)."""
    java = _java()
    if java is None or not Path(WEKA_JAR).is_file():
        raise RuntimeError("time_weka_warm needs java and Weka's jar")
    classpath = _compiled_classpath("WarmTime", WARM_TIME_SOURCE.read_text(), "time_weka_warm")
    out = _run(
        [java, "-Xmx4g", "-cp", classpath, "WarmTime", classname, str(train_arff), str(test_arff), str(reps)], timeout
    )
    return float(out.stdout.strip().splitlines()[-1])
