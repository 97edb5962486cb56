"""The speed benchmarks of bnclf, one entry: ``python -m benchmarks.speed NAME [options]``.

``python -m benchmarks.speed`` lists them; ``NAME --help`` gives a benchmark's options, and
``NAME --quick`` runs it with its smallest settings (a smoke test, not figures to report).
Every benchmark times with :mod:`benchmarks.speed.harness` and writes its figures, with the
machine and commit, to ``benchmarks/results/`` (``--out`` to write elsewhere).
``side_by_side`` reruns them on two interpreters (pandas 2 and 3) and tabulates the ratios.

This module imports nothing: a timing subprocess of an older checkout imports
:mod:`benchmarks.speed.harness` through it.
"""

# name on the command line -> module of benchmarks.speed
BENCHMARKS = {
    "tan_letter": "tan_letter",
    "missing_letter": "missing_letter",
    "ensembles": "ensembles",
    "rmcv": "rmcv",
    "tan_width": "tan_width",
    "mdl": "mdl",
    "predict": "predict",
    "startup": "startup",
    "cold_start": "cold_start",
    "encoding": "encoding",
    "model_file": "model_file",
    "export": "export",
    "growth": "growth",
    "multilabel": "multilabel",
    "contributions": "contributions",
    "instance": "instance",
    "dask": "dask_cluster",
    "side_by_side": "side_by_side",
}
