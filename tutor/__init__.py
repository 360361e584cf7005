"""The Transformer math tutor: predict what a real model computes, then see the tensor."""

from pathlib import Path as _Path

__version__ = "0.1.0"

# Installed, model/, lessons/ and docs/ live inside this package (tutor.model, tutor.lessons, tutor.docs:
# see pyproject.toml). In a clone they sit beside tutor/, and a clone's own tutor/ shadows the installed
# package whenever Python runs from the clone's root (``python -m tutor``, a bench script): adding the
# clone's root to the package path lets ``tutor.model`` resolve there too, so a checkout works as it stands.
_here = _Path(__file__).resolve().parent
if not (_here / "model").is_dir() and (_here.parent / "model" / "gpt.py").is_file():
    __path__.append(str(_here.parent))  # noqa: F821 (a package's __path__)
del _here, _Path
