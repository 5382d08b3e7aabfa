"""Chapter 7's everyday operations (``solutions/ch07_device/ops/``), without PyTorch: what
they compute and the errors they raise, on the CPU and on the simulated device; chapter 2
without chapter 7 (the methods' seams name chapter 7); and the checks of tasks 7.7
(``gather``) and 7.8 (``cat``/``stack``): the reference scores every point, fresh stubs
none, and each plausible mistake fails its own task only, with words that name it.
(``tests/test_torch_ops_ch07.py`` compares every op with PyTorch.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from autograder.checking import check_chapter
from autograder.course import chapter
from autograder.runner import Limits
from autograder.status import Status
from solutions import ch07_device as sp
from tests.trees import (
    SOLUTIONS,
    assert_fails_its_task_only,
    broken_package,
    composite,
    copy_package,
    statuses,
    write_stubs,
)

PUBLIC = "autograder.checks.ch07_device.ops"
HIDDEN = "autograder.hidden.ch07_device.ops"
TASKS = ["7.7", "7.8"]


def leaf(data, dtype=np.float64):
    return sp.Tensor(np.array(data, dtype=dtype), requires_grad=True)


# -- the operations ---------------------------------------------------------------------------


def test_gather_picks_along_dim_and_scatter_adds_back() -> None:
    x = leaf(np.arange(12.0).reshape(3, 4))
    index = sp.tensor([[0, 0, 2, 1], [1, 1, 1, 1]])
    out = sp.gather(x, 0, index)
    assert out.tolist() == [[0.0, 1.0, 10.0, 7.0], [4.0, 5.0, 6.0, 7.0]]
    assert x.gather(0, index).tolist() == out.tolist()  # the method, through its seam
    out.backward(sp.ones_like(out))
    assert x.grad.tolist() == [[1, 1, 0, 0], [1, 1, 1, 2], [0, 0, 1, 0]]  # repeats add up


def test_gather_index_may_be_smaller_on_the_other_axes() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    index = np.array([[[3, 0, 1, 1, 2]]])  # (1, 1, 5) against (2, 3, 4), dim 2
    out = sp.gather(sp.tensor(x), 2, sp.tensor(index))
    assert out.shape == (1, 1, 5) and out.tolist() == [[[3.0, 0.0, 1.0, 1.0, 2.0]]]


@pytest.mark.parametrize(
    ("x", "dim", "index", "error", "words"),
    [
        (np.ones((2, 3)), 0, np.zeros((2, 3), dtype=np.int8), RuntimeError, "int64"),
        (np.ones((2, 3)), 0, np.zeros(3, dtype=np.int64), RuntimeError, "number of dimensions"),
        (np.ones((2, 3)), 1, np.full((2, 1), 3), RuntimeError, "out of bounds"),
        (np.ones((2, 3)), 1, np.full((2, 1), -1), RuntimeError, "out of bounds"),
        (np.ones((2, 3)), 1, np.zeros((3, 1), dtype=np.int64), RuntimeError, "Size does not"),
        (np.ones((2, 3)), 2, np.zeros((2, 1), dtype=np.int64), IndexError, "out of range"),
    ],
)
def test_gather_errors(x, dim, index, error, words) -> None:
    with pytest.raises(error, match=words):
        sp.gather(sp.tensor(x), dim, sp.tensor(index))


def test_gather_of_0d_tensors() -> None:
    out = sp.gather(sp.tensor(5.0), 0, sp.tensor(0))
    assert out.shape == () and out.item() == 5.0


def test_cat_and_stack_split_the_gradient() -> None:
    a, b = leaf(np.ones((2, 3))), leaf(np.ones((2, 1)))
    out = sp.cat([a, b], dim=1)
    assert out.shape == (2, 4)
    (out * sp.tensor(np.arange(8.0).reshape(2, 4))).sum().backward()
    assert a.grad.tolist() == [[0, 1, 2], [4, 5, 6]] and b.grad.tolist() == [[3], [7]]
    c, d = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    s = sp.stack([c, d], dim=1)
    assert s.tolist() == [[1, 3], [2, 4]]
    (s * sp.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert c.grad.tolist() == [1, 3] and d.grad.tolist() == [2, 4]


def test_cat_promotes_dtypes() -> None:
    out = sp.cat([sp.tensor([1, 2]), sp.tensor([0.5], dtype=sp.float64)])
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 0.5]


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: sp.cat([]), ValueError, "non-empty list"),
        (lambda: sp.cat([sp.ones(2, 3), sp.ones(2)]), RuntimeError, "same number of dim"),
        (lambda: sp.cat([sp.ones(2, 3), sp.ones(3, 3)], 1), RuntimeError, "Sizes of tensors"),
        (lambda: sp.cat([sp.tensor(1.0)]), RuntimeError, "zero-dimensional"),
        (lambda: sp.cat([sp.ones(2)], 1), IndexError, "out of range"),
        (lambda: sp.cat(sp.ones(2)), TypeError, "list or tuple"),
        (lambda: sp.cat([sp.ones(2), 3]), TypeError, "element 1"),
        (lambda: sp.stack([]), RuntimeError, "non-empty TensorList"),
        (lambda: sp.stack([sp.ones(2), sp.ones(3)]), RuntimeError, "equal size"),
        (lambda: sp.stack([sp.ones(2)], 2), IndexError, "out of range"),
    ],
)
def test_cat_and_stack_errors(call, error, words) -> None:
    with pytest.raises(error, match=words):
        call()


def test_where_clamp_min_flatten_var() -> None:
    x = leaf([[-2.0, 0.5, 3.0], [1.0, -1.0, 2.0]])
    assert sp.where(x > 0, x, 0.0).tolist() == [[0, 0.5, 3], [1, 0, 2]]
    assert x.where(x > 0, -x).tolist() == [[2, 0.5, 3], [1, 1, 2]]
    assert sp.where(sp.tensor([True, False]), 1.0, 0.0).dtype == np.float32
    assert x.clamp(-1, 1).tolist() == [[-1, 0.5, 1], [1, -1, 1]]
    assert x.clip(max=0).tolist() == [[-2, 0, 0], [0, -1, 0]]
    assert x.min().item() == -2.0 and x.argmin().item() == 0
    values, indices = x.min(1)
    assert values.tolist() == [-2, -1] and indices.tolist() == [0, 1]
    assert sp.flatten(sp.ones(2, 3, 4), 1).shape == (2, 12)
    assert sp.ones(2, 3, 4).flatten(0, 1).shape == (6, 4) and sp.tensor(1.0).flatten().shape == (1,)
    assert x.var().item() == pytest.approx(np.var(x.detach().numpy(), ddof=1))
    assert x.std(1, unbiased=False).tolist() == pytest.approx(np.std(x.tolist(), axis=1))
    assert x.var(correction=0, dim=(0, 1), keepdim=True).shape == (1, 1)


def test_gradients_of_where_clamp_and_min() -> None:
    x = leaf([-2.0, 0.5, 3.0, 0.5])
    (sp.where(x > 0, x * 2, x * 3).sum() + x.clamp(-1, 1).sum() + x.min()).backward()
    assert x.grad.tolist() == [3 + 0 + 1, 2 + 1, 2 + 0, 2 + 1]


def test_errors_of_the_everyday_ops() -> None:
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        sp.ones(2).clamp()
    with pytest.raises(RuntimeError, match="boolean tensor"):
        sp.where(sp.tensor([1, 0]), sp.ones(2), sp.zeros(2))
    with pytest.raises(RuntimeError, match="do not broadcast"):
        sp.where(sp.tensor([True, False]), sp.ones(3), 0.0)
    with pytest.raises(RuntimeError, match="floating point"):
        sp.tensor([1, 2]).var()
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        sp.ones(2, 3).flatten(1, 0)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert np.isnan(sp.tensor([1.0]).var().item())


def test_casts_and_module_level_forms() -> None:
    x = leaf([[1.5, -2.5], [0.25, 4.0]])
    assert x.long().dtype == np.int64 and not x.long().requires_grad
    assert x.int().dtype == np.int32 and x.bool().dtype == np.bool_
    assert x.half().dtype == np.float16 and x.to(sp.long).tolist() == [[1, -2], [0, 4]]
    assert sp.sum(x, 1).tolist() == [-1.0, 4.25] and sp.mean(x).item() == pytest.approx(0.8125)
    assert sp.max(x, 0).indices.tolist() == [0, 1] and sp.argmax(x).item() == 3
    assert sp.tanh(x).tolist() == x.tanh().tolist() and sp.numel(x) == 4
    assert sp.reshape(x, (4,)).shape == (4,) and sp.permute(x, (1, 0)).shape == (2, 2)
    assert sp.softmax(x, 1).sum(1).tolist() == pytest.approx([1, 1])
    assert x.log_softmax(-1).exp().sum(-1).tolist() == pytest.approx([1, 1])
    array = np.zeros(3)
    shared = sp.from_numpy(array)
    array[0] = 7.0
    assert shared.tolist() == [7.0, 0.0, 0.0]


def test_the_ops_run_on_the_simulated_device_without_copies_back() -> None:
    x = np.arange(12.0).reshape(3, 4)
    index = np.array([[2, 0, 1, 1], [0, 0, 0, 2]])
    on_cpu = leaf(x)
    on_sim = sp.tensor(x, dtype=sp.float64).to("sim").requires_grad_()
    idx_sim = sp.tensor(index).to("sim")

    def run(t, idx):
        out = sp.gather(t, 0, idx).sum() + sp.cat([t, t * 2], 1).var()
        out = out + sp.stack([t, t], 0).std() + sp.where(t > 3, t, 0.0).sum()
        out = out + t.clamp(1, 6).sum() + t.min() + t.min(1).values.sum()
        out.backward()
        return out

    want = run(on_cpu, sp.tensor(index))
    with sp.simulated.counting() as moved:
        got = run(on_sim, idx_sim)
    assert got.device.type == "sim" and on_sim.grad.device.type == "sim"
    assert moved.to_host == 0, moved  # (numbers such as the 2 in t * 2 go to the device)
    assert got.cpu().item() == pytest.approx(want.item(), rel=1e-12)
    np.testing.assert_allclose(on_sim.grad.cpu().numpy(), on_cpu.grad.numpy(), rtol=1e-12)


def test_chapter_2_without_chapter_7_names_it(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "chapters").mkdir(parents=True)
    (root / "chapters" / "__init__.py").write_text("")
    copy_package(SOLUTIONS / "ch02_tensor", root / "chapters" / "ch02_tensor")
    script = textwrap.dedent(
        """
        import chapters.ch02_tensor as sp
        x = sp.tensor([[1.0, 2.0]])
        assert x.long().tolist() == [[1, 2]] and x.double().dtype == sp.float64
        for call in (lambda: x.gather(1, sp.tensor([[0]])), lambda: x.min(), x.flatten):
            try:
                call()
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


# -- the checks of tasks 7.7 and 7.8 -----------------------------------------------------------


def run(package: Path, *, hidden: bool = True):
    return check_chapter(
        chapter(7),
        composite(7, package),
        check_modules=[PUBLIC],
        hidden_modules=[HIDDEN] if hidden else [],
        task_ids=TASKS,
        limits=Limits(cpu_per_check=10.0),
    )


def test_the_reference_scores_every_point() -> None:
    result = run(SOLUTIONS / "ch07_device")
    assert [(t.task.id, t.status, t.points) for t in result.tasks] == [
        ("7.7", Status.PASSED, 15),
        ("7.8", Status.PASSED, 10),
    ]


def test_fresh_stubs_score_nothing(tmp_path: Path) -> None:
    stubs = write_stubs(tmp_path)
    result = run(stubs / "ch07_device")
    assert statuses(result) == {"7.7": Status.NOT_STARTED, "7.8": Status.NOT_STARTED}
    assert result.points == 0


def test_the_reference_with_these_two_tasks_stubbed_still_works(tmp_path: Path) -> None:
    """Stubs of 7.7 and 7.8 (the generated ops/ in the reference) break nothing else: the
    package imports, its given operations and the device layer work, and the two tasks are
    "not started"."""
    stubs = write_stubs(tmp_path / "stubs")
    package = copy_package(SOLUTIONS / "ch07_device", tmp_path / "tree" / "ch07_device")
    shutil.rmtree(package / "ops")
    shutil.copytree(stubs / "ch07_device" / "ops", package / "ops")
    result = run(package, hidden=False)
    assert statuses(result) == {"7.7": Status.NOT_STARTED, "7.8": Status.NOT_STARTED}
    (tmp_path / "tree" / "__init__.py").write_text("")
    for name in ("ch02_tensor", "ch03_broadcast", "ch04_backward", "ch05_nn", "ch06_optim"):
        copy_package(SOLUTIONS / name, tmp_path / "tree" / name)
    script = textwrap.dedent(
        """
        import tree as root
        from tree import ch07_device as sp
        x = sp.tensor([[1.0, -2.0]]).to("sim").requires_grad_()
        (sp.where(x > 0, x, 0.0).sum() + x.clamp(0, 1).sum() + x.min()).backward()
        assert x.grad.cpu().tolist() == [[2.0, 1.0]], x.grad
        try:
            sp.cat([x, x])
        except NotImplementedError as error:
            assert "Task 7.8" in str(error)
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_the_two_tasks_do_not_lean_on_the_device_layer(tmp_path: Path) -> None:
    """7.7 and 7.8 pass with the device layer's tasks (7.1–7.6) all stubs: on the CPU the
    scatter-add and the array namespace are chapter 2's."""
    stubs = write_stubs(tmp_path / "stubs")
    package = copy_package(stubs / "ch07_device", tmp_path / "tree" / "ch07_device")
    shutil.rmtree(package / "ops")
    shutil.copytree(SOLUTIONS / "ch07_device" / "ops", package / "ops")
    result = run(package)
    assert statuses(result) == {"7.7": Status.PASSED, "7.8": Status.PASSED}


GATHER, CAT = "ops/gather.py", "ops/cat.py"
SCATTER = "        scatter_add(out, positions(index, dim), g.data)\n"
GATHER_BACK = (
    "        return GatherGradient.apply(grad_output, ctx.shape, ctx.dim, ctx.index), None\n"
)
PIECE = "            pieces.append(grad_output[(*before, slice(start, start + n))])\n"
GATHER_FORWARD = (
    "        return array_module(a.data).take_along_axis(a.data, index.data, axis=dim)\n"
)

VARIANTS = [
    (
        "gather's backward assigns",
        GATHER,
        (SCATTER, "        out[positions(index, dim)] = g.data\n"),
        "7.7",
        "the backward assigns",
    ),
    (
        "gather's forward along axis 0",
        GATHER,
        ("index.data, axis=dim)", "index.data, axis=0)"),
        "7.7",
        "",
    ),
    (
        "gather's aranges not shaped to their axis",
        GATHER,
        (
            "            where.append(xp.arange(n).reshape(shape))\n",
            "            where.append(xp.arange(n))\n",
        ),
        "7.7",
        "backward",
    ),
    (
        "gather's backward is a bare array",
        GATHER,
        (
            GATHER_BACK,
            "        g = GatherGradient.forward(Context(), grad_output, ctx.shape, ctx.dim, "
            "ctx.index)\n        return Tensor._from_array(g), None\n",
        ),
        "7.7",
        "the gradient's gradient failed",
    ),
    (
        "cat's backward gives every input the whole gradient",
        CAT,
        (PIECE, "            pieces.append(grad_output)\n"),
        "7.8",
        "not the whole of ∂L/∂out",
    ),
    (
        "cat's backward cuts every piece from offset 0",
        CAT,
        (PIECE, "            pieces.append(grad_output[(*before, slice(0, n))])\n"),
        "7.8",
        "offset 0",
    ),
    (
        "cat's backward splits along axis 0",
        CAT,
        ("        before = (slice(None),) * ctx.dim", "        before = ()"),
        "7.8",
        "cut along dim 1",
    ),
    (
        "cat's backward is bare arrays",
        CAT,
        (
            PIECE,
            "            pieces.append(Tensor._from_array(grad_output.data[(*before, "
            "slice(start, start + n))]))\n",
        ),
        "7.8",
        "the gradient's gradient failed",
    ),
    (
        "cat's backward picks its pieces with lists of positions",
        CAT,
        (
            PIECE,
            "            pieces.append(grad_output[(*before, list(range(start, start + n)))])\n",
        ),
        "7.8",
        "the backward made 3 host → device copies, expected 0",
    ),
    (
        "gather's forward checks the index's bounds on every device",
        GATHER,
        (
            GATHER_FORWARD,
            "        if int(index.data.max()) >= a.shape[dim]:\n"
            '            raise IndexError("gather: an index is out of range")\n' + GATHER_FORWARD,
        ),
        "7.7",
        "the forward made 1 device → host copy, expected 0",
    ),
    (
        "stack unsqueezes at 0 whatever dim",
        CAT,
        ("t.unsqueeze(dim) for t", "t.unsqueeze(0) for t"),
        "7.8",
        "",
    ),
]


@pytest.mark.parametrize(
    ("name", "file", "edit", "task", "words"), VARIANTS, ids=[v[0] for v in VARIANTS]
)
def test_a_mistake_fails_its_own_task_only(
    tmp_path: Path, name: str, file: str, edit: tuple, task: str, words: str
) -> None:
    result = run(broken_package(7, tmp_path, file, edit, task), hidden=False)
    assert_fails_its_task_only(result, task)
    problem = next(t for t in result.tasks if t.task.id == task).first_problem
    assert words in problem.message, problem.message
