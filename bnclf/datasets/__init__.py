"""Small real data sets shipped inside the package (no download).

=============  =======  ========  =======  ===============================================
name           rows     features  classes  notes
=============  =======  ========  =======  ===============================================
kr-vs-kp       3196     36        2        chess endgame, all nominal (the demo default)
soybean        683      35        19       nominal, with missing values
heart-c        303      13        2        mixed numeric and nominal, with missing values
iris           150      4         3        numeric (discretize first)
=============  =======  ========  =======  ===============================================

All are the standard UCI versions in Weka's ARFF format; the target is the last
attribute. Sources: UCI Machine Learning Repository (Dua & Graff); kr-vs-kp by
Shapiro (1987), soybean by Michalski & Chilausky (1980), heart-c by Detrano et
al. (1989), iris by Fisher (1936). :func:`list_datasets`, :func:`dataset_path`
and :func:`load_dataset` serve them.

Multilabel data sets (:func:`list_multilabel_datasets`,
:func:`multilabel_dataset_path`, :func:`load_multilabel_dataset`):

=============  =======  ===========  ======  ============================================
name           rows     features     labels  notes
=============  =======  ===========  ======  ============================================
emotions       593      72 numeric   6       music clips; 1.868 labels per row on average
=============  =======  ===========  ======  ============================================

Each is a MULAN ARFF file (the labels are nominal ``{0,1}`` attributes) with the
MULAN XML file naming its labels. Sources: emotions by K. Trohidis, G. Tsoumakas,
G. Kalliris, I. Vlahavas, "Multilabel Classification of Music into Emotions",
ISMIR 2008, via the MULAN repository (``tsoumakas/mulan``, ``data/multi-label/emotions``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = [
    "DEFAULT_DATASET",
    "list_datasets",
    "dataset_path",
    "load_dataset",
    "list_multilabel_datasets",
    "multilabel_dataset_path",
    "load_multilabel_dataset",
    "read_csv_table",
    "load_table",
]

_FILES = {
    "kr-vs-kp": "kr-vs-kp.arff.gz",
    "soybean": "soybean.arff.gz",
    "heart-c": "heart-c.arff.gz",
    "iris": "iris.arff",
}

DEFAULT_DATASET = "kr-vs-kp"

# name -> (ARFF file, MULAN label file)
_MULTILABEL_FILES = {
    "emotions": ("emotions.arff.gz", "emotions.xml"),
}


def list_datasets() -> list[str]:
    """Names of the embedded data sets."""
    return sorted(_FILES)


def dataset_path(name: str) -> Traversable:
    """Path of an embedded data set's ARFF file."""
    if name not in _FILES:
        raise ValueError(f"Unknown embedded data set {name!r}; choose one of {list_datasets()}.")
    return resources.files(__name__) / _FILES[name]


def load_dataset(name: str = DEFAULT_DATASET) -> tuple[pd.DataFrame, pd.Series]:
    """Features and target of an embedded data set.

    Returns
    -------
    X : pandas.DataFrame
        Nominal attributes as ``category`` columns, numeric ones as float.
    y : pandas.Series
        The class (the last attribute).
    """
    from bnclf.io._arff import load_arff_xy

    with resources.as_file(dataset_path(name)) as path:
        return load_arff_xy(path)


def list_multilabel_datasets() -> list[str]:
    """Names of the embedded multilabel data sets."""
    return sorted(_MULTILABEL_FILES)


def _multilabel_files(name: str) -> tuple[Traversable, Traversable]:
    if name not in _MULTILABEL_FILES:
        raise ValueError(f"Unknown embedded multilabel data set {name!r}; choose one of {list_multilabel_datasets()}.")
    root = resources.files(__name__)
    arff_name, xml_name = _MULTILABEL_FILES[name]
    return root / arff_name, root / xml_name


def multilabel_dataset_path(name: str) -> Traversable:
    """Path of an embedded multilabel data set's ARFF file (its MULAN label file
    ``<name>.xml`` sits next to it)."""
    return _multilabel_files(name)[0]


def load_multilabel_dataset(name: str = "emotions") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Features and 0/1 label matrix of an embedded multilabel data set.

    Parameters
    ----------
    name : str, default="emotions"
        One of :func:`list_multilabel_datasets`.

    Returns
    -------
    X : pandas.DataFrame
        The features, numeric ones as float, nominal ones as ``category``.
    Y : pandas.DataFrame
        One ``int8`` 0/1 column per label, named and ordered as in the file
        (see :func:`bnclf.io.load_mulan`).

    Examples
    --------
    >>> X, Y = load_multilabel_dataset("emotions")
    >>> X.shape, Y.shape
    ((593, 72), (593, 6))
    """
    from bnclf.io._arff import load_mulan

    arff_file, xml_file = _multilabel_files(name)
    with resources.as_file(arff_file) as arff_path, resources.as_file(xml_file) as xml_path:
        return load_mulan(arff_path, xml=xml_path)


def read_csv_table(
    path: str | os.PathLike,
    *,
    header: bool | str = True,
    sep: str | None = None,
    names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """A delimited text file as a DataFrame: ``?`` and empty cells read as missing, a UTF-8
    byte-order mark kept out of the first column name.

    In a column whose other cells are all numbers, pandas' missing-value tokens (``NA``,
    ``N/A``, ``NaN``, ``null``, ``None``, ``<NA>``, ...: :data:`NA_TOKENS`), as R's
    ``write.csv`` writes them, are missing values too, with a warning naming the column
    and the token; so are those tokens in the text columns of that file. In a file whose
    columns of numbers hold no such token, they are values (``NA`` for North America).

    Parameters
    ----------
    path : str or Path
    header : bool or "always", default=True
        Whether the first line names the columns. With True, a first line that looks
        like data (its cells are numbers, or values found in their own columns) is
        refused with the fix, rather than silently used as names; ``"always"`` takes
        the first line as names whatever they look like (years: ``2019,2020,label``).
        With False, a first line that looks like names gets a warning (it is read as
        a data row).
    sep : str, optional
        Column separator; default: sniffed from the file (one of ``, ; tab |``, or
        whitespace). ``"\\t"`` and ``"tab"`` mean a tab.
    names : list of str, optional
        Column names. With ``header=True`` they replace the header line (a first line
        that looks like data is still refused, so no row is lost); with
        ``header=False`` they name the columns (default: ``x1 .. x{n-1}`` and
        ``class`` last).
    """
    from bnclf.io._files import check_readable_file

    if header not in (True, False, "always"):
        raise ValueError(f"header={header!r} is not valid; use True, False or 'always'.")
    path = check_readable_file(path)
    if sep is None:
        sep = _sniff_separator(path)
    sep = {"\\t": "\t", "tab": "\t"}.get(sep, sep)  # '\t' as typed in a shell
    frame = _read_delimited(path, sep, header)
    if header and names is None:
        _refuse_repeated_names(path, sep)
    if header is True and frame.shape[0] and _header_looks_like_data(frame):
        raise ValueError(
            f"the first line of {path} looks like data, not column names "
            f"({', '.join(map(str, list(frame.columns)[:4]))}, ...). If the file has no "
            "header line, pass --no-header (header=False), and --names to name the columns; "
            "if that line does name the columns (names that are numbers, such as years), "
            "pass --header (header='always')."
        )
    _refuse_short_lines(frame, path, sep, header=bool(header))
    _name_columns(frame, names, header, path)
    read_missing = _clean_text_columns(frame, sep)
    if read_missing:
        _text_missing(frame, read_missing, path)
    return frame


def _read_delimited(path, sep: str, header: bool | str) -> pd.DataFrame:
    """``pandas.read_csv`` of the file as :func:`read_csv_table` reads it (gzip by content,
    ``?`` and empty cells missing, no other missing-value token yet); a file that is not
    UTF-8, empty or ragged is a ValueError that says what to do."""
    import pandas as pd

    try:
        return pd.read_csv(
            path,
            compression="gzip" if _is_gzip(path) else None,  # by content, whatever the name
            sep=sep,
            engine="c" if len(sep) == 1 else "python",
            na_values=["?", ""],
            keep_default_na=False,  # "NA" in a text column is a value; in numbers, see _missing_tokens
            encoding="utf-8-sig",
            header=0 if header else None,
            skipinitialspace=True,
        )
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path} is not UTF-8 text (byte {exc.object[exc.start : exc.start + 1]!r} at position {exc.start}); "
            "save it as UTF-8 (for example: iconv -f latin1 -t utf-8 in.csv > out.csv) and read that file."
        ) from None
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
        detail = "it is empty" if isinstance(exc, pd.errors.EmptyDataError) else str(exc).strip()
        raise ValueError(
            f"cannot read {path} as a table: {detail}. Check that every line has the same number "
            f"of cells and the separator (read as {sep!r}; set it with --sep, sep=)."
        ) from None


def _name_columns(frame: pd.DataFrame, names, header: bool | str, path) -> None:
    """Name ``frame``'s columns in place: ``names`` (one per column, each once; else a
    ValueError), or without a header line ``x1 .. x{n-1}`` and ``class``. Without a header
    line, a first row that looks like names gets a warning."""
    if names is not None:
        names = list(names)
        if len(names) != frame.shape[1]:
            raise ValueError(f"--names gives {len(names)} names but {path} has {frame.shape[1]} columns.")
        repeated = sorted({str(n) for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"--names gives {', '.join(map(repr, repeated))} twice; give every column its own name.")
        frame.columns = names
    elif not header:
        frame.columns = [f"x{i + 1}" for i in range(frame.shape[1] - 1)] + ["class"]
    if not header and _first_line_looks_like_names(frame):
        import warnings

        warnings.warn(
            f"the first line of {path} ({', '.join(map(str, frame.iloc[0].tolist()[:4]))}, ...) looks like "
            "column names: no cell of it appears elsewhere in its column, and text stands above numbers "
            "or above a column's repeated values. If it names the columns, leave out --no-header (or "
            "pass --header when the names are numbers, such as years); it is read as a data row.",
            UserWarning,
            stacklevel=3,
        )


def _clean_text_columns(frame: pd.DataFrame, sep: str) -> dict:
    """In place: text cells lose surrounding spaces (``"a "`` and ``"a"`` are one state); a
    text column that holds numbers and missing-value tokens becomes numbers; with a separator
    other than ``,``, decimal commas become numbers. Returns ``column -> tokens`` read as
    missing."""
    import pandas as pd

    read_missing = {}
    for column in frame.columns:
        values = frame[column]
        # pandas 3's str columns, and pandas 2's object columns of text (with NaN for missing)
        if pd.api.types.is_string_dtype(values) or pd.api.types.infer_dtype(values, skipna=True) == "string":
            stripped = values.str.strip()
            if not stripped.equals(values):
                frame[column] = stripped
            tokens = _missing_tokens(stripped, decimal_comma=sep != ",")
            if tokens:  # R's NA in a column of numbers: missing values, not a text column
                read_missing[column] = tokens
                stripped = stripped.mask(stripped.isin(tokens))
                frame[column] = stripped if _decimal_commas(stripped) else pd.to_numeric(stripped).astype(float)
            if sep != "," and _decimal_commas(stripped):  # 1,5 in a ;-separated file is 1.5
                frame[column] = stripped.str.replace(",", ".", regex=False).astype(float)
    return read_missing


def _text_missing(frame: pd.DataFrame, read_missing: dict, path) -> None:
    """The tokens found missing in columns of numbers are missing in the text columns too
    (the file writes missing values that way, as R's ``write.csv`` does); one warning names
    every column and token."""
    import warnings

    import pandas as pd

    used = {token for tokens in read_missing.values() for token in tokens}
    text = {}
    for column in frame.columns:
        values = frame[column]
        if column in read_missing or pd.api.types.is_numeric_dtype(values):
            continue
        found = values.isin(used)
        if found.any():
            text[column] = {str(t): int(n) for t, n in values[found].value_counts().items()}
            frame[column] = values.mask(found)

    def cells(columns: dict) -> str:
        return "; ".join(
            f"{column!r}: {', '.join(f'{token!r} ({n} cells)' for token, n in tokens.items())}"
            for column, tokens in columns.items()
        )

    also = (
        f"; so are they in the text columns {cells(text)} (if one of them is a value there, such as NA "
        "for North America, write missing numbers as empty cells or '?')"
        if text
        else ""
    )
    warnings.warn(
        f"{path}: missing-value tokens in columns of numbers are read as missing values "
        f"({cells(read_missing)}), as R's write.csv and pandas' to_csv(na_rep=...) write them{also}.",
        UserWarning,
        stacklevel=3,
    )


#: the cells pandas reads as missing by default (``pandas.read_csv``'s ``na_values``), which
#: R's ``write.csv`` and ``to_csv(na_rep=...)`` write: missing in a column of numbers only
NA_TOKENS = frozenset(
    ["#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA"]
    + ["NULL", "NaN", "None", "n/a", "nan", "null"]
)


def _missing_tokens(values: pd.Series, decimal_comma: bool = False) -> dict[str, int]:
    """The missing-value tokens (:data:`NA_TOKENS`) of a text column whose other cells are all
    numbers (at least one; with ``decimal_comma``, ``1,5`` counts as a number), with how
    many cells hold each; empty when it is a text column (``NA`` as North America)."""
    import pandas as pd

    observed = values.dropna()
    is_token = observed.isin(NA_TOKENS)
    if not is_token.any() or is_token.all():
        return {}
    others = observed[~is_token]
    numbers = pd.to_numeric(others, errors="coerce").notna().all()
    if not numbers and decimal_comma:
        numbers = bool(others.str.fullmatch(r"[+-]?\d+(,\d+)?").all())
    if not numbers:
        return {}
    return {str(token): int(n) for token, n in observed[is_token].value_counts().items()}


def _decimal_commas(values: pd.Series) -> bool:
    """Whether a text column holds numbers written with a decimal comma (``1,5``), every
    value of it, at least one with its comma."""
    observed = values.dropna()
    if observed.empty:
        return False
    numbers = observed.str.fullmatch(r"[+-]?\d+(,\d+)?")
    return bool(numbers.all()) and bool(observed.str.contains(",", regex=False).any())


def _refuse_repeated_names(path, sep: str) -> None:
    """Refuse a header line that names a column twice (pandas would rename the second
    ``a.1``, and a second ``class`` column would silently not be the target)."""
    import csv
    import gzip

    opener = gzip.open if _is_gzip(path) else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as handle:
        first = next((line for line in handle if line.strip()), "")
    cells = next(csv.reader([first], delimiter=sep, skipinitialspace=True), []) if len(sep) == 1 else first.split()
    cells = [c.strip() for c in cells]
    repeated = sorted({c for c in cells if cells.count(c) > 1})
    if repeated:
        raise ValueError(
            f"the header line of {path} names {', '.join(map(repr, repeated))} more than once; give every "
            "column its own name (edit the header, or pass --names with one name per column)."
        )


_SEPARATORS = ",;\t|"


def _first_line_looks_like_names(frame: pd.DataFrame) -> bool:
    """Whether a headerless table's first row looks like a header line: at least three
    rows, no first-row cell appears elsewhere in its column, and its cells are all text
    that is not a number, or one of them is such text above a column of numbers or above
    a column whose values repeat (the class: ``label`` above ``yes, no, yes``), as in a
    header of years ``2019,2020,label``."""
    if frame.shape[0] < 3:
        return False
    text_cells = 0
    telling = False
    for column in frame.columns:
        first, rest = frame[column].iloc[0], frame[column].iloc[1:]
        if (rest.astype(str) == str(first)).any():
            return False
        if isinstance(first, str) and not _is_number(first):
            text_cells += 1
            observed = rest.dropna()
            numbers = observed.astype(str).map(_is_number).all() if len(observed) else False
            telling = telling or bool(numbers) or observed.nunique() < len(observed)
    return text_cells > 0 and (telling or text_cells == frame.shape[1])


def _refuse_short_lines(frame: pd.DataFrame, path, sep: str, header: bool) -> None:
    """Refuse lines with fewer cells than the table has columns, naming them (pandas would
    fill them with missing values); lines with more cells are refused as they are read."""
    if frame.shape[0] == 0 or not frame.iloc[:, -1].isna().any():  # a short line ends missing
        return
    import csv
    import gzip
    import re

    width, short = frame.shape[1], []
    opener = gzip.open if _is_gzip(path) else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as handle:
        if len(sep) == 1:
            lines = (
                (reader.line_num, cells)
                for reader in [csv.reader(handle, delimiter=sep, skipinitialspace=True)]
                for cells in reader
            )
        else:
            lines = ((i, re.split(sep, line.strip())) for i, line in enumerate(handle, 1))
        seen_header = not header
        for number, cells in lines:
            if not cells or cells == [""]:
                continue  # a blank line is skipped, as pandas does
            if not seen_header:
                seen_header = True
                continue
            if len(cells) < width:
                short.append((number, len(cells)))
    if short:
        where = ", ".join(f"line {n} ({k} cells)" for n, k in short[:5]) + (
            f", and {len(short) - 5} more" if len(short) > 5 else ""
        )
        raise ValueError(
            f"{path} has lines with fewer cells than its {width} columns: {where}. Check those lines and the "
            f"separator (read as {sep!r}; set it with --sep, sep=); write a missing value as an empty cell "
            "or '?', keeping every separator."
        )


def _is_gzip(path) -> bool:
    """Whether the file starts with gzip's magic bytes (a ``.csv`` may be compressed)."""
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _sniff_separator(path: str | os.PathLike) -> str:
    """The column separator of a delimited text file: one of ``, ; tab |`` that splits its
    first lines into the same number of cells, or runs of whitespace; ``,`` when no
    candidate splits them (a file of one column).

    Notes
    -----
    Python's ``csv.Sniffer`` alone (what pandas uses when ``sep=None``) may take any
    character for the separator: it split a one-column file on the letter ``s``. Here it
    chooses only among the usual separators.
    """
    import csv
    import gzip

    opener = gzip.open if _is_gzip(path) else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as handle:
        lines = [line for _, line in zip(range(50), handle) if line.strip()]
    sample = "".join(lines)
    try:
        return csv.Sniffer().sniff(sample, delimiters=_SEPARATORS).delimiter
    except csv.Error:
        pass
    widths = {len(line.split()) for line in lines}
    if len(widths) == 1 and widths.pop() > 1:
        return r"\s+"
    return ","


def _header_looks_like_data(frame: pd.DataFrame) -> bool:
    """Most header cells are numbers, or values that occur in their own column."""
    import re

    hits = 0
    for name in frame.columns:
        text = str(name).strip()
        if not _is_number(text):
            text = re.sub(r"\.\d+$", "", text)  # pandas renames a repeated cell 'a' to 'a.1'
        if _is_number(text) or text in set(frame[name].dropna().astype(str).str.strip()):
            hits += 1
    return hits * 2 > frame.shape[1]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_table(
    path: str | os.PathLike,
    target: str | None = None,
    *,
    header: bool | str = True,
    sep: str | None = None,
    names: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, pd.Series]:
    """Features and target of a CSV or ARFF file.

    Parameters
    ----------
    path : str or Path
        ``.csv`` (any delimiter pandas can sniff; ``?`` and empty cells are
        missing), ``.csv.gz``, ``.arff`` or ``.arff.gz``.
    target : str, optional
        Target column; default the last one.
    header, sep, names
        For CSV files, see :func:`read_csv_table`.

    Notes
    -----
    CSV files carry no types. A numeric column of whole numbers (missing cells
    allowed) with at most ``MAX_INTEGER_CATEGORIES`` distinct values is read as
    integer categories (nullable ``Int64``); any other numeric column (ages,
    counts, measurements) is read as float, so that discretizers treat it as
    continuous, as an ARFF ``numeric`` attribute would be. ARFF files declare
    their types and are read as declared.
    """
    import pandas as pd

    from bnclf.io._files import check_readable_file

    path = check_readable_file(path)
    name = path.name.lower()
    if name.endswith((".arff", ".arff.gz")):
        from bnclf.io._arff import load_arff_xy

        return load_arff_xy(path, target=target)
    frame = read_csv_table(path, header=header, sep=sep, names=names)
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise ValueError(f"target column {target!r} is not a column of {path}; columns are {list(frame.columns)}")
    if frame.shape[0] == 0:
        raise ValueError(f"{path} has no data rows, only the header line {list(frame.columns)}.")
    if frame.shape[1] < 2:
        raise ValueError(
            f"{path} has one column, {list(frame.columns)}: the class, and no features. If its "
            "columns are separated by a character other than , ; tab or |, pass --sep (sep=)."
        )
    from bnclf.encoding._frames import MAX_INTEGER_CATEGORIES  # the one integer-column rule

    X = frame.drop(columns=[target])
    for column in X.columns:
        values = X[column]
        if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        observed = values.dropna()
        whole = bool((observed == observed.round()).all())
        if whole and observed.nunique() <= MAX_INTEGER_CATEGORIES:
            X[column] = values.astype("Int64")  # integer categories, missing values kept
        else:
            X[column] = values.astype(float)  # continuous: left to the discretizer
    return X, frame[target]
