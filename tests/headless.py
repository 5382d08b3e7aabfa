"""Pictures drawn in tests without a display: matplotlib on Agg, every figure closed after
each test, and ``plt.show`` refused (the plotting helpers return figures; the notebooks
show them). A test module uses it with ``from tests.headless import headless_figures``
(an autouse fixture: importing it is enough); ``renders(fig)`` asserts a figure draws."""

from __future__ import annotations

import io

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # before pyplot: no windows, no display needed
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def headless_figures(monkeypatch: pytest.MonkeyPatch):
    """No plt.show from a helper; no figure left open after the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a helper called plt.show()")

    monkeypatch.setattr(plt, "show", refuse)
    yield
    plt.close("all")


def renders(fig) -> None:
    """The figure draws to PNG bytes on the Agg canvas (no display)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(b"\x89PNG")
