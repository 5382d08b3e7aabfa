"""Sparrow's chapters: one package per chapter, each adding one layer of the framework.

``from chapters import ch01_value as sp`` gives the framework as it stands after chapter 1.

This is the student release's copy of the package, and it holds only your own chapters. The
course repository has a switch, ``SPARROW_IMPL``, that loads its reference implementation in
their place; the release ships no reference, so here the switch does not exist:
``SPARROW_IMPL`` unset or ``chapters`` uses your files, and any other value raises
ImportError rather than running something other than what you wrote.
"""

import os as _os

_impl = _os.environ.get("SPARROW_IMPL", "chapters").strip() or "chapters"
if _impl == "solutions":
    raise ImportError(
        f"SPARROW_IMPL={_impl} asks for the reference implementation, which only the course "
        "repository has: this release has only your own chapters. Unset SPARROW_IMPL to use "
        "them."
    )
if _impl != "chapters":
    raise ImportError(
        f"SPARROW_IMPL={_impl!r} means nothing in this release, which has only your own "
        "chapters: unset it, or set it to 'chapters'."
    )
