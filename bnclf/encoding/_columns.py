"""Reading and coding columns with pandas' and Arrow's own tools.

A frame is read with one ``to_numpy()`` when its columns share a numpy dtype, else column
by column; integer columns in a short range are coded by counting (fit) and by one gather
(predict), a chunk of columns at a time through a reused buffer; Arrow-backed text is
encoded by one ``dictionary_encode``; everything else is ``pd.factorize``d.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnclf.encoding._frames import _is_arrow_text, _sort_order, index_labels, python_scalar, remembered_labels

_PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3


_DENSE_RANGE = 1 << 16
"""Largest span of an integer column's states that is coded through a table by value."""


_CHUNK_CELLS = 1 << 16
"""Cells of the buffer integer columns are coded through, a few columns at a time (512 KiB:
it stays in cache, and no call makes temporaries the size of the data)."""


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _column_values(frame: pd.DataFrame, one_block: bool = True) -> tuple[list, np.ndarray | None]:
    """``(columns, block)``: the values of every column of ``frame``, in order (a numpy
    array for columns that numpy holds: object, integer, float, bool; else the pandas
    extension array: categorical, nullable, string and Arrow-backed columns), and the
    whole frame as one ``(rows, columns)`` numpy array when its columns share one numpy
    dtype (else None).

    Notes
    -----
    The columns are the arrays of :func:`_frame_arrays`, which reads pandas' block storage
    directly (no Series per column), or, where that storage cannot be read so, those of
    ``DataFrame.items`` (the public route); ``one_block=False`` then reads column by column
    without looking at the dtypes (``DataFrame.dtypes`` builds a Series), for frames
    expected to hold extension columns. A frame whose columns share one numpy dtype is
    also read with one ``to_numpy()`` call.
    """
    out = _frame_arrays(frame)
    if out is None:
        dtypes = frame.dtypes.tolist() if one_block else []
    else:
        dtypes = [values.dtype for values in out]
    first = dtypes[0] if dtypes else None
    if isinstance(first, np.dtype) and first.kind in "biufO" and all(d == first for d in dtypes):
        block = frame.to_numpy()
        return list(block.T), block
    if out is None:
        out = []
        for _, column in _positional(frame).items():
            values = column.array
            out.append(column.to_numpy() if isinstance(values, pd.arrays.NumpyExtensionArray) else values)
    return out, None


def _frame_arrays(frame: pd.DataFrame) -> list | None:
    """The arrays that hold ``frame``'s columns, in order, read from its blocks: what
    ``frame.iloc[:, j].array`` gives (its ``to_numpy()`` for a ``NumpyExtensionArray``, as
    :func:`_column_values` reads a column), without building a Series per column; None when
    the frame's storage is not pandas' block manager.

    Notes
    -----
    This reads pandas' internal storage (``DataFrame._mgr``: its ``blocks``, ``blknos``
    and ``blklocs``, in pandas 2 and 3), since pandas has no public access to a column
    that costs less than building a Series, which for a one-row frame of a few dozen
    columns would cost more than scoring it. The arrays are views, only read.
    Anything unexpected (another storage, a length that does not match) gives None, and
    the caller reads the frame through ``DataFrame.items``.
    """
    try:
        manager = frame._mgr
        blocks, numbers, places = manager.blocks, manager.blknos, manager.blklocs
        stored = [block.values for block in blocks]
    except AttributeError:
        return None
    n_rows, n_columns = frame.shape
    if len(numbers) != n_columns:
        return None
    out = []
    for number, place in zip(numbers.tolist(), places.tolist()):
        values = stored[number]
        values = values[place] if values.ndim == 2 else values  # numpy blocks are (columns, rows)
        if values.ndim != 1 or len(values) != n_rows:
            return None
        out.append(values.to_numpy() if isinstance(values, pd.arrays.NumpyExtensionArray) else values)
    return out


def _positional(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` to read column by column: with pandas 3, a view (copy-on-write) named by
    position and without attrs, since pandas 3 boxes each column's name anew and
    deep-copies the attrs into every Series it builds; with pandas 2, ``frame`` itself."""
    if _PANDAS_3 and (frame.attrs or not isinstance(frame.columns, pd.RangeIndex)):
        frame = frame.set_axis(pd.RangeIndex(frame.shape[1]), axis=1)
        frame.attrs = {}
    return frame


def _integer_ranges(columns: list, block: np.ndarray | None) -> tuple[list[int], list[int], list[int]]:
    """``(positions, lows, highs)`` of the numpy integer columns among ``columns`` whose
    values fit int64: each column's least and greatest value, as Python integers (the
    columns of a 2-D ``block`` reduced in one call each; a uint64 column past int64 is
    left out)."""
    positions = [j for j, v in enumerate(columns) if isinstance(v, np.ndarray) and v.dtype.kind in "iu" and v.size]
    if not positions:
        return [], [], []
    if block is not None and len(positions) == block.shape[1]:
        lows, highs = block.min(axis=0).tolist(), block.max(axis=0).tolist()
    else:
        lows = [columns[j].min().item() for j in positions]
        highs = [columns[j].max().item() for j in positions]
    keep = [k for k, high in enumerate(highs) if high < 2**63]
    return [positions[k] for k in keep], [lows[k] for k in keep], [highs[k] for k in keep]


def _columns_per_chunk(n_rows: int) -> int:
    """Columns of ``n_rows`` values in a buffer of about ``_CHUNK_CELLS`` cells."""
    return max(1, _CHUNK_CELLS // max(1, n_rows))


def _shifted_chunks(columns: list, positions: list[int], lows: list[int], offsets: np.ndarray):
    """``(start, rows)`` over the integer columns at ``positions``, a few at a time: ``rows``
    holds each column's values minus its ``low`` plus its offset, in one int64 buffer of
    about ``_CHUNK_CELLS`` cells reused from chunk to chunk (no temporary the size of the
    data). Exact: every value lies within its column's span, which the offsets place."""
    n = len(columns[positions[0]])
    step = _columns_per_chunk(n)
    buffer = np.empty((min(step, len(positions)), n), dtype=np.int64)
    lows, offsets = np.array(lows, dtype=np.int64), np.asarray(offsets, dtype=np.int64)
    for start in range(0, len(positions), step):
        chunk = positions[start : start + step]
        rows = buffer[: len(chunk)]
        for r, j in enumerate(chunk):
            rows[r] = columns[j]
        rows -= lows[start : start + len(chunk), None]
        rows += offsets[start : start + len(chunk), None]
        yield start, rows


def _dense_integer_codes(
    columns: list, block: np.ndarray | None = None, out: np.ndarray | None = None
) -> dict[int, list]:
    """``{position: labels}`` of the numpy integer columns whose values span at most
    ``_DENSE_RANGE``: their sorted distinct values, found by counting (one ``np.bincount``
    over a chunk of columns, each column's values shifted into a segment of its own)
    instead of hashing; each column's codes are written into column ``position`` of
    ``out`` (``(rows, columns)``, column-major) when it is given."""
    positions, lows, highs = _integer_ranges(columns, block)
    narrow = [k for k in range(len(positions)) if highs[k] - lows[k] < _DENSE_RANGE]
    if not narrow:
        return {}
    positions, lows = [positions[k] for k in narrow], [lows[k] for k in narrow]
    span = np.array([highs[k] - lows[i] + 1 for i, k in enumerate(narrow)], dtype=np.int64)
    labels = {}
    step = _columns_per_chunk(len(columns[positions[0]]))
    # within a chunk, each column's segment starts where the previous column's ends
    starts = np.concatenate([np.cumsum(span[i : i + step]) - span[i : i + step] for i in range(0, len(span), step)])
    for start, rows in _shifted_chunks(columns, positions, lows, starts):
        sizes = span[start : start + len(rows)]
        segments = np.cumsum(sizes) - sizes
        present = np.bincount(rows.ravel(), minlength=int(sizes.sum())) > 0
        rank = np.cumsum(present) - 1  # the code of a value: present values before it in its segment
        rank -= np.repeat(rank[segments] + 1 - present[segments], sizes)  # ... in its own segment
        # every column's values at once, as Python integers: a held cell less its segment's start
        # plus its column's least value (exact in int64: the result is a value of the column)
        held = np.flatnonzero(present)
        owner = np.searchsorted(segments, held, side="right") - 1
        values = (held - segments[owner] + np.array(lows[start : start + len(rows)], dtype=np.int64)[owner]).tolist()
        bounds = np.searchsorted(held, segments).tolist() + [len(values)]
        for r in range(len(rows)):
            j = positions[start + r]
            labels[j] = values[bounds[r] : bounds[r + 1]]
            if out is not None:
                rank.take(rows[r], out=out[:, j])
    return labels


def _encode_arrow_text(columns: list) -> dict[int, tuple[np.ndarray, list]]:
    """``{position: (codes, values)}`` of the Arrow-backed text columns among ``columns``,
    all encoded by one Arrow ``dictionary_encode``: ``values`` are the distinct texts of
    all of them (a list), ``codes`` index them, -1 where a value is missing."""
    positions = [
        j for j, values in enumerate(columns) if not isinstance(values, pd.Categorical) and _is_arrow_text(values)
    ]
    if not positions:
        return {}
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = []
    for j in positions:
        array = pa.array(columns[j])  # through the array's __arrow_array__: no copy
        for chunk in array.chunks if isinstance(array, pa.ChunkedArray) else [array]:
            chunks.append(chunk.cast(pa.large_string()) if not pa.types.is_large_string(chunk.type) else chunk)
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, type=pa.large_string()).combine_chunks())
    local = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    distinct = encoded.dictionary.to_pylist()
    n = len(columns[positions[0]])
    return {j: (local[k * n : (k + 1) * n], distinct) for k, j in enumerate(positions)}


def category_labels(categories: pd.Index) -> list:
    """A categorical dtype's categories as Python scalars: Arrow-backed text through Arrow's
    own ``to_pylist`` (cheaper than ``Index.tolist``), anything else through ``tolist``."""
    if _is_arrow_text(categories.array):
        return index_labels(categories)
    return [python_scalar(v) for v in categories.tolist()]


_DTYPE_LABELS: dict[int, tuple] = {}
"""``id(dtype) -> (weak reference to the dtype, its labels)`` of the categorical dtypes read
lately (:func:`dtype_labels`)."""

_DTYPE_LABELS_LONGEST = 4096
"""Categories of the longest dtype :func:`dtype_labels` remembers (a longer one costs more to
read than to look up, and its labels stay out of memory)."""


def dtype_labels(dtype: pd.CategoricalDtype) -> list:
    """:func:`category_labels` of ``dtype``'s categories (a new list), remembered for the
    dtype object.

    Notes
    -----
    A ``CategoricalDtype`` cannot change, and the slices of a frame (a cross-validation's
    folds, a test split taken by ``iloc``) keep their columns' dtype objects, so a fit or a
    prediction on a slice reads each column's labels once per dtype, not once per call. The
    dtype is held by a weak reference, so an entry
    whose dtype is gone (its id reused) is never read.
    """
    return remembered_labels(_DTYPE_LABELS, dtype, _read_dtype_labels, _DTYPE_LABELS_LONGEST)


def _read_dtype_labels(dtype: pd.CategoricalDtype) -> list:
    return category_labels(dtype.categories)


def _sorted_codes(local: np.ndarray, distinct) -> tuple[np.ndarray, list]:
    """The codes and labels of :func:`_sorted_factorize` from codes ``local`` into the
    ``distinct`` values of one or more columns (-1: missing): the values this column
    holds, sorted, and each row's index among them."""
    objects = np.asarray(distinct, dtype=object)
    present = np.flatnonzero(np.bincount(local[local >= 0], minlength=len(objects)))
    order = _sort_order(objects[present])
    rank = np.full(len(objects) + 1, -1, dtype=np.int64)  # the last: a missing value
    rank[present[order]] = np.arange(len(present))
    return rank.take(local), [python_scalar(v) for v in objects[present[order]]]


def _sorted_factorize(values) -> tuple[np.ndarray, list]:
    """``(codes, labels)``: a column's distinct values in sorted order (by type name and
    text when they do not compare) as Python scalars, and each value's index among them
    (-1 where missing)."""
    local, uniques = pd.factorize(values)
    return _sorted_codes(local, uniques)


def _category_codes(values: pd.Categorical) -> np.ndarray:
    """The codes of a categorical array, only to be read: the array it stores (pandas'
    ``_codes``), where the public ``codes`` makes a read-only view on each call (as long as
    coding a one-row column); ``codes`` if it stores none."""
    codes = getattr(values, "_codes", None)
    return codes if isinstance(codes, np.ndarray) else values.codes


def _objects(values) -> np.ndarray:
    """A column's values (a numpy or an extension array) as an object array, as
    ``Series.astype(object)`` gives them: Python scalars where numpy or pandas holds them
    (a categorical column's labels as its categories are, integers staying integers), and
    the column's own missing value (None, NaN, ``pd.NA``) where one is missing."""
    return values.astype(object, copy=False) if isinstance(values, np.ndarray) else np.asarray(values.astype(object))


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
