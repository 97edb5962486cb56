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
