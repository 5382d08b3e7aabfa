"""The copies chapter 7's notebook counts in §1, §2 and §5, asserted with the functions its
cells call (the simulated device, its backend, ``move_array``, ``scatter_add``): the notebook
prints these counts and its text reads them ("exp, *, sum made no copy", "moved again: the
same array", "each is a copy back, however small"), so a change in what the simulated
device counts shows here first. Expected bytes come from the arrays' shapes and dtypes."""

from __future__ import annotations

import numpy as np

from solutions import ch07_device as sp

simulated = sp.simulated
simnumpy = simulated.simnumpy


def _counts(copies) -> tuple[int, int, int, int]:
    return (copies.to_device, copies.to_host, copies.bytes_to_device, copies.bytes_to_host)


def test_section_1_one_copy_in_none_for_the_work_one_back() -> None:
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    with simulated.counting() as copies:
        dev = simnumpy.asarray(host)
        result = simnumpy.exp(dev) * 2 + dev.sum(axis=0)
    assert _counts(copies) == (1, 0, host.nbytes, 0)  # exp, *, sum: no copy
    with simulated.counting() as copies:
        back = result.get()
    assert _counts(copies) == (0, 1, 0, back.nbytes)
    np.testing.assert_allclose(back, np.exp(host) * 2 + host.sum(axis=0), rtol=1e-6)


def test_section_1_every_number_the_host_reads_is_a_copy_back() -> None:
    dev = simnumpy.asarray(np.arange(6, dtype=np.float32))
    with simulated.counting() as copies:
        total = float(dev.sum())
        positive = bool((dev > 2).any())
    # a float32 and a bool: 4 bytes and 1 byte
    assert (total, positive) == (15.0, True)
    assert _counts(copies) == (0, 2, 0, np.dtype(np.float32).itemsize + 1)


def test_section_2_the_backend_copies_there_and_back() -> None:
    host = np.arange(6, dtype=np.float32)
    sim = sp.backends.backend_for("sim")
    with simulated.counting() as copies:
        again = sim.to_host(sim.to_device(host, 0))
    assert _counts(copies) == (1, 1, host.nbytes, host.nbytes)
    assert isinstance(again, np.ndarray) and np.array_equal(again, host)


def test_section_5_an_array_already_there_is_not_copied() -> None:
    a = np.arange(6.0)
    with simulated.counting() as copies:
        on_sim = sp.move_array(a, "sim")
        same = sp.move_array(on_sim, "sim")
        sp.move_array(on_sim, "cpu")
    assert same is on_sim
    assert _counts(copies) == (1, 1, a.nbytes, a.nbytes)
    with simulated.counting() as copies:
        assert sp.move_array(a, "cpu") is a
    assert _counts(copies) == (0, 0, 0, 0)


def test_section_5_scatter_add_moves_a_host_index_in_once_and_reads_nothing_back() -> None:
    target = simnumpy.zeros(4)
    index = np.array([0, 0, 2])
    with simulated.counting() as copies:
        sp.scatter_add(target, index, 1.0)
    # the index goes in (3 int64); the 1.0 is a Python number: no copy is counted for it here
    assert (copies.to_device, copies.to_host, copies.bytes_to_host) == (1, 0, 0)
    assert copies.bytes_to_device == index.nbytes
    assert target.get().tolist() == [2.0, 0.0, 1.0, 0.0]
