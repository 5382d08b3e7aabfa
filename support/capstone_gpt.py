"""The GPT capstone (``make capstone MODEL=gpt``): a character-level Transformer trained on
the course's corpus with chapter 9's ``sp.GPT``, the way nanoGPT trains one.

    model      sp.GPT(vocab_size, **GPT_CONFIG): 4 pre-norm blocks, 4 heads, width 128, a
               context of 64 characters, no dropout; 0.8 M parameters
    data       support.text_data.corpus(): the novel *Botchan* (datasets/botchan.npz), a
               vocabulary of its 77 characters, the first 90% for training, the last 10% for
               validation
    batches    BATCH_SIZE sequences of block_size characters a step, at start positions drawn
               by numpy's default_rng(seed) (``text_data.batches``): the same stream feeds
               PyTorch in the comparison
    loss       cross_entropy(logits (B·T, V), next characters (B·T,))
    optimizer  AdamW(lr=LR, betas=BETAS), weight decay WEIGHT_DECAY on the matrices and
               embeddings only (not on biases and LayerNorm's scale and shift, as nanoGPT)
    schedule   chapter 6's warmup_cosine (task 6.12): a tenth of the steps' warm-up from
               0.1·lr, then a cosine down to 0 at the last step, stepped after every batch
    clipping   clip_grad_norm_(parameters, 1.0) before every step
    validation the mean cross-entropy over the whole validation text, cut into windows of
               block_size characters (each predicting the next), without a graph
    samples    SAMPLE_CHARS characters after the prompt PROMPT, temperature 0.8, top-k 10,
               from a generator seeded with the run's seed, before and after training

``train(sp)`` runs it on the framework module ``sp`` (chapter 9's: ``chapters.ch09_attention``
for your own code; in the course repository, its reference's package too) and returns a
``GPTHistory``; ``run(fw, model, …)`` is the loop itself, written so that ``fw`` may also be
``torch`` (``support.gpt_torch`` is the model's PyTorch twin): the course's number compares
the two from the same weights.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from support import text_data

GPT_CONFIG = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, dropout=0.0)
BATCH_SIZE = 32
STEPS = 600  # ≈ 4 min on one core of this machine (the course repository's maintainers' guide)
LR = 6e-3  # of 1e-3, 3e-3, 6e-3: the lowest validation loss after 400 steps (PyTorch)
BETAS = (0.9, 0.99)
WEIGHT_DECAY = 0.1
CLIP = 1.0
EVAL_EVERY = 100
PROMPT = "\n"
SAMPLE_CHARS = 300
TEMPERATURE, TOP_K = 0.8, 10
SCHEDULE_TASKS = ("6.12",)  # warmup_cosine: a task newer than some trees


@dataclass
class GPTHistory:
    """What a run recorded: each step's training loss and learning rate, the validation loss
    (step → loss; step 0 is before training), the samples before and after, the seconds the
    training steps took and the tokens they saw."""

    seed: int
    steps: int
    losses: list[float] = field(default_factory=list)
    lrs: list[float] = field(default_factory=list)
    val_losses: dict[int, float] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    tokens: int = 0
    model: Any = field(default=None, repr=False)

    @property
    def final_val_loss(self) -> float:
        return self.val_losses[max(self.val_losses)]

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds else float("nan")


def make_model(sp: Any, vocab_size: int, config: dict | None = None) -> Any:
    """``sp.GPT(vocab_size, **config)`` (``GPT_CONFIG`` by default), drawn from sp's global
    generator."""
    return sp.GPT(vocab_size, **(GPT_CONFIG if config is None else config))


def make_optimizer(fw: Any, model: Any, lr: float = LR, weight_decay: float = WEIGHT_DECAY) -> Any:
    """AdamW over two groups: the parameters with two axes or more (weights, embeddings) with
    ``weight_decay``, the rest (biases, LayerNorm) without."""
    params = list(model.parameters())
    decay = [p for p in params if p.ndim >= 2]
    rest = [p for p in params if p.ndim < 2]
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": rest, "weight_decay": 0.0},
    ]
    return fw.optim.AdamW(groups, lr=lr, betas=BETAS)


def warmup_steps(total: int) -> int:
    """A tenth of the run, at least 1 step (as the MLP capstone's warmup_cosine); none for a
    run of one step."""
    return max(1, total // 10) if total > 1 else 0


def validation_windows(val: np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The validation text as (inputs, targets), int64 (n, block_size) with n = (len − 1) //
    block_size non-overlapping windows in order; the targets are the next characters."""
    n = (len(val) - 1) // block_size
    x = val[: n * block_size].reshape(n, block_size)
    y = val[1 : n * block_size + 1].reshape(n, block_size)
    return x, y


def evaluate(fw: Any, model: Any, x: np.ndarray, y: np.ndarray, batch_size: int = 64) -> float:
    """The mean cross-entropy of ``model`` on every position of (x, y), without a graph, in
    eval mode (then back to training mode)."""
    model.eval()
    total, count = 0.0, 0
    with fw.no_grad():
        for i in range(0, len(x), batch_size):
            xb, yb = fw.tensor(x[i : i + batch_size]), fw.tensor(y[i : i + batch_size])
            logits = model(xb)
            loss = fw.nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), yb.reshape(-1), reduction="sum"
            )
            total, count = total + float(loss.item()), count + y[i : i + batch_size].size
    model.train()
    return total / count


def run(
    fw: Any,
    model: Any,
    data: text_data.Corpus,
    *,
    steps: int = STEPS,
    seed: int = 0,
    factor: Callable[[int], float] | None = None,
    batch_size: int = BATCH_SIZE,
    lr: float = LR,
    eval_every: int | None = EVAL_EVERY,
    progress: bool = True,
    history: GPTHistory | None = None,
) -> GPTHistory:
    """Train ``model`` (a ``fw.nn.Module``: ``fw`` is a Sparrow framework module or
    ``torch``) for ``steps`` steps on ``data.train``; ``factor`` is the learning rate's
    multiplier t ↦ factor(t) (``LambdaLR``; default: ``fw.optim.warmup_cosine``, chapter 6's).
    The validation loss is measured before training, every ``eval_every`` steps and after
    the last one (None: before and after only)."""
    history = history or GPTHistory(seed=seed, steps=steps)
    block = model.block_size
    if factor is None:
        factor = fw.optim.warmup_cosine(warmup_steps(steps), steps)
    opt = make_optimizer(fw, model, lr)
    sched = fw.optim.lr_scheduler.LambdaLR(opt, factor)
    val_x, val_y = validation_windows(data.val, block)
    history.val_losses[0] = evaluate(fw, model, val_x, val_y)
    model.train()
    stream = text_data.batches(data.train, steps, batch_size, block, seed)
    with tqdm(total=steps, desc="training", disable=not progress) as bar:
        for step, (x, y) in enumerate(stream, 1):
            start = time.perf_counter()
            history.lrs.append(float(opt.param_groups[0]["lr"]))
            opt.zero_grad()
            logits = model(fw.tensor(x))
            loss = fw.nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), fw.tensor(y).reshape(-1)
            )
            loss.backward()
            fw.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            opt.step()
            sched.step()
            history.seconds += time.perf_counter() - start
            history.tokens += x.size
            history.losses.append(float(loss.item()))
            bar.set_postfix(
                loss=f"{history.losses[-1]:.3f}",
                tok_s=f"{history.tokens_per_second:,.0f}",
                refresh=False,
            )
            bar.update()
            if step == steps or (eval_every and step % eval_every == 0):
                history.val_losses[step] = evaluate(fw, model, val_x, val_y)
                bar.set_postfix(
                    loss=f"{history.losses[-1]:.3f}",
                    val=f"{history.val_losses[step]:.3f}",
                    tok_s=f"{history.tokens_per_second:,.0f}",
                )
    history.model = model
    return history


def sample(sp: Any, model: Any, vocab: text_data.Vocab, seed: int, n: int = SAMPLE_CHARS) -> str:
    """``n`` characters drawn after ``PROMPT`` at temperature 0.8 with top-k 10 (chapter 9's
    ``generate``, with the cache), from ``sp.Generator().manual_seed(seed)``."""
    idx = sp.tensor(vocab.encode(PROMPT)[None, :])
    out = sp.generate(
        model,
        idx,
        n,
        temperature=TEMPERATURE,
        top_k=TOP_K,
        generator=sp.Generator().manual_seed(seed),
    )
    return vocab.decode(np.asarray(out.numpy())[0, len(PROMPT) :])


def train(
    sp: Any,
    *,
    steps: int = STEPS,
    seed: int = 0,
    config: dict | None = None,
    dtype: str | None = None,
    progress: bool = True,
    sample_chars: int = SAMPLE_CHARS,
    eval_every: int | None = EVAL_EVERY,
) -> GPTHistory:
    """The capstone on chapter 9's ``sp``: the model drawn after ``manual_seed(seed)``
    (converted to ``dtype``, e.g. ``"float64"``, when given), a sample of ``sample_chars``
    characters before (0: none), ``run``, a sample after."""
    data = text_data.corpus()
    sp.manual_seed(seed)
    model = make_model(sp, len(data.vocab), config)
    if dtype is not None:
        model.to(getattr(sp, dtype))
    history = GPTHistory(seed=seed, steps=steps)
    if sample_chars:
        history.samples["before"] = sample(sp, model, data.vocab, seed, sample_chars)
    run(
        sp, model, data, steps=steps, seed=seed, progress=progress, eval_every=eval_every,
        history=history,
    )  # fmt: skip
    if sample_chars:
        history.samples["after"] = sample(sp, model, data.vocab, seed, sample_chars)
    return history


def summary(history: GPTHistory) -> str:
    """The validation loss before and after, the speed, and the samples."""
    n_params = sum(int(np.prod(p.shape)) for p in history.model.parameters())
    lines = [
        f"validation loss: {history.val_losses[0]:.3f} before, {history.final_val_loss:.3f} "
        f"after {history.steps} step{'s' * (history.steps != 1)} (seed {history.seed}; uniform "
        f"guessing: "
        f"{math.log(history.model.vocab_size):.3f})",
        f"training: {history.seconds:.1f} s, {history.tokens_per_second:,.0f} tokens/s "
        f"({n_params:,} parameters)",
    ]
    for when in ("before", "after"):
        if when in history.samples:
            lines += [f"--- sample {when} training ---", history.samples[when]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m support.capstone_gpt", description=__doc__)
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    return run_command(args.steps, args.seed, not args.no_progress)


def run_command(steps: int, seed: int, progress: bool) -> int:
    """What ``make capstone MODEL=gpt`` does: pick the tree, train, print the summary."""
    if steps < 1:
        print("error: --steps must be at least 1", file=sys.stderr)
        return 2
    from support.capstone_tree import choose_tree

    sp = choose_tree(needs=SCHEDULE_TASKS, model="gpt")
    if sp is None:
        return 1
    try:
        history = train(sp, steps=steps, seed=seed, progress=progress)
    except NotImplementedError as exc:  # a stub met on a tree chosen by SPARROW_IMPL
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(summary(history))
    return 0


if __name__ == "__main__":
    sys.exit(main())
