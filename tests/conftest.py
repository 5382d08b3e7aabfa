"""Shared test settings.

Hypothesis runs derandomized and without an example database, so every run (a student's,
CI's) draws the same examples and a failure reproduces exactly.

Instructor mode's confinements depend on the machine: ``bubblewrap`` needs ``bwrap`` and a
kernel that lets it start a sandbox, the fallback's drop to uid 65534 needs root and an
interpreter uid 65534 can reach. A test that needs one asks for it here and skips, saying
why, where the machine cannot have it (a fresh laptop, a CI image without bubblewrap).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable

import pytest
from hypothesis import settings

settings.register_profile(
    "sparrow", derandomize=True, database=None, deadline=None, max_examples=60
)
settings.load_profile("sparrow")


@pytest.fixture
def torch_one_thread():
    """PyTorch (skipped, saying so, where it is not installed) on one thread for the test: its
    thread pool on this course's small arrays, on a busy machine, makes a run several times
    slower, and the speed comparisons are at one thread on both sides."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


@pytest.fixture
def bubblewrap():
    """The bubblewrap confinement, or a visible skip naming why this machine has none."""
    from autograder import sandbox

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap; .ci/run does)")
    try:
        return sandbox.confinement("bubblewrap")
    except RuntimeError as exc:
        pytest.skip(f"bubblewrap cannot start here: {exc}")


@pytest.fixture
def auto_refusal() -> str:
    """Why ``grade`` with its default ``--confinement auto`` refuses to grade on this
    machine (no bubblewrap and no drop to another user), or "" where it grades."""
    from autograder.grade_command import _confinement

    try:
        _confinement("auto")
        return ""
    except RuntimeError as exc:
        return str(exc)


@pytest.fixture
def grade_args(auto_refusal: str) -> list[str]:
    """The confinement an instructor on this machine gives ``grade``: the default where
    ``auto`` confines, else ``--confinement fallback``, as the refusal tells them to."""
    return ["--confinement", "fallback"] if auto_refusal else []


def pytest_configure(config: pytest.Config) -> None:
    """A marker per chapter of the course (``pytest -m ch05``), registered from its map."""
    from autograder.course import CHAPTERS

    for c in CHAPTERS:
        config.addinivalue_line("markers", f"ch{c.number:02d}: chapter {c.number}'s tests")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A marker per chapter, ``pytest -m ch05``: every test whose file or parameters name
    the chapter (test_checks_ch05.py, "ch05-held-out:…"), or whose parameters are a chapter
    (a ``Chapter``, or a chapter's number as ``number`` or ``chapter``)."""
    from autograder.course import Chapter

    for item in items:
        numbers = {int(n) for n in re.findall(r"ch(\d\d)", item.nodeid)}
        params = getattr(getattr(item, "callspec", None), "params", {})
        for name, value in params.items():
            if isinstance(value, Chapter):
                numbers.add(value.number)
            elif name in ("number", "chapter") and type(value) is int:
                numbers.add(value)
        for number in sorted(numbers):
            item.add_marker(f"ch{number:02d}")


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Callable:
    """``outcomes(variant_set)``: the set's results by variant name (tests/variants/),
    checked once a session, two at a time."""
    from autograder.course import chapter
    from tests.trees import check_held_out, check_variants

    done: dict[str, dict] = {}

    def of(s) -> dict:
        if s.id not in done:
            root = tmp_path_factory.mktemp(s.id)
            if s.kind == "held out":
                hidden = f"autograder.hidden.{chapter(s.chapter).package}"
                done[s.id] = check_held_out(
                    s.chapter, hidden, list(s.broken), list(s.correct), list(s.holes), root
                )
            else:
                done[s.id] = check_variants(s.chapter, [*s.broken, *s.correct], root)
        return done[s.id]

    return of
