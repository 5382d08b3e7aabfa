"""The GPT capstone (``make capstone MODEL=gpt``): a character-level Transformer trained on
the course's text corpus with chapter 9's ``sp.GPT``.

    model      sp.GPT(vocab_size, **GPT_CONFIG): 4 pre-norm blocks, 4 heads, width 128,
               a context of 64 characters, no dropout
    batches    BATCH_SIZE sequences of block_size characters a step
"""

from __future__ import annotations

GPT_CONFIG = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, dropout=0.0)
BATCH_SIZE = 32
