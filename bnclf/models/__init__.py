"""Estimators, one module per family of classifiers."""

from .base import BayesNetClassifier
from .kdb import KDBClassifier
from .naive import NaiveBayesClassifier
from .tree import TANClassifier

__all__ = ["BayesNetClassifier", "NaiveBayesClassifier", "TANClassifier", "KDBClassifier"]

CLASSIFIERS = {
    "nb": NaiveBayesClassifier,
    "tan": TANClassifier,
    "kdb": KDBClassifier,
}
"""Short names of the classifiers, as used by ``make_classifier`` and the CLI."""


def make_classifier(spec):
    """A classifier from a short spec such as ``"tan"``, ``"kdb(k=3)"`` or ``"tan(root=2, m=0)"``.

    Parameter values are Python literals (numbers, strings, None, booleans).
    """
    import ast

    if not isinstance(spec, str):
        raise ValueError(f"A classifier spec is a string like 'kdb(k=3)'; got {spec!r}.")
    text = spec.strip()
    name, _, rest = text.partition("(")
    name = name.strip().lower()
    if name not in CLASSIFIERS:
        raise ValueError(f"Unknown classifier {name!r}; choose one of {sorted(CLASSIFIERS)}.")
    params = {}
    if rest:
        try:
            call = ast.parse(f"f({rest}", mode="eval").body
            params = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
            if call.args:
                raise ValueError
        except (SyntaxError, ValueError):
            raise ValueError(
                f"Cannot read the parameters of {spec!r}; write them as keywords with literal "
                "values, e.g. 'kdb(k=3, m=1.0)'."
            ) from None
    cls = CLASSIFIERS[name]
    unknown = set(params) - set(cls().get_params())
    if unknown:
        raise ValueError(
            f"{cls.__name__} has no parameter {sorted(unknown)}; its parameters are "
            f"{sorted(cls().get_params())}."
        )
    return cls(**params)


__all__ += ["CLASSIFIERS", "make_classifier"]
