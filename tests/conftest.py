import warnings

import matplotlib
import pytest

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
