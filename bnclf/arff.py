"""Reading and writing ARFF files (Weka's Attribute-Relation File Format).

:func:`read_arff` turns a dense or sparse ARFF file (optionally gzip-compressed)
into a :class:`pandas.DataFrame` with these column types:

============================  ==============================================
ARFF attribute type           pandas dtype
============================  ==============================================
``{v1, v2, ...}`` (nominal)   ``category``, categories in declared order
``numeric``/``real``/``integer``  ``float64``
``string``                    ``object`` (Python ``str``)
``date [format]``             ``object`` (the date text, unparsed)
============================  ==============================================

``?`` is a missing value (``NaN``). Parsing is done by liac-arff
(``import arff``), which also handles CRLF line endings, ``%`` comments,
quoted names and values, and unquoted whitespace around nominal values (Weka
trims ``{a, b}`` to the values ``a`` and ``b``; so does this reader).

Sparse rows ``{index value, ...}`` use 0-based attribute indices. As in Weka,
an entry left out of a sparse row is the value 0 for a numeric attribute and
the *first declared value* for a nominal attribute (Weka stores nominal values
as indices, and index 0 is the first value). An explicit ``?`` in a sparse row
is missing.
"""

from __future__ import annotations

import gzip
import math
import os
import re

import arff as _liac
import numpy as np
import pandas as pd

__all__ = ["read_arff", "write_arff", "load_arff_xy"]

_GZIP_MAGIC = b"\x1f\x8b"
_NUMERIC_TYPES = ("NUMERIC", "REAL", "INTEGER")
# "@attribute <name> date [format]": liac-arff does not know the date type, so
# such declarations are read as string attributes (see _rewrite_dates).
_DATE_DECL = re.compile(
    r"^(\s*@attribute\s+(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)\s+)date\b.*$",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------- reading


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
    with open(os.fspath(path_or_file), "rb") as handle:
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


_RANGE_DECL = re.compile(
    r"^(\s*@attribute\s+.+?\s+(?:integer|real|numeric))\s*[\[(][^\])]*[\])]\s*$",
    re.IGNORECASE)


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
        return pd.Categorical(values, categories=_unique_in_order(arff_type))
    if arff_type in _NUMERIC_TYPES:
        return np.array(values, dtype=float)  # None -> nan
    out = np.empty(len(values), dtype=object)
    out[:] = [np.nan if v is None else v for v in values]
    return out


def read_arff(path_or_file) -> pd.DataFrame:
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


def load_arff_xy(path_or_file, target=None) -> tuple[pd.DataFrame, pd.Series]:
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
            f"target column {target!r} is not an attribute of this ARFF file; "
            f"its attributes are {list(df.columns)}"
        )
    y = df[target]
    X = df.drop(columns=[target])
    X.attrs = dict(df.attrs)
    return X, y


# --------------------------------------------------------------------------- writing

_NEEDS_QUOTES = re.compile(r"[\s,'\"{}%\\]")


def _quote(value) -> str:
    """An ARFF token for a name or nominal/string value, quoted when needed."""
    s = str(value)
    if s == "" or s == "?" or _NEEDS_QUOTES.search(s):
        s = (
            s.replace("\\", "\\\\")
            .replace("'", "\\'")
            .replace("\n", "\\n")
            .replace("\r", "\\r")
            .replace("\t", "\\t")
        )
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


def write_arff(df: pd.DataFrame, path, relation: str = "data") -> None:
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
                raise ValueError(
                    f"column {name!r}: categories are not distinct once written as text: {values}"
                )
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
    path = os.fspath(path)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    else:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
