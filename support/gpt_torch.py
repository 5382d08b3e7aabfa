"""The capstone's GPT written in PyTorch: ``sp.GPT``'s twin, for measuring Sparrow against it.

Same structure and parameter names as ``sp.GPT`` (chapter 9's ``gpt.py``), so a
``state_dict`` loads both ways:

    token_embedding     nn.Embedding(vocab_size, n_embd)
    position_embedding  nn.Embedding(block_size, n_embd)
    blocks.i            nn.TransformerEncoderLayer(n_embd, n_head, 4·n_embd, dropout,
                        activation="gelu", batch_first=True, norm_first=True)
    ln_f                nn.LayerNorm(n_embd)
    lm_head             nn.Linear(n_embd, vocab_size)

``forward(idx)`` maps token ids (B, T) to logits (B, T, vocab_size) with the float causal
mask (0 on and below the diagonal, −∞ above) and ``is_causal=True`` as its hint, as PyTorch
requires. Initialisation is GPT-2's, as ``sp.GPT``'s: N(0, 0.02) for every embedding and
linear weight, zero biases (drawn from torch's generator, so a comparison copies the weights
from one model to the other rather than drawing them twice).

``copy_weights(src, dst)`` copies parameters between a Sparrow model and a PyTorch one in
either direction, as float64 or float32 arrays (the destination keeps its dtype).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn


class TorchGPT(nn.Module):
    """``TorchGPT(vocab_size, block_size, n_layer=4, n_head=4, n_embd=128, dropout=0.0)``."""

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        n_layer: int = 4,
        n_head: int = 4,
        n_embd: int = 128,
        dropout: float = 0.0,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.vocab_size, self.block_size = vocab_size, block_size
        kw = {"dtype": dtype}
        self.token_embedding = nn.Embedding(vocab_size, n_embd, **kw)
        self.position_embedding = nn.Embedding(block_size, n_embd, **kw)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(
                n_embd,
                n_head,
                4 * n_embd,
                dropout,
                activation="gelu",
                batch_first=True,
                norm_first=True,
                **kw,
            )
            for _ in range(n_layer)
        )
        self.ln_f = nn.LayerNorm(n_embd, **kw)
        self.lm_head = nn.Linear(n_embd, vocab_size, **kw)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif p.ndim == 2:
                    p.normal_(0.0, 0.02)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        t = idx.shape[-1]
        if t > self.block_size:
            raise ValueError(f"TorchGPT: {t} positions, but block_size is {self.block_size}")
        positions = torch.arange(t, device=idx.device)
        x = self.token_embedding(idx) + self.position_embedding(positions)
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=x.device, dtype=x.dtype)
        for block in self.blocks:
            x = block(x, src_mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(x))


def warmup_cosine_factor(warmup: int, total: int, start_factor: float = 0.1) -> Any:
    """Chapter 6's warm-up + cosine multiplier, written again here (not imported from the
    framework under test): linear from ``start_factor`` to 1 over ``warmup`` steps, then
    (1 + cos(π (t − warmup)/(total − warmup)))/2 down to 0 at ``total``."""

    def factor(t: int) -> float:
        if t < warmup:
            return start_factor + (1.0 - start_factor) * t / warmup
        if t >= total:
            return 0.0
        return (1.0 + np.cos(np.pi * (t - warmup) / (total - warmup))) / 2

    return factor


def _array(p: Any) -> np.ndarray:
    if isinstance(p, torch.Tensor):
        return p.detach().cpu().numpy()
    return np.asarray(p.detach().numpy() if hasattr(p, "numpy") else p.data)


def copy_weights(src: Any, dst: Any) -> None:
    """Copy every parameter of ``src`` into ``dst`` by name (Sparrow ↔ PyTorch, either way);
    the names must match one to one, and ``dst`` keeps its dtype."""
    source = dict(src.named_parameters())
    target = dict(dst.named_parameters())
    if source.keys() != target.keys():
        raise KeyError(f"parameter names differ: {sorted(source.keys() ^ target.keys())}")
    for name, p in target.items():
        value = _array(source[name])
        if tuple(p.shape) != value.shape:  # copy_ would broadcast a wrong shape silently
            raise ValueError(f"{name}: shape {value.shape}, expected {tuple(p.shape)}")
        if isinstance(p, torch.Tensor):
            with torch.no_grad():
                p.copy_(torch.from_numpy(np.ascontiguousarray(value)).to(p.dtype))
        else:
            p.data[...] = value.astype(p.data.dtype)


def train_torch(model: TorchGPT, data: Any, *, steps: int, seed: int = 0, **kwargs: Any) -> Any:
    """``support.capstone_gpt.run`` on ``torch``: the capstone's loop, batches, AdamW groups
    and clipping, with the schedule ``warmup_cosine_factor`` (this module's own copy)."""
    from support import capstone_gpt

    factor = warmup_cosine_factor(capstone_gpt.warmup_steps(steps), steps)
    return capstone_gpt.run(torch, model, data, steps=steps, seed=seed, factor=factor, **kwargs)


def compare(
    sp: Any,
    *,
    steps: int,
    seed: int = 0,
    config: dict | None = None,
    dtype: str | None = None,
    batch_size: int | None = None,
    progress: bool = False,
) -> tuple[Any, Any]:
    """The capstone's run on ``sp`` and on PyTorch from the same initial weights (Sparrow's,
    drawn after ``sp.manual_seed(seed)``, copied), with the same batches, schedule and
    clipping: (Sparrow's ``GPTHistory``, PyTorch's). ``dtype`` "float64" runs both in float64;
    ``config`` and ``batch_size`` default to the capstone's."""
    from support import capstone_gpt, text_data

    data = text_data.corpus()
    config = capstone_gpt.GPT_CONFIG if config is None else config
    batch_size = capstone_gpt.BATCH_SIZE if batch_size is None else batch_size
    sp.manual_seed(seed)
    mine = capstone_gpt.make_model(sp, len(data.vocab), config)
    if dtype is not None:
        mine.to(getattr(sp, dtype))
    theirs = TorchGPT(len(data.vocab), **config, dtype=getattr(torch, dtype or "float32"))
    copy_weights(mine, theirs)
    kwargs = dict(steps=steps, seed=seed, batch_size=batch_size, progress=progress)
    return capstone_gpt.run(sp, mine, data, **kwargs), train_torch(theirs, data, **kwargs)


def main(argv: list[str] | None = None) -> int:
    """``python -m support.gpt_torch``: the course's number, both validation losses."""
    import argparse

    from support import capstone_gpt

    parser = argparse.ArgumentParser(prog="python -m support.gpt_torch", description=__doc__)
    parser.add_argument("--steps", type=int, default=capstone_gpt.STEPS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--float64", action="store_true")
    parser.add_argument("--tree", default="solutions", choices=("solutions", "chapters"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    import importlib

    sp = importlib.import_module(f"{args.tree}.ch09_attention")
    dtype = "float64" if args.float64 else None
    ours, theirs = compare(sp, steps=args.steps, seed=args.seed, dtype=dtype, progress=True)
    for name, h in (("Sparrow", ours), ("PyTorch", theirs)):
        curve = ", ".join(f"{step}: {loss:.4f}" for step, loss in sorted(h.val_losses.items()))
        print(
            f"{name}: validation loss {h.final_val_loss:.4f} after {args.steps} steps "
            f"(seed {args.seed}; {curve})"
        )
    diff = ours.final_val_loss - theirs.final_val_loss
    print(f"Sparrow − PyTorch: {diff:+.4f} (the course's number: within 0.05)")
    print("(speed is not compared here, NumPy's threads unset: python -m autograder.bench gpt)")
    return 0 if abs(diff) <= 0.05 else 1


if __name__ == "__main__":
    raise SystemExit(main())
