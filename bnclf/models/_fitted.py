"""The fitted network(s) of an estimator, read: members, pgmpy export, the one network's views.

:class:`FittedNetworks` is the part of :class:`bnclf.models.BayesNetClassifier` that reads
what a fit stored (``network_`` or ``networks_``, ``weights_``, ``class_log_prior_``,
``counts_``, the encoder, ``classes_``, ``class_name_``) and answers with
:class:`~bnclf.network.Network` values, and that checks a loaded model's state.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils.validation import check_is_fitted

from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import python_scalar
from bnclf.network import Network, NetworkMembers, check_log_cpt

if TYPE_CHECKING:
    import networkx as nx
    from pgmpy.models import DiscreteBayesianNetwork


class FittedNetworks:
    """Read the fitted network(s): ``network_members()``, ``to_pgmpy()``, ``dag_``,
    ``families_``, ``log_cpts_``, ``node_names_``, ``categories_``, ``one_state_features_``
    and ``feature_encoder_``.

    A subclass declares how its networks combine with ``_network_kind`` (``"single"``,
    ``"ensemble"``, ``"multinet"``, or ``"instance"`` for networks built per row) and, for
    an ensemble, ``_combine``; ``network_members()`` hands both out as public attributes
    of the list it returns.
    """

    _network_kind = "single"
    """``"single"``, ``"ensemble"``, ``"multinet"`` or ``"instance"``: how the fitted networks combine."""

    _combine: str | None = None
    """An ensemble's combination rule, ``"joint"`` or ``"posterior"`` (see :class:`EnsembleClassifier`)."""

    def network_members(self) -> NetworkMembers:
        """The fitted networks as ``[(key, Network), ...]``, with how they combine.

        ``key`` is ``None`` for a single-network estimator, the member position
        for an ensemble, and the class label for a multinet. The returned
        :class:`~bnclf.network.NetworkMembers` says so in ``kind`` and carries an
        ensemble's ``weights`` and ``combine`` rule, the members a set of network files
        holds (``exported``) and the manifest's extra entries. It shows itself drawn in a
        notebook (one panel per member), as each ``Network`` does.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        """
        check_is_fitted(self, "classes_")
        if hasattr(self, "network_"):
            return NetworkMembers([(None, self.network_)], self)
        kind = self._network_kind
        if kind == "multinet":
            items = [(python_scalar(c), net) for c, net in zip(self.classes_, self.networks_)]
        else:
            items = enumerate(self.networks_)
        return NetworkMembers(
            items,
            self,
            kind=kind,
            weights=getattr(self, "weights_", None) if kind == "ensemble" else None,
            combine=self._combine if kind == "ensemble" else None,
            exported=self._exported_members,
            manifest_extras=self._manifest_extras,
        )

    def _exported_members(self) -> list:
        """The members a set of network files holds (all of them, unless a subclass says)."""
        return list(self.network_members())

    def _manifest_extras(self) -> dict:
        """Entries a network-set manifest adds for this estimator (none, unless a subclass says)."""
        return {}

    def to_pgmpy(
        self,
    ) -> DiscreteBayesianNetwork | list[DiscreteBayesianNetwork] | dict[Hashable, DiscreteBayesianNetwork]:
        """The fitted model as pgmpy ``DiscreteBayesianNetwork`` object(s).

        One network for a single-DAG classifier; a list (member order, see
        ``weights_``) for an ensemble; a dict keyed by class label for a
        multinet, whose member networks are class-conditional (no class node).
        States carry the original category labels; node names are the feature
        names and ``class_name_``. Use :func:`bnclf.io.write_network` to write
        them to BIF, XMLBIF or UAI files.
        """
        members = self.network_members()
        if members[0][0] is None:
            return members[0][1].to_pgmpy()
        if members.kind == "multinet":
            return {key: net.to_pgmpy() for key, net in members}
        return [net.to_pgmpy() for _, net in members]

    def _single_network(self) -> Network:
        """``network_``; an AttributeError naming ``networks_`` for a model of several."""
        if "network_" in self.__dict__:
            return self.network_
        if "networks_" in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__} holds {len(self.networks_)} networks; read them from "
                "networks_ (or network_members()), not from dag_/families_/log_cpts_."
            )
        raise AttributeError(f"This {type(self).__name__} instance is not fitted yet.")

    @property
    def dag_(self) -> nx.DiGraph:
        """The learned structure, nodes named by feature and class names."""
        return self._single_network().dag

    @property
    def families_(self) -> dict:
        """``child -> tuple of parents`` in the axis order of its CPT (class last)."""
        return self._single_network().named_families

    @property
    def log_cpts_(self) -> dict:
        """``child -> ndarray`` of natural-log probabilities, axes ``(child, *families_[child])``."""
        return self._single_network().named_log_cpts

    @property
    def feature_encoder_(self) -> FeatureEncoder:
        """The fitted :class:`~bnclf.encoding.FeatureEncoder`: the states of every feature
        column in code order, and the coding the predict methods apply (read-only)."""
        return self._encoder

    @property
    def node_names_(self) -> list:
        """Feature names followed by the class node name (index order of the codes)."""
        return list(self._encoder.feature_names_) + [self.class_name_]

    @property
    def categories_(self) -> dict:
        """``node -> list`` of state labels in code order."""
        return dict(zip(self.node_names_, self._states()))

    @property
    def one_state_features_(self) -> list:
        """The features with one state, which network files leave out.

        A feature with one state (a numeric column in which MDL discretization found no
        cut point, or a column with one value in training) carries no information: its
        CPT is one everywhere, so it adds nothing to any posterior, and a child that has
        it as a parent is conditioned on its one value. :func:`bnclf.io.write_network`
        leaves it out of the files it writes (pyAgrum refuses a variable with fewer than
        two states); predictions are the same with or without it.
        """
        check_is_fitted(self, "classes_")
        names, states = self._encoder.feature_names_, self._encoder.categories_
        return [name for name, values in zip(names, states) if len(values) == 1]

    def _states(self) -> list:
        """The state labels of every variable index: each feature's, then the classes."""
        return self._encoder.categories_ + [[python_scalar(c) for c in self.classes_]]

    # -- a loaded model's state ----------------------------------------------------------------
    def _check_fitted_state(self) -> None:
        """Raise a ValueError unless a loaded model is consistent: its encoder, classes,
        networks, weights and kept counts describe the same variables and states."""
        if "classes_" not in self.__dict__:
            return  # not fitted: nothing to check
        encoder = self._encoder
        if len(encoder.feature_names_) != self.n_features_in_:
            raise ValueError(
                f"the encoder has {len(encoder.feature_names_)} columns but n_features_in_ is {self.n_features_in_}."
            )
        classes = list(np.asarray(self.classes_).tolist())
        if len(classes) < 2 or len(set(map(repr, classes))) != len(classes):
            raise ValueError(f"the classes {classes[:10]} are not two or more distinct labels.")
        states = self._states()
        members = [self.network_] if "network_" in self.__dict__ else list(self.__dict__.get("networks_", []))
        for net in members:
            if net.states != states:
                raise ValueError(f"the states of network {net.title or 0!r} differ from the encoder's and the classes.")
        weights = self.__dict__.get("weights_")
        if weights is not None:
            weights = np.asarray(weights, dtype=float)
            if weights.shape != (self._stored_member_count(),) or not np.isfinite(weights).all() or (weights < 0).any():
                raise ValueError("the member weights are not one finite weight >= 0 per network.")
        prior = self.__dict__.get("class_log_prior_")
        if prior is not None:
            if np.shape(prior) != (len(classes),):
                raise ValueError("the class prior does not have one entry per class.")
            check_log_cpt(prior, "the class prior")
        counts = self.__dict__.get("counts_")
        if counts is not None:
            expected = np.append(encoder.cardinalities_, len(classes))
            if not np.array_equal(counts.cardinalities, expected):
                raise ValueError("the kept count tables do not have the cardinalities of the states.")

    def _stored_member_count(self) -> int:
        """How many member networks the fitted state describes (those it stores here)."""
        return len(self.__dict__.get("networks_", []))
