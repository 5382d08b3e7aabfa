"""``nn``: chapter 8's ``nn`` plus attention (PyTorch's names).

multihead.py  MultiheadAttention (given; tasks 9.2, 9.3 inside)
encoder.py    TransformerEncoderLayer (task 9.4), TransformerEncoder,
              generate_square_subsequent_mask (also nn.Transformer's static method)
decoder.py    TransformerDecoderLayer, TransformerDecoder, Transformer (given: the 2017
              encoder–decoder, built of the same pieces)
functional    chapter 8's functions, plus scaled_dot_product_attention
"""

import importlib as _importlib

from ...ch08_conv.nn import *  # noqa: F403  (chapters 5, 6 and 8's nn)
from ...ch08_conv.nn import __all__ as _below
from ...ch08_conv.nn import init, utils
from ..decoder import Transformer, TransformerDecoder, TransformerDecoderLayer
from ..encoder import TransformerEncoder, TransformerEncoderLayer, generate_square_subsequent_mask
from ..multihead import MultiheadAttention

# this package's own functional (the star import above bound chapter 8's to the name)
functional = _importlib.import_module(f"{__name__}.functional")

__all__ = [
    *(name for name in _below if name not in ("functional", "init", "utils")),
    "MultiheadAttention",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "functional",
    "generate_square_subsequent_mask",
    "init",
    "utils",
]
