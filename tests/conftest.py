import warnings

import matplotlib
import pytest
from hypothesis import settings

# property tests keep no example database in the repository
settings.register_profile("bnclf", database=None)
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
