"""The parameter step: m-estimated CPTs from counts, for a structure learned or kept.

:class:`ParameterStep` is the part of :class:`bnclf.models.BayesNetClassifier` that turns
count tables into a :class:`~bnclf.network.Network` (``_make_network``, the step every fit
ends with) and that recounts the CPTs of a structure that stays: ``refit_parameters`` and
``partial_fit`` (naive Bayes). Where the counts come from is :mod:`bnclf.models._sources`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sklearn.utils.validation import check_is_fitted

from bnclf.counts._cache import CountCache
from bnclf.encoding._frames import class_name_of, record_feature_names
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.models._sources import check_later_partial_chunk, first_partial_chunk, refit_source
from bnclf.network import Network


class ParameterStep:
    """CPTs from counts: ``_make_network``, ``refit_parameters`` and ``_partial_fit``.

    Reads ``m`` and the fitted encoder, classes and names; keeps the counts of the CPT
    families in ``counts_`` so that later counts can be added to them.
    """

    def _make_network(
        self, families: Sequence[Sequence[int]], cache: CountCache, log_cpts: list | None = None, title: str = ""
    ) -> Network:
        """A :class:`~bnclf.network.Network` of this estimator's variables.

        ``log_cpts`` default to the m-estimates of the families from ``cache``.
        """
        if log_cpts is None:
            log_cpts = m_estimated_log_cpts(cache, families, self.m)
        return Network(families, log_cpts, self.node_names_, self._states(), cache.class_index, title=title)

    def refit_parameters(self, X: Any, y: Any = None, *, add: bool = False) -> ParameterStep:
        """Recount the CPTs of the learned structure on new data; the structure is kept.

        Parameters
        ----------
        X : DataFrame, array-like, Dask DataFrame, or chunks
            Rows with the fitted columns; or, with ``y=None``, ``(X, y)`` chunks as
            :meth:`fit_chunks` takes them (read once: the families to count are known).
        y : array-like or Dask Series, optional
            Class labels of ``X``; they must be among ``classes_``.
        add : bool, default=False
            ``False``: the CPTs come from the new rows only. ``True``: the new counts are
            added to the counts the model was fitted on (``counts_``), so that ``fit(A)``
            then ``refit_parameters(B, add=True)`` has the CPTs of the structure learned on
            A with the counts of A and B.

        Returns
        -------
        self

        Raises
        ------
        TypeError
            For a model that is not one network with kept counts.
        ValueError
            For other columns than the fitted ones, or a value outside the model's states.

        Notes
        -----
        The model's states stay; a value outside them is an error. A column that had no
        missing values and has some in the new rows gains the ``<missing>`` state when
        ``missing="category"``. Single-network estimators only (not ensembles,
        multinets or instance-specific learners).
        """
        check_is_fitted(self, "classes_")
        if "network_" not in self.__dict__ or "counts_" not in self.__dict__:
            raise TypeError(
                f"{type(self).__name__} is not one network with kept counts (ensembles, multinets and "
                "instance-specific learners are not); refit_parameters keeps one learned structure "
                "and recounts its families. Use fit instead."
            )
        source = refit_source(X, y, self._check_predict_frame)
        if list(source.names) != list(self._encoder.feature_names_):
            raise ValueError(
                f"the data has the columns {list(source.names)[:10]}, the model "
                f"{list(self._encoder.feature_names_)[:10]}; they must be the same."
            )
        return self._add_counts(source, self.network_.families, add=add)

    def _partial_fit(
        self,
        X: Any,
        y: Any,
        classes: Any = None,
        categories: Mapping[Any, Any] | None = None,
        sample_weight: Any = None,
    ) -> ParameterStep:
        """Add the counts of one chunk of rows to ``counts_`` and recompute the CPTs of the
        structure ``_learn_structure`` gives without counts (see ``partial_fit``)."""
        from bnclf.counts._chunks import first_chunk_encoder, frame_source

        self._check_params()
        first = "counts_" not in self.__dict__ or not hasattr(self, "classes_")
        if first:
            chunk = first_partial_chunk(X, y, classes, categories, sample_weight)
            frame, y, sample_weight = chunk.frame, chunk.y, chunk.sample_weight
            self._forget_fitted()
            record_feature_names(self, X, frame)
            encoder = first_chunk_encoder(frame, self.missing, self.handle_unknown)
            self._set_labels(encoder, chunk.classes, class_name_of(y, encoder.feature_names_))
        else:
            check_later_partial_chunk(classes, categories, y, self.classes_)
            frame = self._check_predict_frame(X)
        d = len(self._encoder.feature_names_)
        families = [(j, d) for j in range(d)] + [(d,)]
        source = frame_source(frame, y, where=" in this partial_fit call", weights=sample_weight)
        return self._add_counts(source, families, add=not first)

    def _add_counts(self, source: Any, families: Sequence[Sequence[int]], add: bool) -> ParameterStep:
        """Count ``families`` on ``source`` with the model's states (added to ``counts_``
        with ``add``) and make the network's CPTs from them: the parameter step of ``fit``,
        for a structure that does not change."""
        from bnclf.counts._chunks import count_with_states

        families = [tuple(int(v) for v in f) for f in families]
        new, encoder, grown = count_with_states(source, self._encoder, self.classes_, families)
        new = new.summary(families)
        if add:
            old = self.counts_
            new = old.with_new_states(grown) + new if grown else old + new
        title = self.network_.title if "network_" in self.__dict__ else ""
        self._encoder = encoder
        new.names = [str(name) for name in self.node_names_]
        self.network_ = self._make_network(families, new, title=title)
        self.counts_ = new
        self._build_derived()
        return self
