"""The row layouts and segment sums that :class:`bnclf.counts.CountCache` counts with."""

from __future__ import annotations

import numpy as np


class _VariableRows:
    """The codes as ``(variables, rows)``: the features' rows read from the encoder's
    column-major ``(rows, features)`` codes in place, the class row after them.

    Indexing follows a 2-D array's for what counting asks: ``[v]`` is variable ``v``'s row
    (a view), ``[a:b]`` a block of feature rows (a view), ``[array]`` the rows of those
    variables (a new ``(k, rows)`` array), and ``shape``. Codes that are not column-major
    int64 are copied once into that layout.
    """

    def __init__(self, codes: np.ndarray, y: np.ndarray) -> None:
        codes = np.asarray(codes)
        if codes.dtype != np.int64 or not codes.flags.f_contiguous:
            codes = np.asfortranarray(codes, dtype=np.int64)
        self._features = codes.T  # C-contiguous (features, rows)
        self._y = np.ascontiguousarray(y, dtype=np.int64)
        self.shape = (codes.shape[1] + 1, codes.shape[0])

    def rows(self) -> list[np.ndarray]:
        """Every variable's row, the class last: ``[self[v] for v in range(shape[0])]``."""
        return [*self._features, self._y]

    def __getitem__(self, index):
        d = self._features.shape[0]
        if isinstance(index, (int, np.integer)):
            return self._y if int(index) == d else self._features[int(index)]
        if isinstance(index, slice):
            start, stop, step = index.indices(d + 1)
            if stop <= d:
                return self._features[start:stop:step]
            return self[np.arange(start, stop, step)]
        index = np.asarray(index, dtype=np.int64)
        is_class = index == d
        if not is_class.any():
            return self._features.take(index, axis=0)
        out = np.empty((len(index), self.shape[1]), dtype=np.int64)
        features = np.flatnonzero(~is_class)
        if len(features):
            out[features] = self._features.take(index[features], axis=0)
        out[is_class] = self._y
        return out


class _SegmentSums:
    """Sums over consecutive segments of an axis (``np.add.reduceat`` at ``starts``), the
    segments being each feature's values; when every segment has the same length, strided
    slices added in order (the same sums, bit for bit, without a reduction per segment)."""

    def __init__(self, starts: np.ndarray, lengths: np.ndarray) -> None:
        self.starts, self.lengths = starts, lengths
        self.equal = int(lengths[0]) if lengths.size and (lengths == lengths[0]).all() else 0

    def part(self, start: int, stop: int) -> "_SegmentSums":
        """The sums over the segments ``start:stop``, for an axis that begins at the first."""
        return _SegmentSums(self.starts[start:stop] - self.starts[start], self.lengths[start:stop])

    def __call__(self, array: np.ndarray, axis: int) -> np.ndarray:
        if not self.equal:
            return np.add.reduceat(array, self.starts, axis=axis)
        k = self.equal
        split = array.reshape(array.shape[:axis] + (len(self.starts), k) + array.shape[axis + 1 :])
        index = (slice(None),) * (axis + 1)
        out = np.array(split[index + (0,)], dtype=np.result_type(array, np.float64) if k > 1 else None)
        for t in range(1, k):
            out += split[index + (t,)]
        return out
