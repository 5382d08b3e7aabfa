"""Chapter 9 — attention and a character-level Transformer.

``from chapters import ch09_attention as sp`` gives the framework as it stands (chapters
2–8) plus attention: ``sp.nn.functional.scaled_dot_product_attention``,
``sp.nn.MultiheadAttention``, ``sp.nn.TransformerEncoderLayer``/``TransformerEncoder``,
``sp.nn.generate_square_subsequent_mask``, and the course's own ``sp.GPT``,
``sp.generate``, ``sp.KVCache`` and ``sp.tiled_attention``. Files, in the order the
notebook teaches them:

    softmax.py     safe_softmax: a fully masked row gives zeros             task 9.1
    attention.py   causal_mask, attention, scaled_dot_product_attention    task 9.2
    heads.py       split_heads, merge_heads: heads as a batch axis         task 9.3
    multihead.py   MultiheadAttention: PyTorch's packed layout             (given)
    encoder.py     TransformerEncoderLayer: pre-norm and post-norm         task 9.4
    gpt.py         GPT: token + position embeddings, blocks, a head        task 9.5
    sampling.py    next_token_probs (temperature, top-k), generate         task 9.6
    cache.py       KVCache: keep the keys and values of the past           task 9.7
    tiled.py       online_step, finish, tiled_attention                    task 9.8
"""

import importlib as _importlib

from .. import ch08_conv as _below
from ..ch08_conv import *  # noqa: F403  (the framework so far)
from ..ch08_conv import bool as bool  # PyTorch's dtype names, kept out of __all__
from ..ch08_conv import float as float
from ..ch08_conv import int as int
from .attention import attention, causal_mask, scaled_dot_product_attention
from .cache import KVCache
from .gpt import GPT
from .heads import merge_heads, split_heads
from .sampling import generate, next_token_probs
from .softmax import safe_softmax
from .tiled import tiled_attention

# this chapter's nn (the star import bound chapter 8's to the name)
nn = _importlib.import_module(f"{__name__}.nn")

__all__ = [
    *_below.__all__,
    "GPT",
    "KVCache",
    "attention",
    "causal_mask",
    "generate",
    "merge_heads",
    "next_token_probs",
    "safe_softmax",
    "scaled_dot_product_attention",
    "split_heads",
    "tiled_attention",
]
__all__ = [name for name in __all__ if name != "nn"] + ["nn"]
