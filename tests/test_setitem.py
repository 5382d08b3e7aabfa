"""``x[index] = value`` (chapter 7's ``ops/setitem.py``, reached from ``Tensor.__setitem__``),
without PyTorch: values against NumPy written here, PyTorch's dtype rules and errors, the
in-place rules on tensors the graph knows about (the gradients against PyTorch are in
test_torch_setitem_grad.py), and the simulated device."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from solutions import ch07_device as sp
from tests.trees import SOLUTIONS, copy_package


def test_makemore_counts_bigrams_on_an_int32_tensor() -> None:
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 4, (100, 2))
    n = sp.zeros((4, 4), dtype=sp.int32)
    for i, j in pairs.tolist():
        n[i, j] += 1
    want = np.zeros((4, 4), dtype=np.int32)
    np.add.at(want, (pairs[:, 0], pairs[:, 1]), 1)
    assert n.dtype == np.int32
    np.testing.assert_array_equal(n.numpy(), want)


def test_values_broadcast_and_take_the_tensors_dtype() -> None:
    x = sp.zeros(2, 3)
    x[:, 1:] = sp.tensor([[1.0, 2.0]])
    x[1] = 5
    assert x.tolist() == [[0.0, 1.0, 2.0], [5.0, 5.0, 5.0]] and x.dtype == np.float32
    ints = sp.zeros(3, dtype=sp.int64)
    ints[0] = 2.9  # truncated, as PyTorch converts
    ints[1:] = sp.tensor([True, True])  # a copy converts between dtypes
    assert ints.tolist() == [2, 1, 1] and ints.dtype == np.int64


def test_a_mixed_index_writes_in_pytorchs_layout() -> None:
    x = sp.zeros(2, 3, 4)
    x[0, :, [1, 2]] = sp.arange(6.0).reshape(3, 2)  # the value has x[0, :, [1, 2]]'s shape
    want = np.zeros((2, 3, 4), dtype=np.float32)
    want[0][:, [1, 2]] = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(x.numpy(), want)
    with pytest.raises(RuntimeError, match="cannot be broadcast to indexing result of shape"):
        x[0, :, [1, 2]] = sp.arange(6.0).reshape(2, 3)


def test_masks_and_int_tensors_as_index() -> None:
    x = sp.tensor(np.arange(6.0).reshape(2, 3))
    x[x > 3] = 0.0
    x[sp.tensor([0]), sp.tensor([2])] = -1.0
    assert x.tolist() == [[0.0, 1.0, -1.0], [3.0, 0.0, 0.0]]


def test_an_advanced_index_wants_the_same_dtype_as_pytorchs_index_put() -> None:
    x = sp.zeros(3)
    with pytest.raises(RuntimeError, match="source and destination dtypes match"):
        x[[0, 1]] = sp.tensor([1, 2])
    x[sp.tensor([True, False, True])] = sp.tensor(4)  # a mask alone fills: converted
    x[0:2] = sp.tensor([1, 2])  # a basic index copies: converted
    assert x.tolist() == [1.0, 2.0, 4.0]


def test_what_cannot_be_assigned() -> None:
    x = sp.zeros(3, dtype=sp.int32)
    with pytest.raises(TypeError, match="can't assign a list"):
        x[:2] = [1, 2]
    with pytest.raises(RuntimeError, match="without overflow"):
        x[0] = 2**40
    with pytest.raises(IndexError):
        x[5] = 1


def test_a_leaf_that_requires_grad_is_refused_and_the_graph_records_the_rest() -> None:
    """PyTorch's rules: a leaf that requires grad is refused in grad mode; a tensor in a
    recorded graph, or a value that requires grad, is recorded (IndexPut); under no_grad()
    any tensor is written in place."""
    w = sp.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"leaf Variable that requires grad.*no_grad"):
        w[0] = 0.0
    assert w.tolist() == [1.0, 1.0, 1.0] and w._version == 0
    h = w * 2
    h[0] = 0.0  # recorded: h becomes IndexPut's output
    assert h.tolist() == [0.0, 2.0, 2.0] and h.grad_fn.name() == "IndexPutBackward"
    assert h._version == 1 and not h.is_leaf
    (h * sp.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert w.grad.tolist() == [0.0, 4.0, 6.0]  # nothing flows through the overwritten place
    with sp.no_grad():
        h[1] = 7.0  # rule 1: written in place, counted
    assert h.tolist() == [0.0, 7.0, 2.0] and h._version == 2
    z = sp.zeros(3)
    z[1:] = w[1:] * 3  # a plain tensor takes a value that requires grad: recorded
    assert z.requires_grad and z.grad_fn is not None and z.tolist() == [0.0, 3.0, 3.0]


def test_a_recorded_assignment_on_a_tensor_with_a_view_is_refused() -> None:
    w = sp.ones(3, requires_grad=True)
    h = w * 2
    view = h[0:2]
    with pytest.raises(RuntimeError, match=r"shares its memory with a view.*clone\(\)"):
        h[0] = 5.0
    with pytest.raises(RuntimeError, match="shares its memory with a view"):
        view[0] = 5.0
    assert h.tolist() == [2.0, 2.0, 2.0] and h._version == 0
    c = h.clone()
    c[0] = 5.0  # the copy has no view
    assert c.tolist() == [5.0, 2.0, 2.0]


def test_a_leaf_that_requires_grad_changes_under_no_grad_as_in_pytorch() -> None:
    w = sp.ones(3, requires_grad=True)
    with sp.no_grad():
        w[0] = 5.0
        w[1:] = w[1:] * 3
    assert w.tolist() == [5.0, 3.0, 3.0] and w.requires_grad and w.is_leaf
    (w * w).sum().backward()
    assert w.grad.tolist() == [10.0, 6.0, 6.0]


def test_item_assignment_on_the_simulated_device() -> None:
    n = sp.zeros((3, 3), dtype=sp.int32).to("sim")
    with sp.simulated.counting() as moved:
        for i, j in [(0, 1), (0, 1), (2, 0)]:
            n[i, j] += 1
        n[1] = sp.tensor([7, 8, 9], dtype=sp.int32).to("sim")
        n[0, :, None][[2]] = 4  # into a view (basic indexing): n changes, as in PyTorch
        n[[0]][:, 0] = 6  # into a copy (advanced indexing): n does not, as in PyTorch
    assert moved.to_host == 0, moved
    assert n.device.type == "sim"
    assert n.cpu().tolist() == [[0, 2, 4], [7, 8, 9], [1, 0, 0]]
    n[2] = sp.tensor([1, 1, 1], dtype=sp.int32)  # a CPU value is copied over, as copy_ does
    assert n.cpu().tolist()[2] == [1, 1, 1]
    x = sp.zeros(2, 3).to("sim")
    x[1, :, None][[0, 2]] = 0.0  # no crash on a device's views
    x[0, [0, 2]] = sp.tensor(1.5).to("sim")
    assert x.cpu().tolist() == [[1.5, 0.0, 1.5], [0.0, 0.0, 0.0]]
    y = sp.zeros(2, 3, 4).to("sim")
    y[sp.tensor(1).to("sim"), :, [0, 3]] = 2.0  # a 0-d index on the device: read back first
    want = np.zeros((2, 3, 4))
    want[1][:, [0, 3]] = 2.0
    np.testing.assert_array_equal(y.cpu().numpy(), want)


def test_chapter_2_alone_indexes_in_pytorchs_layout_and_names_chapter_7_for_assignment(
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    (root / "chapters").mkdir(parents=True)
    (root / "chapters" / "__init__.py").write_text("")
    copy_package(SOLUTIONS / "ch02_tensor", root / "chapters" / "ch02_tensor")
    script = textwrap.dedent(
        """
        import chapters.ch02_tensor as sp
        x = sp.tensor([[[float(i) for i in range(4)]] * 3] * 2)
        assert x[0, :, [1, 2]].shape == (3, 2)
        try:
            x[0] = 1.0
        except NotImplementedError as error:
            assert "chapter 7 (ch07_device)" in str(error), error
        else:
            raise AssertionError("no error")
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "ok", done.stderr
