"""The encoder–decoder ``nn.Transformer``, ``TransformerDecoderLayer`` and
``TransformerDecoder`` (chapter 9's given ``decoder.py``) against PyTorch in float64:
PyTorch's weights loaded, outputs and the gradients of both inputs and every parameter."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from solutions import ch09_attention as sp  # noqa: E402

# PyTorch's note that its nested-tensor fast path is off for norm_first: nothing to compare
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")


def _load(ours, theirs):
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    ours.load_state_dict({k: sp.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def _compare(ours, theirs, inputs, **masks):
    rng = np.random.default_rng(1)
    ts = [torch.tensor(a, requires_grad=True) for a in inputs]
    ss = [sp.tensor(a, requires_grad=True) for a in inputs]
    to = theirs(
        *ts, **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in masks.items()}
    )
    so = ours(
        *ss, **{k: sp.tensor(v) if isinstance(v, np.ndarray) else v for k, v in masks.items()}
    )
    assert np.allclose(so.data, to.detach().numpy(), atol=1e-12)
    g = rng.standard_normal(to.shape)
    (to * torch.tensor(g)).sum().backward()
    (so * sp.tensor(g)).sum().backward()
    for t, s in zip(ts, ss):
        assert np.allclose(s.grad.data, t.grad.numpy(), atol=1e-11)
    params = dict(ours.named_parameters())
    for name, p in theirs.named_parameters():
        assert np.allclose(params[name].grad.data, p.grad.numpy(), atol=1e-11), name


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [True, False])
def test_transformer_matches_pytorch(torch_one_thread, norm_first, batch_first):
    torch.set_default_dtype(torch.float64)
    try:
        kw = dict(dropout=0.0, batch_first=batch_first, norm_first=norm_first, activation="gelu")
        theirs = torch.nn.Transformer(8, 2, 2, 1, 16, **kw)
        ours = sp.nn.Transformer(8, 2, 2, 1, 16, dtype=sp.float64, **kw)
    finally:
        torch.set_default_dtype(torch.float32)
    _load(ours, theirs)
    rng = np.random.default_rng(0)
    src = rng.standard_normal((3, 5, 8) if batch_first else (5, 3, 8))
    tgt = rng.standard_normal((3, 4, 8) if batch_first else (4, 3, 8))
    padding = np.zeros((3, 5), bool)
    padding[1, 3:] = True
    causal = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64).numpy()
    _compare(
        ours, theirs, [src, tgt], tgt_mask=causal, tgt_is_causal=True,
        src_key_padding_mask=padding, memory_key_padding_mask=padding,
    )  # fmt: skip


def test_decoder_layer_with_a_memory_mask(torch_one_thread):
    torch.set_default_dtype(torch.float64)
    try:
        theirs = torch.nn.TransformerDecoderLayer(6, 3, 12, 0.0, batch_first=True)
        ours = sp.nn.TransformerDecoderLayer(6, 3, 12, 0.0, batch_first=True, dtype=sp.float64)
    finally:
        torch.set_default_dtype(torch.float32)
    _load(ours, theirs)
    rng = np.random.default_rng(2)
    tgt, memory = rng.standard_normal((2, 4, 6)), rng.standard_normal((2, 7, 6))
    _compare(ours, theirs, [tgt, memory], memory_mask=rng.random((4, 7)) > 0.3)


def test_generate_square_subsequent_mask_is_pytorchs():
    ours = sp.nn.Transformer.generate_square_subsequent_mask(4).data
    assert np.array_equal(ours, torch.nn.Transformer.generate_square_subsequent_mask(4).numpy())
