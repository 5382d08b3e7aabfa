"""The seed a batch is graded with: secret unless the instructor says otherwise.

The public seed's case lists and expected results are in every student's copy, so a
submission could carry them (replay stored results, answer the listed cases). A batch is
therefore graded with a secret seed by default: given (an integer, a file holding one, or
``$SPARROW_SEED``), else the one kept in the batch's seed file, else a fresh one drawn here
(64 random bits) and kept there, readable by its owner alone. ``public`` asks for the public
seed by name, with a warning. ``python -m autograder grade`` keeps ``OUT/seed.txt``; the
Gradescope zip's builder (course repository) keeps its seed beside the zip and in it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from .checking import PUBLIC_SEED

PUBLIC_WARNING = (
    "warning: grading with the public seed: its case lists and expected results are in "
    "every student's copy, so a submission could carry them; use a secret seed (the "
    "default) for grades"
)
SHORT_WARNING = (
    "warning: a short secret seed can be found by trying every value; use e.g. "
    "python -c 'import secrets; print(secrets.randbits(64))' > seed.txt"
)


def parse(text: str, where: str) -> int:
    """An integer seed, or the public seed for ``public``; a clear error otherwise."""
    text = text.strip()
    if text.lower() == "public":
        return PUBLIC_SEED
    if not text.isdigit():
        raise ValueError(f"{where} must hold a non-negative integer or 'public', not {text!r}")
    return int(text)


def given(seed: str | None, seed_file: Path | None) -> int | None:
    """The seed given as text, in a file, or in ``$SPARROW_SEED`` (in that order), or None."""
    if seed is not None:
        return parse(seed, "--seed")
    if seed_file is not None:
        if not seed_file.is_file():
            raise FileNotFoundError(f"there is no seed file {seed_file}")
        return parse(seed_file.read_text(), str(seed_file))
    env = os.environ.get("SPARROW_SEED", "")
    return parse(env, "$SPARROW_SEED") if env.strip() else None


def keep(path: Path, seed: int) -> None:
    """Write ``seed`` to ``path``, readable by its owner alone from the start (mode 0600),
    whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.unlink(missing_ok=True)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(f"{seed}\n")
    os.replace(part, path)


def batch_seed(seed: int | None, kept: Path) -> tuple[int, list[str]]:
    """The batch's seed — ``seed`` if given, else the one in ``kept``, else a fresh secret one
    written there — and what to tell the instructor about it (lines for stderr)."""
    said = []
    if seed is None and kept.is_file():
        seed = parse(kept.read_text(), str(kept))
        said.append(f"seed: the batch's secret seed, from {kept}")
    elif seed is None:
        seed = secrets.randbits(64)
        keep(kept, seed)
        said.append(
            f"seed: a fresh secret seed, kept in {kept} (yours alone: regrades reuse it; "
            "delete it to draw another; SEED=public for the public seed)"
        )
    if seed == PUBLIC_SEED:
        said.append(PUBLIC_WARNING)
    elif seed < 2**40:
        said.append(SHORT_WARNING)
    return seed, said
