"""The course's capstone: an MLP (or, ``--model cnn``, a CNN) on MNIST-5k, trained the way a
PyTorch user trains one; ``--model gpt`` is chapter 9's character-level GPT, whose run is
``support.capstone_gpt``'s (``--steps``, ``--seed``).

    model      mlp (the default, chapters 2-6): Linear(784, 128) → ReLU → Linear(128, 10)
               cnn (chapter 8): LeNet-5 with ReLU and max-pooling, 61,706 parameters:
                 Conv2d(1, 6, 5, padding=2) → ReLU → MaxPool2d(2)      6 × 14 × 14
                 Conv2d(6, 16, 5) → ReLU → MaxPool2d(2)                16 × 5 × 5
                 Flatten → Linear(400, 120) → ReLU → Linear(120, 84) → ReLU → Linear(84, 10)
               either initialised after manual_seed(seed)
    data       support.datasets.load("mnist5k"): 4,000 train / 1,000 test. The MLP sees
               pixels in [0, 1], each image flattened to 784 numbers; the CNN sees images
               (N, 1, 28, 28) standardised, (x − mean) / std with the training set's mean
               and std (one number each: one channel), as ``transforms.Normalize`` does
    loader     DataLoader(batch_size=64, shuffle=True, generator=Generator().manual_seed(seed))
    loss       cross_entropy(model(x), y)
    optimizer  Adam(lr=1e-3) (or any of OPTIMIZERS), 10 epochs
    schedule   none: a constant lr (or any of SCHEDULERS: ``--scheduler warmup_cosine``,
               ``make capstone SCHEDULE=warmup_cosine``, is task 6.12's)

Every step is the four lines of every PyTorch loop: ``optimizer.zero_grad()``, the loss,
``loss.backward()``, ``optimizer.step()`` (then ``scheduler.step()`` when there is one,
after every batch). ``train(sp)`` runs it on the framework module ``sp``
(``chapters.ch06_optim`` for your own code; in the course repository, its reference's
package too) and returns a ``History`` (``train(sp, model="cnn")`` needs ``sp`` from chapter 8,
``chapters.ch08_conv``); ``python -m support.capstone`` (``make capstone``, ``make capstone
MODEL=cnn``) picks the tree (see ``support.capstone_tree``) and prints the test accuracy and
the time per epoch.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm  # the text bar (tqdm.auto wants ipywidgets in a notebook)

from support import datasets

SIZES = (784, 128, 10)
MODELS = ("mlp", "cnn")  # the first is the default

# name → (optimizer class name in sp.optim, its keyword arguments); lr is the default rate
OPTIMIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "sgd": ("SGD", {"lr": 0.05, "momentum": 0.9}),
    "adam": ("Adam", {"lr": 1e-3}),
    "adamw": ("AdamW", {"lr": 1e-3, "weight_decay": 1e-2}),
    "rmsprop": ("RMSprop", {"lr": 1e-3}),
    "adagrad": ("Adagrad", {"lr": 0.05}),
}

# a schedule that is a task of its own: your tree must pass it to train with it
SCHEDULE_TASKS = {"warmup_cosine": ("6.12",)}

# name → scheduler made from (sp, optimizer, total_steps); stepped after every batch
SCHEDULERS: dict[str, Callable[[Any, Any, int], Any]] = {
    "onecycle": lambda sp, opt, total: sp.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=[g["lr"] * 3 for g in opt.param_groups], total_steps=total
    ),
    "cosine": lambda sp, opt, total: sp.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total),
    "exponential": lambda sp, opt, total: sp.optim.lr_scheduler.ExponentialLR(
        opt, gamma=0.01 ** (1 / total)
    ),
    # task 6.12 (course version 1.1): a tenth of the steps' warm-up from 0.1·lr, then a
    # cosine down to 0 at the last step
    "warmup_cosine": lambda sp, opt, total: sp.optim.lr_scheduler.LambdaLR(
        opt, sp.optim.warmup_cosine(warmup_steps(total), total)
    ),
}


def warmup_steps(total: int) -> int:
    """The capstone's warm-up for ``warmup_cosine``: a tenth of the run, at least 1 step."""
    return max(1, total // 10)


@dataclass
class History:
    """What a run recorded: each step's loss and learning rate, and per epoch the mean
    training loss, the test accuracy and the seconds the epoch's training took."""

    optimizer: str
    scheduler: str | None
    seed: int
    architecture: str = "mlp"
    losses: list[float] = field(default_factory=list)
    lrs: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    model: Any = field(default=None, repr=False)

    @property
    def final_accuracy(self) -> float:
        return self.test_accuracy[-1]


@functools.cache
def mnist5k() -> dict[str, np.ndarray]:
    """MNIST-5k flattened: x float32 (N, 784) in [0, 1], y int64 (N,)."""
    d = datasets.load("mnist5k")
    return {
        "x_train": d["x_train"].reshape(len(d["x_train"]), -1).astype(np.float32),
        "y_train": d["y_train"].astype(np.int64),
        "x_test": d["x_test"].reshape(len(d["x_test"]), -1).astype(np.float32),
        "y_test": d["y_test"].astype(np.int64),
    }


@functools.cache
def mnist5k_images() -> dict[str, np.ndarray]:
    """MNIST-5k as the CNN sees it: x float32 (N, 1, 28, 28), standardised by the training
    set's mean and std (test images by the same two numbers), y int64 (N,)."""
    flat = mnist5k()
    train = flat["x_train"].astype(np.float64)
    mean, std = train.mean(), train.std()

    def images(x: np.ndarray) -> np.ndarray:
        return ((x.reshape(len(x), 1, 28, 28) - mean) / std).astype(np.float32)

    return {
        "x_train": images(flat["x_train"]),
        "y_train": flat["y_train"],
        "x_test": images(flat["x_test"]),
        "y_test": flat["y_test"],
    }


def data_for(model: str) -> dict[str, np.ndarray]:
    """The data ``model`` trains on: ``mnist5k()`` for the MLP, ``mnist5k_images()`` for the
    CNN."""
    return mnist5k_images() if _checked(model) == "cnn" else mnist5k()


def _checked(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")
    return model


def make_model(sp: Any, model: str = "mlp") -> Any:
    """The ``model`` network (``MODELS``), drawn from sp's global generator: the MLP
    784-128-10 with a ReLU between, or ``make_cnn(sp)``."""
    if _checked(model) == "cnn":
        return make_cnn(sp)
    nn = sp.nn
    return nn.Sequential(nn.Linear(SIZES[0], SIZES[1]), nn.ReLU(), nn.Linear(SIZES[1], SIZES[2]))


def make_cnn(sp: Any) -> Any:
    """LeNet-5 as a PyTorch user writes it today (ReLU, max-pooling): 28 × 28 → 6 × 14 × 14
    → 16 × 5 × 5 → 400 → 120 → 84 → 10. ``sp`` is chapter 8's framework, or ``torch``."""
    nn = sp.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(400, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )


def make_optimizer(sp: Any, params: Any, name: str, lr: float | None = None) -> Any:
    """``OPTIMIZERS[name]`` over ``params``, with ``lr`` instead of its default when given."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}; choose one of {', '.join(OPTIMIZERS)}")
    cls, kwargs = OPTIMIZERS[name]
    kwargs = dict(kwargs) if lr is None else {**kwargs, "lr": lr}
    return getattr(sp.optim, cls)(params, **kwargs)


def make_scheduler(sp: Any, optimizer: Any, scheduler: Any, total_steps: int) -> Any:
    """None, a name in ``SCHEDULERS``, or a callable ``(optimizer, total_steps) -> sched``."""
    if scheduler is None:
        return None
    if callable(scheduler):
        return scheduler(optimizer, total_steps)
    if scheduler not in SCHEDULERS:
        raise ValueError(f"unknown scheduler {scheduler!r}; choose one of {', '.join(SCHEDULERS)}")
    return SCHEDULERS[scheduler](sp, optimizer, total_steps)


def accuracy(sp: Any, model: Any, x: np.ndarray, y: np.ndarray) -> float:
    """The fraction of ``x`` whose largest logit is at the label ``y``."""
    model.eval()
    with sp.no_grad():
        logits = model(sp.tensor(x))
    model.train()
    return float((np.asarray(logits.data).argmax(axis=1) == y).mean())


def train(
    sp: Any,
    *,
    optimizer: str = "adam",
    epochs: int = 10,
    seed: int = 0,
    batch_size: int = 64,
    lr: float | None = None,
    progress: bool = True,
    scheduler: Any = None,
    n_train: int | None = None,
    model: str = "mlp",
    dtype: str | None = None,
) -> History:
    """Train the capstone's ``model`` (``"mlp"``, or ``"cnn"`` on chapter 8's ``sp``) on
    ``sp`` and return its ``History``.

    ``optimizer`` names one of ``OPTIMIZERS`` (``lr`` overrides its rate); ``scheduler`` is
    None, a name in ``SCHEDULERS`` or ``(optimizer, total_steps) -> scheduler``, stepped
    after every batch. ``n_train`` keeps only the first n training images (quick runs).
    ``dtype`` (``"float64"``: a check against another framework without float32's rounding)
    converts the model after it is drawn, and the images; None keeps float32.
    The model is drawn after ``manual_seed(seed)`` and the batches shuffled by a generator
    seeded with ``seed``; the trained model ends in ``history.model``.
    """
    architecture = model
    data = data_for(architecture)
    x_train, y_train = data["x_train"][:n_train], data["y_train"][:n_train]
    x_test = data["x_test"]
    if dtype is not None:
        x_train, x_test = x_train.astype(dtype), x_test.astype(dtype)

    sp.manual_seed(seed)
    model = make_model(sp, architecture)
    if dtype is not None:
        model.to(getattr(sp, dtype))
    loader = sp.utils.data.DataLoader(
        sp.utils.data.TensorDataset(sp.tensor(x_train), sp.tensor(y_train)),
        batch_size=batch_size,
        shuffle=True,
        generator=sp.Generator().manual_seed(seed),
    )
    opt = make_optimizer(sp, model.parameters(), optimizer, lr)
    sched = make_scheduler(sp, opt, scheduler, epochs * len(loader))
    sched_name = scheduler if isinstance(scheduler, str) or scheduler is None else "custom"
    history = History(
        optimizer=optimizer, scheduler=sched_name, seed=seed, architecture=architecture, model=model
    )

    for epoch in range(epochs):
        start, epoch_losses = time.perf_counter(), []
        with tqdm(
            total=len(loader), desc=f"epoch {epoch + 1}/{epochs}", disable=not progress
        ) as bar:
            for x, y in loader:
                history.lrs.append(float(opt.param_groups[0]["lr"]))
                opt.zero_grad()
                loss = sp.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                if sched is not None:
                    sched.step()
                epoch_losses.append(float(loss.item()))
                bar.set_postfix(loss=f"{epoch_losses[-1]:.3f}", refresh=False)
                bar.update()
            history.seconds.append(time.perf_counter() - start)
            history.losses += epoch_losses
            history.epoch_loss.append(float(np.mean(epoch_losses)))
            history.test_accuracy.append(accuracy(sp, model, x_test, data["y_test"]))
            bar.set_postfix(
                loss=f"{history.epoch_loss[-1]:.3f}", test=f"{history.test_accuracy[-1]:.3f}"
            )
    return history


def summary(history: History) -> str:
    """Two lines: the final test accuracy, and the time per epoch."""
    secs = history.seconds
    run = [history.optimizer, *([history.scheduler] if history.scheduler else [])]
    if history.architecture != "mlp":
        run.insert(0, f"the {history.architecture.upper()}")
    return (
        f"test accuracy after {len(secs)} epoch{'s' * (len(secs) != 1)}: "
        f"{100 * history.final_accuracy:.1f}% ({', '.join(run)}, seed {history.seed})\n"
        f"time per epoch: {np.mean(secs):.2f} s (min {min(secs):.2f} s, total {sum(secs):.1f} s)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m support.capstone", description=__doc__)
    parser.add_argument("--model", default=MODELS[0], choices=(*MODELS, "gpt"))
    parser.add_argument("--epochs", type=int, default=None, help="mlp, cnn (default 10)")
    parser.add_argument("--steps", type=int, default=None, help="gpt (default 600)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--optimizer", default=None, choices=sorted(OPTIMIZERS))
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--scheduler", default=None, choices=sorted(SCHEDULERS))
    parser.add_argument("--n-train", type=int, default=None, help="the first N images only")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.model == "gpt":
        return _main_gpt(parser, args)
    if args.steps is not None:
        parser.error("--steps is for --model gpt; the MLP and the CNN take --epochs")
    epochs = 10 if args.epochs is None else args.epochs
    if epochs < 1:
        parser.error("--epochs must be at least 1")

    from support.capstone_tree import choose_tree

    sp = choose_tree(needs=SCHEDULE_TASKS.get(args.scheduler, ()), model=args.model)
    if sp is None:
        return 1
    try:
        history = train(
            sp,
            optimizer=args.optimizer or "adam",
            epochs=epochs,
            seed=args.seed,
            lr=args.lr,
            scheduler=args.scheduler,
            progress=not args.no_progress,
            n_train=args.n_train,
            model=args.model,
        )
    except NotImplementedError as exc:  # a stub met on a tree chosen by SPARROW_IMPL
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(summary(history))
    return 0


def _main_gpt(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--model gpt``: ``support.capstone_gpt``'s run (AdamW, warmup + cosine, clipping:
    its own recipe, so the MLP's and CNN's options are refused rather than ignored)."""
    from support import capstone_gpt

    given = [
        f"--{name.replace('_', '-')}"
        for name in ("epochs", "optimizer", "lr", "scheduler", "n_train")
        if getattr(args, name) is not None
    ]
    if given:
        parser.error(
            f"--model gpt trains with its own recipe (AdamW, warmup_cosine, clipping; "
            f"support/capstone_gpt.py) and takes --steps and --seed, not {', '.join(given)}"
        )
    steps = capstone_gpt.STEPS if args.steps is None else args.steps
    return capstone_gpt.run_command(steps, args.seed, not args.no_progress)


if __name__ == "__main__":
    sys.exit(main())
