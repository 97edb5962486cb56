"""Short classifier names and specs such as ``"kdb(k=3)"``: one registry for the CLI and
the evaluation harness."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bnclf._params import check_parameters

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


class Registered:
    """Mixin of every bnclf estimator: a subclass registers itself where it is defined.

    A class lists its short names in ``short_names`` (``name -> parameter preset``, e.g.
    ``{"rmho": {"variant": "holdout"}}``), read from its own body only, so a subclass
    does not inherit its parent's names. Every concrete class (not a base marked
    ``_abstract = True``, its name not starting with ``_``) is recorded in
    :data:`ESTIMATORS`, which the model-file allow-list and the scikit-learn checks read;
    its short names go to :data:`CLASSIFIERS` or, with ``_multilabel = True``, to
    :data:`MULTILABEL_CLASSIFIERS`, which specs, the command line and the evaluation
    harness read. Adding a learner is its learner function, its estimator class (with
    ``short_names``) and its tests.
    """

    short_names: dict[str, dict[str, Any]] = {}
    _multilabel = False

    def _check_params(self) -> None:
        """Raise a ValueError naming the first constructor parameter its constraint refuses
        (the class's ``_parameters`` tables, see :mod:`bnclf._params`); a subclass adds
        checks between parameters. Specs check an estimator's parameters through this."""
        check_parameters(self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("_abstract", False) and not cls.__name__.startswith("_"):
            ESTIMATORS.append(cls)
        for name, preset in cls.__dict__.get("short_names", {}).items():
            registry = MULTILABEL_CLASSIFIERS if cls._multilabel else CLASSIFIERS
            registry[name.lower()] = _Preset(cls, dict(preset))


class _Preset:
    """A registered class with the parameters its short name sets (later ones override)."""

    def __init__(self, cls: type, preset: dict[str, Any]) -> None:
        self.cls, self.preset = cls, preset

    def __call__(self, **params: Any) -> BaseEstimator:
        return self.cls(**{**self.preset, **params})

    @property
    def __name__(self) -> str:
        return self.cls.__name__

    def __repr__(self) -> str:
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.preset.items())
        return f"{self.cls.__name__}({arguments})"


#: Every concrete bnclf estimator class, in the order their modules define them.
ESTIMATORS: list[type] = []

#: Short names of the single-label estimators: name -> a registered class with its preset
#: parameters, a class or factory added by :func:`register_classifier`, or a ``(module,
#: attribute)`` pair imported on first use.
CLASSIFIERS: dict[str, Any] = {}

#: Multilabel estimators (fit(X, Y) with a label matrix): a registry of their own, so a
#: single-label command never resolves one.
MULTILABEL_CLASSIFIERS: dict[str, Any] = {}


def import_estimators() -> None:
    """Import :mod:`bnclf.models`, so that every bnclf estimator class has registered itself
    in :data:`ESTIMATORS` and the short-name registries."""
    importlib.import_module("bnclf.models")


def make_multilabel_classifier(spec: str | BaseEstimator) -> BaseEstimator:
    """A multilabel estimator from a spec such as ``"mnb"``, ``"mfan(alpha=2)"`` or ``"bn-ensemble"``.

    Names resolve only in :data:`MULTILABEL_CLASSIFIERS`; estimator instances
    are returned unchanged.
    """
    if not isinstance(spec, str):
        if not hasattr(spec, "fit"):
            raise TypeError(f"classifier must be a spec string or an estimator, got {spec!r}")
        return spec
    name, params = parse_classifier_spec(spec)
    import_estimators()
    target = MULTILABEL_CLASSIFIERS.get(name.lower())
    if target is None:
        raise ValueError(f"Unknown multilabel classifier {name!r}; choose one of {sorted(MULTILABEL_CLASSIFIERS)}.")
    if not callable(target):
        target = getattr(importlib.import_module(target[0]), target[1])
    template = target()
    valid = sorted(template.get_params())
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{name} has no parameter {unknown}; valid parameters: {valid}.")
    estimator = target(**params)
    if hasattr(estimator, "_check_params"):
        estimator._check_params()
    return estimator


def classifier_names_help() -> str:
    """One line listing the registered short names, for command-line help texts."""
    import_estimators()
    return ", ".join(sorted(CLASSIFIERS))


def multilabel_names_help() -> str:
    """One line listing the registered multilabel short names, for command-line help texts."""
    import_estimators()
    return ", ".join(sorted(MULTILABEL_CLASSIFIERS))


def register_classifier(name: str, target: Callable[..., Any] | tuple[str, str]) -> None:
    """Register a short, case-insensitive classifier name.

    Parameters
    ----------
    name : str
        E.g. ``"aode"``.
    target : callable or (module, attribute) tuple
        A class or factory called with the spec's keyword arguments, or where to
        import it from lazily.
    """
    CLASSIFIERS[name.lower()] = target


_SPEC = re.compile(r"^\s*([A-Za-z_][\w.\-]*)\s*(\(.*\))?\s*$", re.DOTALL)


def parse_classifier_spec(spec: str) -> tuple[str, dict]:
    """Split ``"kdb(k=3, m=1.0)"`` into ``("kdb", {"k": 3, "m": 1.0})``.

    Names may contain hyphens (``"bnc-2p"``). Only keyword arguments are accepted;
    their values are Python literals, or bare words taken as text
    (``"hc(criterion=mdl)"`` is ``"hc(criterion='mdl')"``). Nothing is evaluated.
    """
    match = _SPEC.match(spec)
    if match is None:
        raise ValueError(f"cannot parse classifier spec {spec!r}; expected e.g. 'nb' or 'kdb(k=3)'")
    name, arguments = match.group(1), match.group(2)
    if not arguments:
        return name, {}
    try:
        node = ast.parse("f" + arguments, mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"cannot parse classifier spec {spec!r}: {exc.msg}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"cannot parse classifier spec {spec!r}; expected e.g. 'nb' or 'kdb(k=3)'")
    if node.args:
        raise ValueError(f"classifier spec {spec!r}: give parameters by name, e.g. kdb(k=2)")
    params = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise ValueError(f"classifier spec {spec!r}: **kwargs are not supported")
        if kw.arg in params:
            raise ValueError(
                f"classifier spec {spec!r} gives {kw.arg!r} twice; give each parameter once, "
                f"e.g. {name}({kw.arg}={ast.unparse(kw.value)})"
            )
        if isinstance(kw.value, ast.Name):
            params[kw.arg] = kw.value.id
            continue
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            raise ValueError(
                f"classifier spec {spec!r}: the value of {kw.arg!r} must be a literal "
                f"(a number, True/False/None, or a word or quoted string), e.g. "
                f"{name}({kw.arg}=2) or {name}({kw.arg}='text')"
            ) from None
    return name, params


def _model_classes() -> dict:
    """Single-label estimator classes by their name, lower case, without "classifier"."""
    import_estimators()
    return {
        cls.__name__.lower().removesuffix("classifier"): cls
        for cls in ESTIMATORS
        if not cls._multilabel and cls.__name__.endswith("Classifier")
    }


def resolve_classifier(name: str) -> Callable[..., BaseEstimator]:
    """The class behind a registered short name or a bnclf class name.

    Dotted import paths are not resolved: a spec string may come from a command
    line or a file, and importing and calling whatever it names would run
    arbitrary code. Register another estimator explicitly with
    :func:`register_classifier`, or pass the estimator object itself.
    """
    key = name.lower()
    import_estimators()
    target = CLASSIFIERS.get(key)
    if target is not None:
        if callable(target):
            return target
        module, attr = target
        return getattr(importlib.import_module(module), attr)
    by_class = _model_classes()
    if key.removesuffix("classifier") in by_class:
        return by_class[key.removesuffix("classifier")]
    known = sorted(set(CLASSIFIERS) | set(by_class))
    if "." in name:
        raise ValueError(
            f"Classifier spec {name!r} is an import path; specs resolve only registered names "
            f"({known}). Register it first, e.g. register_classifier('mine', "
            f"('{name.rpartition('.')[0]}', '{name.rpartition('.')[2]}')), or pass the "
            "estimator object instead of a string."
        )
    raise ValueError(f"Unknown classifier {name!r} (unknown classifier); choose one of {known}.")


def make_classifier(spec: str | BaseEstimator) -> BaseEstimator:
    """An estimator from a spec such as ``"tan"``, ``"kdb(k=3)"`` or ``"tan(root=2, m=0)"``.

    Estimator instances are returned unchanged. Names (case-insensitive) are
    looked up among the registered short names, then the classes of
    :mod:`bnclf.models` (``"aode"`` finds ``AODEClassifier``). Import paths
    such as ``"package.module.Class"`` are refused (a spec could otherwise run
    any code); register such a class with :func:`register_classifier`.
    """
    if not isinstance(spec, str):
        if not hasattr(spec, "fit"):
            raise TypeError(f"classifier must be a spec string or an estimator, got {spec!r}")
        return spec
    name, params = parse_classifier_spec(spec)
    cls = resolve_classifier(name)
    template = cls()
    valid = sorted(template.get_params()) if hasattr(template, "get_params") else None
    unknown = sorted(set(params) - set(valid)) if valid is not None else []
    if unknown:
        raise ValueError(f"{cls.__name__} has no parameter {unknown}; valid parameters: {valid}.")
    try:
        estimator = cls(**params)
    except TypeError as exc:
        raise ValueError(f"classifier spec {spec!r}: {exc}; valid parameters: {valid}") from None
    if params and hasattr(estimator, "_check_params"):
        estimator._check_params()  # a bad value fails here, not after other models have run
    return estimator
