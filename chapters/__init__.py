"""Sparrow's chapters: one package per chapter, each adding one layer of the framework.

``from chapters import ch01_value as sp`` gives the framework as it stands after chapter 1.

The switch: with the environment variable ``SPARROW_IMPL=solutions`` every ``chapters.*``
import loads the reference implementation from ``solutions/`` instead of these files, so one
notebook runs on either tree. The swap is this package's search path, nothing else; with
``SPARROW_IMPL`` unset (or ``chapters``) your own files are used.
"""

import os as _os
from pathlib import Path as _Path

_impl = _os.environ.get("SPARROW_IMPL", "chapters").strip() or "chapters"
if _impl == "solutions":
    _reference = _Path(__file__).resolve().parent.parent / "solutions"
    if not (_reference / "__init__.py").is_file():
        raise ImportError(
            "SPARROW_IMPL=solutions asks for the reference implementation, but there is no "
            f"solutions/ folder next to {_Path(__file__).resolve().parent} (a student release "
            "ships without it). Unset SPARROW_IMPL to use your own chapters."
        )
    __path__[:] = [str(_reference)]
elif _impl != "chapters":
    raise ImportError(f"SPARROW_IMPL must be 'chapters' or 'solutions', not {_impl!r}.")
