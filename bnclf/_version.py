"""The version of bnclf (one place: the package, its model files and BIF headers read it)."""

__version__ = "0.2.0"
