"""Reading and writing ARFF files (Weka's Attribute-Relation File Format).

:func:`read_arff` turns a dense or sparse ARFF file (optionally gzip-compressed)
into a :class:`pandas.DataFrame` with these column types:

================================  ==============================================
ARFF attribute type               pandas dtype
================================  ==============================================
``{v1, v2, ...}`` (nominal)       ``category``, categories in declared order
``numeric``/``real``/``integer``  ``float64``
``string``                        ``object`` (Python ``str``)
``date [format]``                 ``object`` (the date text, unparsed)
================================  ==============================================

``?`` is a missing value (``NaN``). Parsing is done by liac-arff
(``import arff``), which also handles CRLF line endings, ``%`` comments,
quoted names and values, and unquoted whitespace around nominal values (Weka
trims ``{a, b}`` to the values ``a`` and ``b``; so does this reader).

Sparse rows ``{index value, ...}`` use 0-based attribute indices. As in Weka,
an entry left out of a sparse row is the value 0 for a numeric attribute and
the *first declared value* for a nominal attribute (Weka stores nominal values
as indices, and index 0 is the first value). An explicit ``?`` in a sparse row
is missing.

:func:`load_arff_xy` splits a file into features and one target column;
:func:`load_mulan` splits a multilabel (MULAN or MEKA) file into features and a
0/1 indicator matrix of label columns, chosen by name, by count, by a MULAN XML
label file or by the MEKA ``-C`` tag of the relation name.
"""

from __future__ import annotations

import difflib
import gzip
import math
import os
import re
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import arff as _liac
import numpy as np
import pandas as pd

__all__ = ["read_arff", "write_arff", "load_arff_xy", "load_mulan"]


_GZIP_MAGIC = b"\x1f\x8b"


_NUMERIC_TYPES = ("NUMERIC", "REAL", "INTEGER")


# "@attribute <name> date [format]": liac-arff does not know the date type, so
# such declarations are read as string attributes (see _rewrite_dates).
_DATE_DECL = re.compile(
    r"^(\s*@attribute\s+(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)\s+)date\b.*$",
    re.IGNORECASE,
)


def _decode(raw: bytes) -> str:
    if raw[:2] == _GZIP_MAGIC:
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:  # old Weka files are often Latin-1
        text = raw.decode("latin-1")
    return text.lstrip("\ufeff")


def _read_text(path_or_file) -> str:
    """Whole file as text; gzip is detected from the content, not the name."""
    if hasattr(path_or_file, "read"):
        content = path_or_file.read()
        if isinstance(content, bytes):
            return _decode(content)
        return content.lstrip("\ufeff")
    from bnclf.io._files import check_readable_file

    with open(check_readable_file(path_or_file), "rb") as handle:
        return _decode(handle.read())


def _rewrite_dates(text: str) -> str:
    """Declare date attributes as string attributes (liac-arff has no date type)."""
    if not re.search(r"@attribute[^\n]*\sdate\b", text, re.IGNORECASE):
        return text
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip()[:5].lower() == "@data":
            break
        match = _DATE_DECL.match(line)
        if match:
            lines[i] = match.group(1) + "string"
    return "\n".join(lines)


_RANGE_DECL = re.compile(r"^(\s*@attribute\s+.+?\s+(?:integer|real|numeric))\s*[\[(][^\])]*[\])]\s*$", re.IGNORECASE)


def _drop_numeric_ranges(text: str) -> str:
    """Weka's ``integer [a,b]`` / ``real [a,b]`` range notation, which liac-arff rejects:
    the range is a comment on the values, so the declaration keeps only its type."""
    if not re.search(r"@attribute[^\n]*(?:integer|real|numeric)\s*[\[(]", text, re.IGNORECASE):
        return text
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip()[:5].lower() == "@data":
            break
        lines[i] = _RANGE_DECL.sub(r"\1", line)
    return "\n".join(lines)


def _unique_in_order(values) -> list:
    seen = set()
    out = []
    for v in values:
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def _column(values, arff_type) -> pd.Series | np.ndarray:
    if isinstance(arff_type, (list, tuple)):
        # object categories: pandas 3 would hold text categories in Arrow, slower to read back
        return pd.Categorical(values, categories=pd.Index(_unique_in_order(arff_type), dtype=object))
    if arff_type in _NUMERIC_TYPES:
        return np.array(values, dtype=float)  # None -> nan
    out = np.empty(len(values), dtype=object)
    out[:] = [np.nan if v is None else v for v in values]
    return out


def read_arff(path_or_file: str | os.PathLike | IO[Any]) -> pd.DataFrame:
    """Read a dense or sparse ARFF file into a DataFrame.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file-like
        Path of an ``.arff`` or ``.arff.gz`` file, or an open file (text or
        binary). Gzip compression is recognised from the content, so any
        file name works.

    Returns
    -------
    pandas.DataFrame
        One column per attribute, in declared order. Nominal attributes are
        ``category`` columns whose categories are the declared values in
        declared order; numeric, real and integer attributes are ``float64``;
        string (and date) attributes are ``object`` columns of ``str``. A ``?``
        is ``NaN``. The relation name is stored in ``df.attrs["relation"]``.

    Raises
    ------
    ValueError
        If the file is not valid ARFF (the message gives liac-arff's reason
        and line number).

    Notes
    -----
    In a sparse row, an attribute that is not listed takes the value 0 if it
    is numeric and the first declared value if it is nominal, as in Weka.
    Unquoted whitespace around nominal values is removed, as Weka does;
    whitespace inside quotes is kept. Weka's range notation (``integer [1,10]``,
    ``real [0.0, 1.5]``) is read; the range itself is not checked.

    Examples
    --------
    >>> import io
    >>> text = "@relation r\\n@attribute x numeric\\n@attribute c {a, b}\\n@data\\n1, b\\n?, a\\n"
    >>> df = read_arff(io.StringIO(text))
    >>> df["x"].tolist(), list(df["c"].cat.categories)
    ([1.0, nan], ['a', 'b'])
    """
    text = _drop_numeric_ranges(_rewrite_dates(_read_text(path_or_file)))
    name = getattr(path_or_file, "name", path_or_file)
    relational = re.search(r"^\s*@attribute\s+(\S+)\s+relational\b", text, re.IGNORECASE | re.MULTILINE)
    if relational:
        line = text[: relational.start()].count("\n") + 1
        raise ValueError(
            f"Cannot read ARFF file {name!s}: line {line}: attribute {relational.group(1)!r} is relational "
            "(multi-instance bags), which a Bayesian network classifier cannot take; flatten each bag into "
            "columns of its own (e.g. with Weka's MultiInstanceToPropositional filter) first."
        )
    try:
        decoded = _liac.loads(text)
    except _liac.ArffException as exc:
        raise ValueError(f"Cannot parse ARFF file {name!s}: {exc}") from exc
    attributes = decoded["attributes"]
    rows = decoded["data"]
    names = [a[0] for a in attributes]
    if rows:
        columns = list(zip(*rows))
    else:
        columns = [()] * len(attributes)
    df = pd.DataFrame(
        {n: _column(list(col), t) for n, (col, (_, t)) in zip(names, zip(columns, attributes))},
        columns=names,
    )
    df.attrs["relation"] = decoded.get("relation", "")
    return df


def load_arff_xy(
    path_or_file: str | os.PathLike | IO[Any], target: str | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Read an ARFF file and split it into features and target.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file-like
        Anything :func:`read_arff` accepts.
    target : str, optional
        Name of the target attribute. Defaults to the last attribute (Weka's
        ``-c last`` convention).

    Returns
    -------
    X : pandas.DataFrame
        Every other attribute, in file order.
    y : pandas.Series
        The target column (named after the attribute).

    Raises
    ------
    ValueError
        If ``target`` is not an attribute of the file.
    """
    df = read_arff(path_or_file)
    if df.shape[1] == 0:
        raise ValueError("The ARFF file declares no attributes.")
    if target is None:
        target = df.columns[-1]
    elif target not in df.columns:
        raise ValueError(
            f"target column {target!r} is not an attribute of this ARFF file; its attributes are {list(df.columns)}"
        )
    y = df[target]
    X = df.drop(columns=[target])
    X.attrs = dict(df.attrs)
    return X, y


_TRAIN_TEST_SUFFIX = re.compile(r"^(.+?)[-_](?:train|test)$", re.IGNORECASE)


def _source_name(path_or_file) -> str:
    if hasattr(path_or_file, "read"):
        name = getattr(path_or_file, "name", None)
        return str(name) if isinstance(name, (str, os.PathLike)) else "the ARFF input"
    return str(os.fspath(path_or_file))


def sibling_label_file(path_or_file: str | os.PathLike | IO[Any]) -> Path | None:
    """The MULAN label file of an ARFF file, found by its name.

    Returns ``<stem>.xml`` in the ARFF file's folder (the stem is the file name without
    ``.arff``/``.arff.gz``) if it is a file, else the same without a ``-train``/``-test``
    suffix of the stem; None when neither exists or a file object has no path
    (``name``). The XML file is not read.
    """
    name = getattr(path_or_file, "name", None) if hasattr(path_or_file, "read") else path_or_file
    if not isinstance(name, (str, os.PathLike)):
        return None
    path = Path(name)
    lower = path.name.lower()
    if lower.endswith(".arff.gz"):
        stem = path.name[: -len(".arff.gz")]
    elif lower.endswith(".arff"):
        stem = path.name[: -len(".arff")]
    else:
        stem = path.stem
    stems = [stem]
    match = _TRAIN_TEST_SUFFIX.match(stem)
    if match:
        stems.append(match.group(1))
    for candidate in stems:
        xml_path = path.with_name(candidate + ".xml")
        if xml_path.is_file():
            return xml_path
    return None


def _read_label_xml(xml) -> list[str]:
    """The ``name`` of every ``label`` element of a MULAN label file, in document order
    (nested labels of a hierarchy included), with or without the MULAN namespace."""
    source = xml if hasattr(xml, "read") else os.fspath(xml)
    try:
        root = ET.parse(source).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"Cannot parse the MULAN label file {_source_name(xml)}: {exc}") from exc
    if root.tag.rsplit("}", 1)[-1] != "labels":
        raise ValueError(
            f"{_source_name(xml)} is not a MULAN label file: its root element is <{root.tag}>, "
            '<labels xmlns="http://mulan.sourceforge.net/labels"> was expected.'
        )
    names = []
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] != "label":
            continue
        name = element.get("name")
        if name is None:
            raise ValueError(f"{_source_name(xml)}: a <label> element has no name attribute.")
        names.append(name)
    if not names:
        raise ValueError(f"{_source_name(xml)} names no labels (no <label name=...> element).")
    return names


def meka_label_count(relation: str) -> int | None:
    """The count of MEKA's ``-C`` (or ``-c``) option in a relation name ``'name: options'``.

    Returns the whole number after the option (positive: the first ``k`` attributes
    are the labels; negative: the last ``k``), or None when the name has no ``:`` or
    its options no ``-C``/``-c``. Raises ValueError when the option is not followed by a
    whole number.
    """
    if ":" not in relation:
        return None
    options = relation.split(":", 1)[1].split()
    for flag in ("-C", "-c"):
        if flag in options:
            position = options.index(flag)
            value = options[position + 1] if position + 1 < len(options) else ""
            try:
                return int(value)
            except ValueError:
                raise ValueError(
                    f"the relation name {relation!r} has the MEKA option {flag} without a whole "
                    f"number after it ({value!r}); pass labels=, n_labels= or xml= to name the labels."
                ) from None
    return None


def _positions_from_count(count, n_columns: int, what: str) -> list[int]:
    """Positions of the last ``count`` attributes (the first ``-count`` if negative)."""
    if isinstance(count, (bool, np.bool_)):
        raise TypeError(f"{what} must be a whole number, got {count!r}")
    try:
        k = int(count.__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"{what} must be a whole number, got {count!r}") from None
    if k == 0 or abs(k) > n_columns:
        raise ValueError(
            f"{what} gives {abs(k)} label attributes but the file has {n_columns} attributes; "
            f"the count must be between 1 and {n_columns} in absolute value."
        )
    return list(range(n_columns - k, n_columns)) if k > 0 else list(range(-k))


def _positions_from_names(names, columns: list, what: str, source: str) -> list[int]:
    """Positions (file order) of named attributes; unknown or repeated names are errors."""
    names = [names] if isinstance(names, str) else list(names)
    if not names:
        raise ValueError(f"{what} names no labels; a multilabel target needs at least one label column.")
    repeated = sorted({str(n) for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{what} names these labels more than once: {repeated}")
    index = {c: i for i, c in enumerate(columns)}
    missing = [n for n in names if n not in index]
    if missing:
        text_columns = [str(c) for c in columns]
        similar = []
        for name in missing[:5]:
            same_case = [c for c in text_columns if c.lower() == str(name).lower()]
            for hit in same_case + difflib.get_close_matches(str(name), text_columns, n=3):
                if hit not in similar:
                    similar.append(hit)
        hint = f"similar attributes: {similar}" if similar else f"its last attributes are {text_columns[-5:]}"
        shown = missing[:10] + (["..."] if len(missing) > 10 else [])
        raise ValueError(
            f"{what} names {len(missing)} label(s) that are not attributes of {source}: {shown}; "
            f"{hint} (names are case-sensitive)."
        )
    return sorted(index[n] for n in names)


def _label_codes(column: pd.Series, name) -> np.ndarray:
    """A 0/1 label column as int8; missing or other values are errors naming the column."""
    n_missing = int(column.isna().sum())
    if n_missing:
        raise ValueError(
            f"label column {name!r} has {n_missing} missing value(s) ('?'); multilabel targets must be "
            "complete: drop or fill those rows, or check that this attribute really is a label."
        )
    fix = (
        "labels must be nominal {0,1} (or numeric with only the values 0 and 1): check which "
        "attributes are the labels (labels=, n_labels=, xml=), or recode this column to 0/1 "
        "(read the file with read_arff and binarize it)."
    )
    if isinstance(column.dtype, pd.CategoricalDtype):
        declared = [str(c).strip() for c in column.cat.categories]
        if not set(declared) <= {"0", "1"}:
            raise ValueError(f"label column {name!r} is nominal with values {{{', '.join(declared)}}}; " + fix)
        return (column.astype(str).str.strip() == "1").to_numpy(dtype=np.int8)
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy(dtype=float)
        bad = np.unique(values[(values != 0) & (values != 1)])
        if bad.size:
            shown = ", ".join(_format_number(v) for v in bad[:5]) + (", ..." if bad.size > 5 else "")
            raise ValueError(f"label column {name!r} is numeric with values other than 0 and 1 ({shown}); " + fix)
        return values.astype(np.int8)
    raise ValueError(f"label column {name!r} is a {column.dtype} (string or date) attribute; " + fix)


def _default_label_positions(path_or_file, relation: str, columns: list, source: str) -> list[int]:
    """Labels from a sibling MULAN label file, else from the MEKA ``-C`` tag of the relation."""
    sibling = sibling_label_file(path_or_file)
    if sibling is None:
        tag = meka_label_count(relation)
        if tag is None:
            raise ValueError(
                f"Cannot tell which attributes of {source} are the labels: pass labels=[...] (their "
                "names), n_labels=k (the last k attributes; -k for the first k) or xml= (a MULAN label "
                "file). A MULAN label file <stem>.xml next to the ARFF file, or a MEKA tag '-C k' in "
                "the relation name, is used when present."
            )
        return _positions_from_count(-tag, len(columns), f"the MEKA tag '-C {tag}' of the relation {relation!r}")
    positions = _positions_from_names(_read_label_xml(sibling), columns, f"the label file {sibling}", source)
    try:
        tag = meka_label_count(relation)
        tagged = None if tag is None else _positions_from_count(-tag, len(columns), "")
    except (TypeError, ValueError):
        tag, tagged = None, None
    if tagged is not None and tagged != positions:
        side = "first" if tag > 0 else "last"
        k = len(positions)
        if positions == list(range(len(columns) - k, len(columns))):
            named = f"the last {k}"
        elif positions == list(range(k)):
            named = f"the first {k}"
        else:
            named = f"{k} other attributes"
        warnings.warn(
            f"{source}: the MEKA tag '-C {tag}' of the relation name makes the {side} {abs(tag)} "
            f"attributes the labels, but {sibling.name} names {named}; using {sibling.name} "
            "(pass labels=, n_labels= or xml= to choose).",
            UserWarning,
            stacklevel=3,
        )
    return positions


def load_mulan(
    path_or_file: str | os.PathLike | IO[Any],
    labels: str | Sequence[str] | None = None,
    *,
    n_labels: int | None = None,
    xml: str | os.PathLike | IO[Any] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read a multilabel (MULAN or MEKA) ARFF file as features and a 0/1 label matrix.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file-like
        Anything :func:`read_arff` accepts: a dense or sparse ARFF file,
        optionally gzip-compressed.
    labels : str or list of str, optional
        Names of the label attributes.
    n_labels : int, optional
        Number of label attributes counted from the end (MULAN layout: the
        last ``n_labels`` attributes are the labels). A negative count
        ``-k`` makes the *first* ``k`` attributes the labels.
    xml : str, os.PathLike or file-like, optional
        A MULAN label file, ``<labels
        xmlns="http://mulan.sourceforge.net/labels"><label name="..."/>...</labels>``.
        The ``name`` of every ``label`` element is a label, nested labels of a
        hierarchy included.

    Returns
    -------
    X : pandas.DataFrame
        The other attributes in file order, typed as :func:`read_arff` gives
        them (``category`` for nominal, ``float64`` for numeric).
        ``X.attrs["relation"]`` is the relation name.
    Y : pandas.DataFrame
        One ``int8`` column of 0/1 per label, named after the label, in file
        order (whatever the order of ``labels`` or of the XML file), with the
        index of ``X``: ``Y.to_numpy()`` is the binary indicator matrix of
        scikit-learn's multilabel convention.

    Raises
    ------
    ValueError
        If more than one of ``labels``, ``n_labels`` and ``xml`` is given;
        if none is given and neither a label file nor a MEKA tag is found (see
        Notes); if a named label is not an attribute of the file (the message
        lists the missing names and similar attribute names); if a count is 0
        or larger than the number of attributes; if a label column is not
        nominal ``{0,1}`` or numeric 0/1, or has a missing value ``?``; or if
        the file is not valid ARFF or the XML file not a MULAN label file.
    TypeError
        If ``n_labels`` is not a whole number.

    Notes
    -----
    The labels are chosen by exactly one of ``labels``, ``n_labels`` and
    ``xml``. When none is given they come, in this order of preference, from

    1. a MULAN label file next to the ARFF path: ``<stem>.xml``, where the
       stem is the file name without ``.arff`` or ``.arff.gz``, or else the
       same stem without a ``-train`` or ``-test`` suffix
       (``emotions-train.arff`` uses ``emotions.xml``);
    2. the MEKA tag in the relation name. MEKA writes the relation as
       ``'name: options'`` (``@relation 'slashdot: -C 22'``); the option
       ``-C k`` means that the **first** ``k`` attributes are the labels and
       ``-C -k`` that the **last** ``k`` are. The signs are the opposite of
       ``n_labels``, whose positive counts follow MULAN's labels-last layout.

    If both are present and disagree, the label file wins and a
    :class:`UserWarning` says so (some MULAN files carry a stale MEKA tag
    left by the Weka filters that made them).

    Multilabel targets must be complete: a ``?`` in a label column is an
    error, while missing feature values stay ``NaN`` in ``X``. In a sparse
    ARFF row an omitted label is 0, as for any ``{0,1}`` or numeric attribute.

    Examples
    --------
    >>> import io
    >>> text = "\\n".join([
    ...     "@relation 'songs: -C 2'",
    ...     "@attribute rock {0,1}", "@attribute jazz {0,1}", "@attribute tempo numeric",
    ...     "@data", "1,0,120", "1,1,96", "0,0,60", ""])
    >>> X, Y = load_mulan(io.StringIO(text))  # MEKA tag: the first two attributes
    >>> list(X.columns), list(Y.columns)
    (['tempo'], ['rock', 'jazz'])
    >>> Y.to_numpy().tolist()
    [[1, 0], [1, 1], [0, 0]]
    >>> X, Y = load_mulan(io.StringIO(text), ["jazz"])  # by name; rock becomes a feature
    >>> list(X.columns), Y["jazz"].tolist()
    (['rock', 'tempo'], [0, 1, 0])
    """
    _check_one_label_source(labels=labels, n_labels=n_labels, xml=xml)
    df = read_arff(path_or_file)
    positions = _label_positions(path_or_file, df, labels, n_labels, xml)
    return _split_labels(df, positions)


def _check_one_label_source(**sources: Any) -> None:
    """Raise ValueError when more than one of ``load_mulan``'s ways to choose labels is given."""
    given = [name for name, value in sources.items() if value is not None]
    if len(given) > 1:
        raise ValueError(
            f"load_mulan chooses the labels one way, but got {' and '.join(given)}; pass only one of "
            "labels= (names), n_labels= (a count) and xml= (a MULAN label file)."
        )


def _label_positions(path_or_file, df: pd.DataFrame, labels, n_labels, xml) -> list[int]:
    """Positions (file order) of the label attributes of ``df``, read from ``path_or_file``,
    chosen as :func:`load_mulan` documents."""
    source = _source_name(path_or_file)
    columns = list(df.columns)
    if labels is not None:
        return _positions_from_names(labels, columns, "labels", source)
    if n_labels is not None:
        return _positions_from_count(n_labels, len(columns), f"n_labels={n_labels!r}")
    if xml is not None:
        return _positions_from_names(_read_label_xml(xml), columns, f"the label file {_source_name(xml)}", source)
    return _default_label_positions(path_or_file, df.attrs.get("relation", ""), columns, source)


def _split_labels(df: pd.DataFrame, positions: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(X, Y)``: the other columns of ``df``, and its label columns at ``positions`` as 0/1
    ``int8``; both keep ``df``'s index and ``attrs``."""
    columns = list(df.columns)
    label_names = [columns[i] for i in positions]
    Y = pd.DataFrame(
        {name: _label_codes(df.iloc[:, i], name) for i, name in zip(positions, label_names)},
        index=df.index,
        columns=label_names,
    )
    chosen = set(positions)
    X = df.iloc[:, [i for i in range(len(columns)) if i not in chosen]].copy()
    X.attrs = dict(df.attrs)
    Y.attrs = dict(df.attrs)
    return X, Y


_NEEDS_QUOTES = re.compile(r"[\s,'\"{}%\\]")


def _quote(value) -> str:
    """An ARFF token for a name or nominal/string value, quoted when needed."""
    s = str(value)
    if s == "" or s == "?" or _NEEDS_QUOTES.search(s):
        s = s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
        return f"'{s}'"
    return s


def _format_number(v) -> str:
    v = float(v)
    if v != v:
        return "?"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def write_arff(df: pd.DataFrame, path: str | os.PathLike | IO[str], relation: str = "data") -> None:
    """Write a DataFrame as a dense ARFF file.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns of ``category``, ``object``, ``string`` or ``bool`` dtype
        become nominal attributes; numeric columns become ``numeric``.
        Missing values (``NaN``/``None``/``pd.NA``) are written as ``?``.
    path : str, os.PathLike or text file-like
        Destination. A name ending in ``.gz`` is gzip-compressed.
    relation : str, default="data"
        The ``@relation`` name.

    Notes
    -----
    The declared values of a nominal attribute are the categories of a
    ``category`` column (in their order, unused ones included), ``False,
    True`` for a ``bool`` column, and the sorted distinct values (as text)
    for any other column. Reading the file back with :func:`read_arff` gives
    the same values; integer columns come back as ``float64`` and nominal
    values as strings.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"write_arff expects a pandas DataFrame, got {type(df).__name__}")
    lines = [f"@relation {_quote(relation)}", ""]
    encoders = []
    for name in df.columns:
        col = df[name]
        dtype = col.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            values = [str(c) for c in dtype.categories]
        elif pd.api.types.is_bool_dtype(dtype):
            values = ["False", "True"]
        elif pd.api.types.is_numeric_dtype(dtype):
            values = None
        else:
            present = col[col.notna()].map(str).unique()
            values = sorted(present)
        if values is None:
            lines.append(f"@attribute {_quote(name)} numeric")
            encoders.append(_format_number)
        else:
            if len(set(values)) != len(values):
                raise ValueError(f"column {name!r}: categories are not distinct once written as text: {values}")
            decl = ",".join(_quote(v) for v in values)
            lines.append(f"@attribute {_quote(name)} {{{decl}}}")
            encoders.append(lambda v: "?" if pd.isna(v) else _quote(str(v)))
    lines += ["", "@data"]
    columns = []
    for name, encode in zip(df.columns, encoders):
        col = df[name]
        if encode is _format_number:
            arr = col.to_numpy(dtype=float, na_value=np.nan)
            columns.append([encode(v) for v in arr])
        else:
            arr = col.astype(object).to_numpy()
            columns.append([encode(v) for v in arr])
    lines.extend(",".join(row) for row in zip(*columns))
    text = "\n".join(lines) + "\n"

    if hasattr(path, "write"):
        path.write(text)
        return
    from bnclf.io._files import staged

    with staged(path) as (tmp,):
        if tmp.name.endswith(".gz"):
            with gzip.open(tmp, "wt", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        else:
            with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
