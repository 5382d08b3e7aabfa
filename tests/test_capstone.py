"""The capstone (``support/capstone.py``, ``make capstone``): its plumbing, which tree it
trains on (``support/capstone_tree.py``), and, against PyTorch, the run itself.

Everywhere: a short run's ``History`` (one loss and lr per step, one entry per epoch), the
optimizers and schedules by name, the command's ``tree:`` line, and the choice of tree
(``SPARROW_IMPL`` as asked; ``chapters/`` when chapters 2–6 pass their public checks; else
``solutions/`` naming what is left; else nothing, naming what is left).
With PyTorch (skipped visibly without it): PyTorch trains the same MLP from Sparrow's
initial weights in Sparrow's batch order (the permutations the DataLoader's seeded
generator draws), Adam lr 1e-3, batch 64, 10 epochs: the same loss at every step, test
accuracies within one point of each other, both at least 90%.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from autograder.course import chapter
from solutions import ch06_optim as sp
from support import capstone, capstone_gpt, capstone_tree, text_data
from tests import trees

REPO = trees.REPO


@functools.cache
def full_run(seed: int) -> capstone.History:
    """The capstone as ``make capstone`` runs it on the reference (shared by the tests)."""
    return capstone.train(sp, seed=seed, progress=False)


# -- plumbing ---------------------------------------------------------------------------------


def test_a_short_run_records_its_history():
    h = capstone.train(sp, epochs=2, n_train=256, batch_size=64, progress=False)
    assert (h.optimizer, h.scheduler, h.seed) == ("adam", None, 0)
    assert len(h.losses) == len(h.lrs) == 2 * 4
    assert len(h.epoch_loss) == len(h.test_accuracy) == len(h.seconds) == 2
    assert h.epoch_loss[0] == pytest.approx(np.mean(h.losses[:4]))
    assert h.lrs == [1e-3] * 8
    assert all(0.0 <= a <= 1.0 for a in h.test_accuracy) and all(s > 0 for s in h.seconds)
    assert h.epoch_loss[1] < h.epoch_loss[0]
    assert h.final_accuracy == h.test_accuracy[-1] > 0.5
    assert "test accuracy after 2 epochs" in capstone.summary(h)


def test_the_same_seed_repeats_the_run_and_another_does_not():
    runs = [capstone.train(sp, epochs=1, n_train=128, seed=s, progress=False) for s in (3, 3, 4)]
    assert runs[0].losses == runs[1].losses
    assert runs[0].losses != runs[2].losses


@pytest.mark.parametrize("name", capstone.OPTIMIZERS)
def test_every_optimizer_learns(name):
    h = capstone.train(sp, optimizer=name, epochs=3, n_train=640, progress=False)
    _, kwargs = capstone.OPTIMIZERS[name]
    assert h.lrs[0] == kwargs["lr"] and type(h.model).__name__ == "Sequential"
    assert np.mean(h.losses[-3:]) < 0.5 * h.losses[0], h.losses
    assert h.final_accuracy > 0.7


@pytest.mark.parametrize("name", capstone.SCHEDULERS)
def test_schedules_step_every_batch(name):
    h = capstone.train(sp, scheduler=name, epochs=2, n_train=192, progress=False)
    assert h.scheduler == name and len(set(h.lrs)) == len(h.lrs) == 6  # a new lr each step


def test_a_custom_scheduler_and_an_lr():
    make = lambda opt, total: sp.optim.lr_scheduler.StepLR(opt, total // 2, gamma=0.5)
    h = capstone.train(sp, optimizer="sgd", lr=0.2, scheduler=make, epochs=2, n_train=128)
    assert h.scheduler == "custom" and h.lrs == [0.2, 0.2, 0.1, 0.1]


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="unknown optimizer 'lbfgs'; choose one of sgd, adam"):
        capstone.train(sp, optimizer="lbfgs", epochs=1, n_train=64)
    with pytest.raises(ValueError, match="unknown scheduler 'warm'"):
        capstone.train(sp, scheduler="warm", epochs=1, n_train=64)


# -- the command and its tree -----------------------------------------------------------------


def test_the_command_says_which_tree_it_used():
    env = trees.student_env() | {"SPARROW_IMPL": "solutions"}
    argv = [sys.executable, "-m", "support.capstone", "--epochs", "1", "--n-train", "256"]
    out = subprocess.run(
        [*argv, "--no-progress"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "tree: solutions/ (SPARROW_IMPL=solutions)"
    assert lines[1].startswith("test accuracy after 1 epoch: ")
    assert lines[2].startswith("time per epoch: ")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_capstone_passes_its_options():
    out = subprocess.run(
        ["make", "-n", "capstone", "PYTHON=python", "EPOCHS=3", "SEED=2", "OPTIMIZER=sgd"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    command = " ".join(out.stdout.replace("\\\n", " ").split())
    assert "python -m support.capstone --epochs 3 --seed 2 --optimizer sgd" in command


def fake_result(failing: list[str], total: int = 3) -> SimpleNamespace:
    """A chapter's result as ``student.check`` gives it: tasks x.1 … x.total."""
    ids = [f"x.{i + 1}" for i in range(total)]
    tasks = [
        SimpleNamespace(task=SimpleNamespace(id=i, since="1.0"), passed=i not in failing)
        for i in ids
    ]
    return SimpleNamespace(tasks=tasks)


def fake_check(failing: dict[int, list[str]]):
    return lambda ch, impl, repo: fake_result(failing.get(ch.number, []))


def choose(tmp_path, environ, check, with_solutions: bool = True):
    for ch in ("ch02_tensor", "ch03_broadcast", "ch04_backward", "ch05_nn", "ch06_optim"):
        (tmp_path / "chapters" / ch).mkdir(parents=True, exist_ok=True)
        if with_solutions:
            (tmp_path / "solutions" / ch).mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    sp_module = capstone_tree.choose_tree(environ, tmp_path, lines.append, check)
    return sp_module, "\n".join(lines)


def test_complete_chapters_are_used(tmp_path):
    module, out = choose(tmp_path, {}, fake_check({}))
    assert module.__name__ == "chapters.ch06_optim"
    assert out.startswith("tree: chapters/ (your own code: chapters 2-6 pass their public checks)")


def test_unfinished_chapters_fall_back_to_the_reference_saying_why(tmp_path):
    module, out = choose(tmp_path, {}, fake_check({3: ["x.2"], 6: ["x.1", "x.3"]}))
    assert module is sp
    assert out.splitlines()[:3] == [
        "tree: solutions/ (the reference: your chapters/ are not complete yet)",
        "  chapter 3: tasks x.2 not passing (1 of 3)",
        "  chapter 6: tasks x.1, x.3 not passing (2 of 3)",
    ]


def test_without_solutions_nothing_is_trained_and_what_is_left_is_named(tmp_path):
    module, out = choose(tmp_path, {}, fake_check({5: ["x.1"]}), with_solutions=False)
    assert module is None
    assert out.startswith("tree: none.") and "chapter 5: tasks x.1 not passing" in out


def test_a_missing_chapter_or_a_crashing_check_counts_as_unfinished(tmp_path):
    def check(ch, impl, repo):
        if ch.number == 4:
            raise RuntimeError("boom")
        return fake_result([])

    choose(tmp_path, {}, check)
    shutil.rmtree(tmp_path / "chapters" / "ch02_tensor")
    left = capstone_tree.unfinished(tmp_path, check)
    assert left == {
        2: "no chapters/ch02_tensor folder (`make update` adds it)",
        4: "could not be checked (RuntimeError: boom)",
    }


@pytest.mark.parametrize("asked", ["solutions", "chapters"])
def test_sparrow_impl_is_obeyed_unchecked(tmp_path, asked):
    def check(ch, impl, repo):
        raise AssertionError("SPARROW_IMPL set: nothing is checked")

    module, out = choose(tmp_path, {"SPARROW_IMPL": asked}, check)
    assert module.__name__ == f"{asked}.ch06_optim"
    assert out == f"tree: {asked}/ (SPARROW_IMPL={asked})"
    module, out = choose(tmp_path, {"SPARROW_IMPL": "mine"}, check)
    assert module is None and "SPARROW_IMPL must be 'chapters' or 'solutions'" in out


def test_sparrow_impl_solutions_without_the_folder_is_a_clear_error(tmp_path):
    """A student release has no solutions/: SPARROW_IMPL=solutions says so, and never
    imports another tree's reference that happens to be on the path."""
    module, out = choose(tmp_path, {"SPARROW_IMPL": "solutions"}, None, with_solutions=False)
    assert module is None
    assert out.startswith("error: SPARROW_IMPL=solutions asks for solutions/ch06_optim")


def test_the_real_checks_judge_a_tree(tmp_path):
    """Chapters 1-5 the reference, chapter 6 the starter code: only chapter 6 is left."""
    repo = trees.scratch_repo(tmp_path)
    for ch in ("ch01_value", "ch02_tensor", "ch03_broadcast", "ch04_backward", "ch05_nn"):
        shutil.rmtree(repo / "chapters" / ch)
        trees.copy_package(repo / "solutions" / ch, repo / "chapters" / ch)
    left = capstone_tree.unfinished(repo)
    assert list(left) == [6]
    tasks = len(chapter(6).tasks)
    assert left[6].startswith("tasks 6.1, 6.2, ") and f"({tasks} of {tasks})" in left[6]


def test_tasks_newer_than_the_tree_s_start_do_not_hold_it_back(tmp_path):
    """A tree started at 1.0 with every 1.0 task done is complete, though the exercises of
    a later version (5.13, 6.11, 6.12: stubs after `make update`) do not pass."""
    repo = trees.scratch_repo(tmp_path)
    for ch in ("ch01_value", "ch02_tensor", "ch03_broadcast", "ch04_backward", "ch05_nn"):
        shutil.rmtree(repo / "chapters" / ch)
        trees.copy_package(repo / "solutions" / ch, repo / "chapters" / ch)
    ch06 = repo / "chapters" / "ch06_optim"
    shutil.rmtree(ch06)
    trees.copy_package(repo / "solutions" / "ch06_optim", ch06)
    for later in [t for t in chapter(6).tasks if t.since != "1.0"]:  # back to their stubs
        for path in ch06.rglob("*.py"):
            if f"### BEGIN SOLUTION {later.id}\n" in path.read_text():
                trees.replace_region(path, later.id, f"raise NotImplementedError('{later.id}')")
    (repo / "chapters" / ".sparrow-version").write_text("1.1\n")  # started at 1.1: they count
    left = capstone_tree.unfinished(repo)
    assert list(left) == [6] and "6.11" in left[6] and "6.12" in left[6]
    (repo / "chapters" / ".sparrow-version").write_text("1.1\nstarted 1.0\n")
    assert capstone_tree.unfinished(repo) == {}
    # a schedule that is task 6.12 needs it, whatever version the tree started at
    needs = capstone.SCHEDULE_TASKS["warmup_cosine"]
    left = capstone_tree.unfinished(repo, needs=needs)
    assert list(left) == [6] and "6.12" in left[6] and "6.11" not in left[6]


# -- against PyTorch --------------------------------------------------------------------------


def initial_weights(seed: int) -> list[np.ndarray]:
    """[W1, b1, W2, b2] as ``capstone.train`` draws them (after ``manual_seed(seed)``)."""
    sp.manual_seed(seed)
    return [np.array(p.data) for p in capstone.make_model(sp).parameters()]


def batch_orders(seed: int, n: int, epochs: int) -> list[np.ndarray]:
    """The permutations the capstone's DataLoader draws from its seeded generator."""
    g = sp.Generator().manual_seed(seed)
    return [np.array(sp.randperm(n, generator=g).data) for _ in range(epochs)]


def train_torch(torch, seed: int, epochs: int = 10):
    """PyTorch's run: Sparrow's initial weights, Sparrow's batch order, Adam lr 1e-3."""
    data = capstone.mnist5k()
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
    )
    with torch.no_grad():
        for p, w in zip(model.parameters(), initial_weights(seed), strict=True):
            p.copy_(torch.from_numpy(w))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.from_numpy(data["x_train"]), torch.from_numpy(data["y_train"])
    losses = []
    for order in batch_orders(seed, len(y), epochs):
        for start in range(0, len(order), 64):
            idx = torch.from_numpy(order[start : start + 64])
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    with torch.no_grad():
        logits = model(torch.from_numpy(data["x_test"]))
    accuracy = float((logits.argmax(dim=1).numpy() == data["y_test"]).mean())
    return losses, accuracy


@pytest.mark.slow
def test_pytorch_trained_the_same_way_agrees(torch_one_thread):
    """Same weights and batches, so every step's loss agrees (float32 rounding only: 7e-7
    relative at most, measured), and the two test accuracies are within one point, both
    ≥ 90% (seeds 0-3 measured: 92.9, 92.7, 92.8, 92.0% on both sides)."""
    seed = 0
    ours = full_run(seed)
    their_losses, theirs = train_torch(torch_one_thread, seed)
    print(f"capstone test accuracy: Sparrow {ours.final_accuracy:.2%}, PyTorch {theirs:.2%}")
    assert len(their_losses) == len(ours.losses) == 10 * 63
    np.testing.assert_allclose(ours.losses, their_losses, rtol=1e-4)
    assert ours.final_accuracy >= 0.90 and theirs >= 0.90
    assert abs(ours.final_accuracy - theirs) <= 0.01


def test_the_capstone_reaches_90_percent():
    h = full_run(0)
    assert len(h.test_accuracy) == 10 and h.final_accuracy >= 0.90
    assert h.test_accuracy[-1] > h.test_accuracy[0]


# -- the CNN (make capstone MODEL=cnn; against PyTorch: tests/test_capstone_cnn.py, slow) --------


def test_a_short_cnn_run_records_its_history():
    from solutions import ch08_conv

    h = capstone.train(ch08_conv, model="cnn", epochs=1, n_train=128, progress=False)
    assert (h.architecture, h.optimizer, h.seed) == ("cnn", "adam", 0)
    assert len(h.losses) == 2 and len(h.test_accuracy) == 1 and 0.0 <= h.final_accuracy <= 1.0
    assert type(h.model[0]).__name__ == "Conv2d"
    assert "(the CNN, adam, seed 0)" in capstone.summary(h)


def test_the_cnn_is_lenet_with_relu_and_max_pooling():
    """Layer by layer as the issue writes it, and 61,706 parameters (counted by hand:
    6·25 + 6, 16·6·25 + 16, 400·120 + 120, 120·84 + 84, 84·10 + 10)."""
    from solutions import ch08_conv

    model = capstone.make_model(ch08_conv, "cnn")
    kinds = [type(m).__name__ for m in model]
    assert kinds == ["Conv2d", "ReLU", "MaxPool2d"] * 2 + ["Flatten"] + ["Linear", "ReLU"] * 2 + [
        "Linear"
    ]
    shapes = [tuple(p.shape) for p in model.parameters()]
    convs = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,)]
    assert shapes == [*convs, (120, 400), (120,), (84, 120), (84,), (10, 84), (10,)]
    assert sum(int(np.prod(s)) for s in shapes) == 61_706
    assert (model[0].padding, model[3].padding, model[2].kernel_size) == ((2, 2), (0, 0), 2)
    out = model(ch08_conv.tensor(capstone.mnist5k_images()["x_test"][:3]))
    assert tuple(out.shape) == (3, 10)


def test_the_cnn_sees_images_standardised_by_the_training_set():
    from support import datasets

    raw = datasets.load("mnist5k")
    train = raw["x_train"].reshape(len(raw["x_train"]), -1).astype(np.float64)
    mean, std = train.mean(), train.std()
    data = capstone.mnist5k_images()
    assert data["x_train"].shape == (len(train), 1, 28, 28) and data["x_train"].dtype == np.float32
    assert (
        abs(float(data["x_train"].mean())) < 1e-4 and abs(float(data["x_train"].std()) - 1) < 1e-4
    )
    test = raw["x_test"].reshape(len(raw["x_test"]), 1, 28, 28).astype(np.float64)
    np.testing.assert_allclose(data["x_test"], (test - mean) / std, rtol=1e-5, atol=1e-5)
    assert (data["y_test"] == raw["y_test"]).all()


def test_an_unknown_model_is_refused():
    with pytest.raises(ValueError, match="unknown model 'vgg'; choose one of mlp, cnn"):
        capstone.train(sp, model="vgg", epochs=1, n_train=64)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_capstone_passes_the_model():
    out = subprocess.run(
        ["make", "-n", "capstone", "PYTHON=python", "MODEL=cnn", "EPOCHS=3"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    command = " ".join(out.stdout.replace("\\\n", " ").split())
    assert "python -m support.capstone --model cnn --epochs 3" in command


def test_the_cnn_command_says_which_tree_it_used():
    env = trees.student_env() | {"SPARROW_IMPL": "solutions"}
    argv = [sys.executable, "-m", "support.capstone", "--model", "cnn", "--epochs", "1"]
    out = subprocess.run(
        [*argv, "--n-train", "128", "--no-progress"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "tree: solutions/ (SPARROW_IMPL=solutions)"
    assert lines[1].startswith("test accuracy after 1 epoch: ")
    assert lines[1].endswith("% (the CNN, adam, seed 0)")


def cnn_check(failing: dict[int, list[str]], since: dict[int, str]):
    """Chapters' results with their real task ids, each task of chapter n arrived in
    ``since[n]`` (1.0 unless named); the ids in ``failing[n]`` do not pass."""

    def check(ch, impl, repo):
        tasks = [
            SimpleNamespace(
                task=SimpleNamespace(id=t.id, since=since.get(ch.number, "1.0")),
                passed=t.id not in failing.get(ch.number, []),
            )
            for t in ch.tasks
        ]
        return SimpleNamespace(tasks=tasks)

    return check


def choose_cnn(tmp_path, check, environ=None):
    for number in range(2, 9):
        package = chapter(number).package
        (tmp_path / "chapters" / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / "solutions" / package).mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    module = capstone_tree.choose_tree(environ or {}, tmp_path, lines.append, check, model="cnn")
    return module, "\n".join(lines)


def test_the_cnn_trains_on_chapters_2_to_8_once_they_pass(tmp_path):
    module, out = choose_cnn(tmp_path, cnn_check({}, {}))
    assert module.__name__ == "chapters.ch08_conv"
    assert out == "tree: chapters/ (your own code: chapters 2-8 pass their public checks)"


def test_the_cnn_needs_every_task_of_chapter_8_whatever_the_tree_s_version(tmp_path):
    """A tree started at 1.0 (no .sparrow-version here): chapter 8's tasks (1.2) count, as
    the CNN calls them all; a chapter-7 task newer than the tree does not hold it back."""
    from solutions import ch08_conv

    ids8 = [t.id for t in chapter(8).tasks]
    ids7 = [t.id for t in chapter(7).tasks]
    check = cnn_check({7: ids7[:1], 8: ids8[2:4]}, {7: "1.2", 8: "1.2"})
    module, out = choose_cnn(tmp_path, check)
    assert module is ch08_conv
    assert out.splitlines() == [
        "tree: solutions/ (the reference: your chapters/ are not complete yet)",
        f"  chapter 8: tasks {ids8[2]}, {ids8[3]} not passing (2 of {len(ids8)})",
        "  `make capstone MODEL=cnn` trains on your own chapters once every task of chapters "
        "2-8 passes (`make progress`).",
    ]
    # the MLP's rule on the same tree: chapters 2-6 only, and chapter 8 is not its business
    assert capstone_tree.unfinished(tmp_path, check) == {}


def test_sparrow_impl_picks_the_cnn_s_package(tmp_path):
    module, out = choose_cnn(tmp_path, None, {"SPARROW_IMPL": "solutions"})
    assert module.__name__ == "solutions.ch08_conv"
    assert out == "tree: solutions/ (SPARROW_IMPL=solutions)"
    shutil.rmtree(tmp_path / "solutions" / "ch08_conv")
    lines: list[str] = []
    environ = {"SPARROW_IMPL": "solutions"}
    module = capstone_tree.choose_tree(environ, tmp_path, lines.append, None, model="cnn")
    assert module is None
    assert lines[0].startswith("error: SPARROW_IMPL=solutions asks for solutions/ch08_conv")


# -- the GPT (make capstone MODEL=gpt; against PyTorch: tests/test_capstone_gpt.py, slow) ------

TINY_GPT = dict(n_layer=1, n_head=2, n_embd=16, block_size=16, dropout=0.0)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_capstone_passes_the_gpt_s_steps():
    out = subprocess.run(
        ["make", "-n", "capstone", "PYTHON=python", "MODEL=gpt", "STEPS=7", "SEED=2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    command = " ".join(out.stdout.replace("\\\n", " ").split())
    assert "python -m support.capstone --model gpt --seed 2 --steps 7" in command


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "gpt", "--epochs", "2"], "takes --steps and --seed, not --epochs"),
        (["--model", "gpt", "--optimizer", "sgd", "--lr", "0.1"], "not --optimizer, --lr"),
        (["--steps", "5"], "--steps is for --model gpt"),
    ],
)
def test_the_gpt_s_options_and_the_others_are_not_mixed(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        capstone.main(argv)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def choose_gpt(tmp_path, check):
    for number in range(2, 10):
        package = chapter(number).package
        (tmp_path / "chapters" / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / "solutions" / package).mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    module = capstone_tree.choose_tree({}, tmp_path, lines.append, check, model="gpt")
    return module, "\n".join(lines)


def test_the_gpt_trains_on_chapters_2_to_9_once_they_pass(tmp_path):
    module, out = choose_gpt(tmp_path, cnn_check({}, {}))
    assert module.__name__ == "chapters.ch09_attention"
    assert out == "tree: chapters/ (your own code: chapters 2-9 pass their public checks)"


def test_the_gpt_needs_every_task_of_chapter_9_and_warmup_cosine(tmp_path):
    """A tree started at 1.0: chapter 9's tasks (1.3) count, and so does 6.12 (1.1), the
    GPT's schedule; a chapter-8 task newer than the tree does not hold it back."""
    from solutions import ch09_attention

    ids9 = [t.id for t in chapter(9).tasks]
    ids8 = [t.id for t in chapter(8).tasks]
    check = cnn_check({6: ["6.12"], 8: ids8[:1], 9: ids9[-1:]}, {6: "1.1", 8: "1.2", 9: "1.3"})
    lines: list[str] = []
    for number in range(2, 10):
        (tmp_path / "chapters" / chapter(number).package).mkdir(parents=True, exist_ok=True)
        (tmp_path / "solutions" / chapter(number).package).mkdir(parents=True, exist_ok=True)
    module = capstone_tree.choose_tree(
        {}, tmp_path, lines.append, check, needs=capstone_gpt.SCHEDULE_TASKS, model="gpt"
    )
    assert module is ch09_attention
    assert lines[0].splitlines() == [
        "tree: solutions/ (the reference: your chapters/ are not complete yet)",
        "  chapter 6: tasks 6.12 not passing (1 of 1)",  # the only 1.1 task this run needs
        f"  chapter 9: tasks {ids9[-1]} not passing (1 of {len(ids9)})",
        "  `make capstone MODEL=gpt` trains on your own chapters once every task of chapters "
        "2-9 passes (`make progress`).",
    ]


def test_validation_windows_cover_the_text_in_order():
    val = np.arange(50, dtype=np.int64)
    x, y = capstone_gpt.validation_windows(val, 8)
    assert x.shape == y.shape == (6, 8)  # (50 - 1) // 8 windows
    assert np.array_equal(x.reshape(-1), np.arange(48)) and np.array_equal(y, x + 1)


def test_weight_decay_only_on_matrices_and_embeddings():
    from solutions import ch09_attention as sp9

    model = sp9.GPT(20, **TINY_GPT)
    opt = capstone_gpt.make_optimizer(sp9, model)
    decay, rest = opt.param_groups
    named = dict(model.named_parameters())
    ids = {id(p): name for name, p in named.items()}
    assert (decay["weight_decay"], rest["weight_decay"]) == (capstone_gpt.WEIGHT_DECAY, 0.0)
    decayed = sorted(ids[id(p)] for p in decay["params"])
    assert decayed == sorted(name for name, p in named.items() if len(p.shape) == 2)
    assert "token_embedding.weight" in decayed and "blocks.0.norm1.weight" not in decayed
    assert len(decay["params"]) + len(rest["params"]) == len(named)


def test_a_short_gpt_run_records_its_history():
    from solutions import ch09_attention as sp9

    run = dict(steps=4, config=TINY_GPT, progress=False, eval_every=2, sample_chars=40)
    h = capstone_gpt.train(sp9, **run)
    assert len(h.losses) == len(h.lrs) == 4 and h.tokens == 4 * capstone_gpt.BATCH_SIZE * 16
    # warmup_cosine(1, 4): 0.1·lr at step 0, then (1 + cos(π (t − 1)/3))/2 · lr
    lr = capstone_gpt.LR
    expected = [0.1 * lr] + [lr * (1 + np.cos(np.pi * (t - 1) / 3)) / 2 for t in (1, 2, 3)]
    np.testing.assert_allclose(h.lrs, expected, rtol=1e-12)
    assert sorted(h.val_losses) == [0, 2, 4] and h.final_val_loss == h.val_losses[4]
    assert abs(h.val_losses[0] - np.log(77)) < 0.05  # N(0, 0.02) weights: near uniform
    assert h.val_losses[4] < h.val_losses[0]
    chars = set(text_data.corpus().vocab.chars)
    for when in ("before", "after"):
        text = h.samples[when]
        assert len(text) == 40 and set(text) <= chars
    again = capstone_gpt.train(sp9, **{**run, "eval_every": None})
    assert again.losses == h.losses and again.samples == h.samples
