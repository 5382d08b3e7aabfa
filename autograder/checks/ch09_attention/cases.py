"""The parent's own attention, in NumPy: every expected value of chapter 9's checks comes
from here, never from the code under test nor from the reference implementation.

Each reference is written from the definition, another way than the chapter's where it
can be, and keeps complex values, so ``gradcheck.vjp`` (the complex step) gives its
gradients exactly:

- ``softmax_ref``: exp(x − m) / Σ exp(x − m) along the last axis with m the row's largest
  real part (0 where the row is all −∞), and 0 along a row with nothing to share out.
- ``mask_ref``: key j may be seen by query i where j ≤ i + diagonal, by comparing indices.
- ``attention_ref``: the scores q·k per (query, key) pair by ``einsum``, a bool mask as
  −∞ where False, a float mask added, ``softmax_ref``, the weighted sum of the values.
- ``split_ref`` / ``merge_ref``: out[…, i, t, j] = x[…, t, i·d + j], element by element
  through index arrays (no reshape).
- ``mha_ref`` and ``block_ref``: PyTorch's MultiheadAttention (packed in_proj) and
  TransformerEncoderLayer (pre-norm and post-norm, relu and exact gelu), written out with
  the weights the parent drew; ``gpt_ref`` stacks them as the course's GPT does.
- ``embed_ref``: token rows and position rows start … start + T − 1, added.
- ``probs_ref``: softmax of logits / τ, everything below the k-th largest (by sorting) −∞.
- ``online_state``: the online softmax's (m, l, acc) after some tiles, by its definition
  over every score seen so far (no recurrence); ``online_slipped`` the recurrence with one
  known slip.

The wrong formulas the verdicts name are here too: each a known mistake, computed from the
case, compared with what the student's code returned.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import hvp, vjp
from ...harness.language import Text, say, tr

NEG = -np.inf


def values(rng: np.random.Generator, shape: Sequence[int], scale: float = 2.0) -> np.ndarray:
    """Drawn values in [−scale, scale], three decimals (exact in the report)."""
    return np.round(rng.uniform(-scale, scale, tuple(shape)), 3)


def _real(a: Any) -> np.ndarray:
    return np.real(np.asarray(a))


FLOAT32_WORDS = {
    "en": "computed in float64: the result must keep the input's dtype (float32)",
    "zh": "按 float64 计算了：结果必须保持输入的数据类型（float32）",
}

DEVICE_WORDS = {
    "en": "the mask was made on the default device, not on `device=`",
    "zh": "掩码建在了默认设备上，而不是 `device=` 指定的设备上",
}


def _as(dtype: str, *arrays: Any) -> list:
    """Each array in ``dtype`` (None stays None): the inputs of a float32 case, whose
    expected values are then computed in float64 from those very float32 numbers."""
    return [None if a is None else np.asarray(a).astype(dtype) for a in arrays]


def _f64(a: Any) -> Any:
    return None if a is None else np.asarray(a, dtype=np.float64)


# -- 9.1: the safe softmax ------------------------------------------------------------------


def softmax_ref(x: Any) -> np.ndarray:
    """Softmax along the last axis, complex-safe; a row of −∞ gives zeros."""
    x = np.asarray(x)
    m = _real(x).max(axis=-1, keepdims=True)
    m = np.where(m == NEG, 0.0, m)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.where(_real(x) == NEG, 0.0, np.exp(np.where(_real(x) == NEG, 0.0, x) - m))
    s = e.sum(axis=-1, keepdims=True)
    return e / np.where(s == 0, 1.0, s)


def softmax_nan(x: Any) -> np.ndarray:
    """The ordinary softmax: nan along a row of −∞ (m = −∞, and −∞ − (−∞) is nan)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def softmax_whole(x: Any) -> np.ndarray:
    """The safe softmax with the maximum of the whole array subtracted: a row far below the
    largest underflows to 0 / 0, which the guard turns into zeros."""
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x)
    m = 0.0 if m == NEG else m
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        e = np.exp(x - m)
        s = e.sum(axis=-1, keepdims=True)
        return e / np.where(s == 0, 1.0, s)


def softmax_unshifted(x: Any) -> np.ndarray:
    """exp(x) / Σ exp(x), the largest not subtracted: exp(1e4) overflows, inf / inf = nan."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = np.exp(x)
        s = e.sum(axis=-1, keepdims=True)
        return e / np.where(s == 0, 1.0, s)


SOFTMAX_WORDS = {
    "nan": {
        "en": (
            "a row whose every score is −∞ gave nan (−∞ − (−∞) if its maximum −∞ is subtracted, "
            "or 0 / 0 if its sum of 0 divides): such a row has no weights to share out and gets "
            "zeros"
        ),
        "zh": (
            "所有分数都是 −∞ 的行得到了 nan（减去它的最大值 −∞ 时是 −∞ − (−∞)，再除以为 0 的行和时"
            "是 0 / 0）：这样的行没有权重可分，应得到全零"
        ),
    },
    "whole": {
        "en": (
            "the maximum was taken over the whole array, not along each row (the last axis, "
            "keepdims): a row far below the largest underflowed to 0 / 0 and gave zeros"
        ),
        "zh": (
            "最大值取自整个数组，而不是沿每一行（最后一个轴，keepdims）：远低于最大值的行"
            "下溢成 0 / 0，得到了全零"
        ),
    },
    "unshifted": {
        "en": (
            "the row's largest value was not subtracted before exp: exp(1e4) overflows to inf "
            "and inf / inf is nan (softmax(x) = softmax(x − max x), and then every exponent is "
            "≤ 0)"
        ),
        "zh": (
            "exp 之前没有减去该行的最大值：exp(1e4) 上溢为 inf，而 inf / inf 是 nan"
            "（softmax(x) = softmax(x − max x)，这样每个指数都 ≤ 0）"
        ),
    },
    "grad diagonal": {
        "en": (
            "the gradient is y · g alone: every output shares the row's sum, so each input also "
            "moves the others, ∂L/∂x = y · (g − Σ g·y), the sum along the row"
        ),
        "zh": (
            "梯度只算了 y · g：每个输出都共用该行的和，所以每个输入也会牵动其他输出，"
            "∂L/∂x = y · (g − Σ g·y)，其中的和沿该行求"
        ),
    },
    "grad jacobian diagonal": {  # en-only: a slip's key
        "en": (
            "the backward used only the diagonal of the Jacobian, y(1 − y)·g: every output "
            "depends on every input of its row, ∂L/∂x = y · (g − Σ g·y)"
        ),
        "zh": (
            "反向函数只用了雅可比矩阵的对角线 y(1 − y)·g：每个输出都依赖于同一行的每个输入，"
            "∂L/∂x = y · (g − Σ g·y)"
        ),
    },
    "grad axis 0": {
        "en": (
            "Σ g·y was taken along the first axis: it is each row's own sum (along the last "
            "axis, keepdim=True)"
        ),
        "zh": "Σ g·y 沿第一个轴求了：它应是每一行自己的和（沿最后一个轴，keepdim=True）",
    },
    "grad all": {
        "en": (
            "Σ g·y was taken over the whole tensor: it is each row's own sum (along the last "
            "axis, keepdim=True)"
        ),
        "zh": "Σ g·y 对整个张量求了：它应是每一行自己的和（沿最后一个轴，keepdim=True）",
    },
    "grad sign": {
        "en": "the sign of the sum is wrong: ∂L/∂x = y · (g − Σ g·y)",
        "zh": "和的符号错了：∂L/∂x = y · (g − Σ g·y)",
    },
    "grad no y": {
        "en": "the factor y is missing: ∂L/∂x = y · (g − Σ g·y)",
        "zh": "缺少因子 y：∂L/∂x = y · (g − Σ g·y)",
    },
    "grad nan": {
        "en": (
            "the gradient along a row of −∞ is nan: that row's output is all zeros whatever its "
            "inputs, so its gradient is zero too"
        ),
        "zh": "全为 −∞ 的行上梯度是 nan：无论输入如何，该行的输出都是全零，所以它的梯度也是零",
    },
}


@dataclass(frozen=True)
class SoftmaxExpected:
    out: np.ndarray
    grad: np.ndarray
    grad_grad: np.ndarray | None
    nan: np.ndarray
    unshifted: np.ndarray
    grad_nan: np.ndarray
    whole: np.ndarray
    grad_wrong: dict = field(default_factory=dict)


def softmax_grad_wrong(x: np.ndarray, g: np.ndarray) -> dict:
    """The softmax's backward with one known slip, from y = softmax_ref(x)."""
    y = softmax_ref(x)
    return {
        "grad diagonal": y * g,
        "grad jacobian diagonal": y * (1 - y) * g,  # en-only: a slip's key
        "grad axis 0": y * (g - (g * y).sum(axis=0, keepdims=True)),
        "grad all": y * (g - (g * y).sum()),
        "grad sign": y * (g + (g * y).sum(axis=-1, keepdims=True)),
        "grad no y": g - (g * y).sum(axis=-1, keepdims=True),
    }


def softmax_case(
    rng: np.random.Generator,
    shape: Sequence[int],
    *,
    masked: Sequence[tuple] = (),
    rows: Sequence[tuple] = (),
    large: bool = False,
    apart: bool = False,
    second: bool = False,
    dtype: str = "float64",
) -> Case:
    """safe_softmax(x) and ∂L/∂x for upstream g (with ``second``, ∂⟨∂L/∂x, w⟩/∂x): x drawn,
    −∞ at each index of ``masked``, every entry −∞ along each row (an index of the leading
    axes) of ``rows``; ``large``: scores near ±1e4; ``apart``: each row 1000 below the one
    before it, the last near 0; ``dtype`` of x and g (float32: out and the gradient stay
    float32)."""
    x = values(rng, shape) + (np.where(rng.random(tuple(shape)) < 0.5, 1e4, -1e4) if large else 0)
    if apart:
        n = int(np.prod(shape[:-1]))
        x = x + 1000.0 * (n - 1 - np.arange(n)).reshape((*shape[:-1], 1))
    for index in masked:
        x[index] = NEG
    for index in rows:
        x[index] = NEG
    g = values(rng, shape)
    w = values(rng, shape) if second else None
    x, g, w = _as(dtype, x, g, w)
    inputs = {"x": x, "g": g, "w": w}
    x, g, w = _f64(x), _f64(g), _f64(w)
    grad = vjp(softmax_ref, [x], g)[0]
    grad_nan = grad.copy()
    for index in rows:
        grad_nan[index] = np.nan
    parts = [tr("x of shape " + str(tuple(shape)), "x 的形状为 " + str(tuple(shape)))]
    if masked:
        parts.append(tr(f"{len(masked)} entries −∞", f"{len(masked)} 个元素为 −∞"))
    if rows:
        parts.append(tr(f"{len(rows)} row(s) all −∞", f"{len(rows)} 行全为 −∞"))
    if large:
        parts.append(tr("scores near ±1e4", "分数接近 ±1e4"))
    if apart:
        parts.append(tr("each row 1000 below the one before", "每行比上一行低 1000"))
    if dtype != "float64":
        parts.append(dtype)
    label = (
        "safe_softmax(x)"
        + tr(", ", "，")
        + tr(", ", "，").join(parts)
        + (tr(", the gradient's gradient", "，梯度的梯度") if second else "")
    )
    expected = SoftmaxExpected(
        out=softmax_ref(x),
        grad=grad,
        grad_grad=hvp(softmax_ref, [x], [w], g)[0] if second else None,
        nan=softmax_nan(x),
        unshifted=softmax_unshifted(x),
        whole=softmax_whole(x),
        grad_nan=grad_nan,
        grad_wrong=softmax_grad_wrong(x, g),
    )
    return Case(label, inputs, expected)


# -- 9.2: masks and attention --------------------------------------------------------------


def mask_ref(L: int, S: int, diagonal: int = 0) -> np.ndarray:
    """True where key j may be seen by query i: j ≤ i + diagonal."""
    i, j = np.arange(L)[:, None], np.arange(S)[None, :]
    return j <= i + diagonal


def causal_mask_case(
    rng: np.random.Generator,
    rows: Sequence[tuple[int, int, int]],
    label: Text = "",
    device: str | None = None,
) -> Case:
    """causal_mask(L, S, diagonal) for each row (``label``: what the rows are, where they
    are drawn); with ``device`` (``"sim"``), ``causal_mask(L, S, diagonal, device=device)``
    while the default device stays the CPU: each mask must be on ``device``."""
    rows = [tuple(int(v) for v in r) for r in rows]
    want = [mask_ref(*r).astype(np.int64) for r in rows]
    triu = [(np.arange(r[1])[None, :] >= np.arange(r[0])[:, None] + r[2]).astype(int) for r in rows]
    flat = [mask_ref(r[0], r[1]).astype(np.int64) for r in rows]
    text = say(label) or "(L, S, diagonal) = " + ", ".join(f"({L}, {S}, {d})" for L, S, d in rows)
    inputs: dict[str, Any] = {"rows": [list(r) for r in rows]}
    if device:
        inputs["device"] = device
        text += tr(
            f", device={device!r} (the default device the CPU)",
            f"，device={device!r}（默认设备为 CPU）",
        )
    return Case(
        tr(f"causal_mask(L, S, diagonal) for {text}", f"causal_mask(L, S, diagonal)，{text}"),
        inputs,
        MaskExpected(want, triu, flat, device),
    )


@dataclass(frozen=True)
class MaskExpected:
    masks: list
    triu: list  # the upper triangle: j ≥ i + diagonal
    flat: list  # the diagonal ignored
    device: str | None = None  # the device type each mask must be on (None: not asked)


MASK_WORDS = {
    "triu": {
        "en": (
            "the triangle is transposed: query i may see keys j ≤ i + diagonal (the lower "
            "triangle, tril), never the keys after it"
        ),
        "zh": (
            "三角形转置了（上下三角弄反了）：查询 i 能看到的是键 j ≤ i + diagonal（下三角，"
            "tril），永远看不到其后的键"
        ),
    },
    "flat": {
        "en": "the diagonal was ignored: key j is seen where j ≤ i + diagonal",
        "zh": "忽略了 diagonal：键 j 在 j ≤ i + diagonal 处可见",
    },
}


def _scores(q: Any, k: Any, scale: float) -> np.ndarray:
    return np.einsum("...le,...se->...ls", q, k) * scale


def _masked(scores: np.ndarray, mask: Any, kind: str) -> np.ndarray:
    if kind == "bool":
        return np.where(np.asarray(mask, dtype=bool), scores, NEG)
    if kind == "float":
        return scores + np.asarray(mask)
    if kind == "finite":  # a bool mask filled with −1e9, a known slip
        return np.where(np.asarray(mask, dtype=bool), scores, -1e9)
    if kind == "added":  # a bool mask added as numbers, a known slip
        return scores + np.asarray(mask, dtype=np.float64)
    if kind == "times":  # a float mask multiplied, a known slip
        with np.errstate(invalid="ignore"):
            return scores * np.asarray(mask)
    return scores


def attention_ref(
    q: Any, k: Any, v: Any, mask: Any = None, kind: str = "none", scale: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(out, weights) of scaled dot-product attention, from the definition."""
    scale = 1 / math.sqrt(np.shape(q)[-1]) if scale is None else scale
    weights = softmax_ref(_masked(_scores(q, k, scale), mask, kind))
    return np.einsum("...ls,...sv->...lv", weights, v), weights


def attention_wrong(q: Any, k: Any, v: Any, mask: Any, kind: str, scale: Any) -> dict:
    """(out, weights) of each known slip, by name (None where it is the right one)."""
    e, ev = np.shape(q)[-1], np.shape(v)[-1]
    default = 1 / math.sqrt(e)
    wrong: dict[str, Any] = {}
    if scale is None:
        wrong["scale d"] = attention_ref(q, k, v, mask, kind, 1 / e)
        wrong["scale ev"] = (
            attention_ref(q, k, v, mask, kind, 1 / math.sqrt(ev)) if ev != e else None
        )
        wrong["no scale"] = attention_ref(q, k, v, mask, kind, 1.0)
        wrong["scale times"] = attention_ref(q, k, v, mask, kind, math.sqrt(e))
    else:
        wrong["scale ignored"] = attention_ref(q, k, v, mask, kind, default)
    if kind == "bool":
        wrong["inverted"] = attention_ref(q, k, v, ~np.asarray(mask, dtype=bool), kind, scale)
        wrong["finite"] = attention_ref(q, k, v, mask, "finite", scale)
        wrong["added"] = attention_ref(q, k, v, mask, "added", scale)
        plain = attention_ref(q, k, v, None, "none", scale)[1]
        after = np.where(np.asarray(mask, dtype=bool), plain, 0.0)
        wrong["after"] = (np.einsum("...ls,...sv->...lv", after, v), after)
    if kind == "float":
        with np.errstate(invalid="ignore"):
            wrong["times"] = attention_ref(q, k, v, mask, "times", scale)
        plain = attention_ref(q, k, v, None, "none", scale)[1]
        with np.errstate(invalid="ignore"):
            after = plain + np.asarray(mask)
        wrong["after"] = (np.einsum("...ls,...sv->...lv", after, v), after)
    return wrong


ATTENTION_WORDS = {
    "scale d": {
        "en": "the scores were divided by E, not by √E (scale = 1/√E, E = query.shape[-1])",
        "zh": "分数除以了 E，而不是 √E（scale = 1/√E，E = query.shape[-1]）",
    },
    "scale ev": {
        "en": (
            "the scores were divided by √Ev, the values' width: the scale is 1/√E with E the "
            "width of the queries and keys (query.shape[-1])"
        ),
        "zh": (
            "分数除以了值的宽度 √Ev：缩放因子是 1/√E，其中 E 是查询和键的宽度（query.shape[-1]）"
        ),
    },
    "no scale": {
        "en": "the scores were not scaled: by default they are multiplied by 1/√E",
        "zh": "分数没有缩放：默认要乘以 1/√E",
    },
    "scale times": {
        "en": "the scores were multiplied by √E: the scale is 1/√E",
        "zh": "分数乘以了 √E：缩放因子是 1/√E",
    },
    "scale ignored": {
        "en": "the scale given was ignored (1/√E was used): a given scale replaces 1/√E",
        "zh": "忽略了传入的 scale（用了 1/√E）：传入的 scale 取代 1/√E",
    },
    "inverted": {
        "en": (
            "the boolean mask was read the wrong way round: True means the query may look "
            "there, False hides the key (its score becomes −∞)"
        ),
        "zh": (
            "布尔掩码的含义读反了：True 表示查询可以看那里，False 表示遮住该键（它的分数变为 −∞）"
        ),
    },
    "finite": {
        "en": (
            "hidden keys got a large finite score (−1e9, say) instead of −∞: a query that may "
            "see nothing then spreads its weight evenly over keys it must not see; with −∞ that "
            "row is all zeros (safe_softmax)"
        ),
        "zh": (
            "被遮住的键得到的是一个很大的有限分数（比如 −1e9），而不是 −∞：于是什么都不能看的"
            "查询会把权重平均分给它不该看的键；用 −∞ 时该行是全零（safe_softmax）"
        ),
    },
    "added": {
        "en": (
            "the boolean mask was added as numbers (True = 1, False = 0): a bool mask hides its "
            "False keys with −∞ (masked_fill); only a float mask is added"
        ),
        "zh": (
            "布尔掩码被当作数加了上去（True = 1，False = 0）：布尔掩码用 −∞ 遮住为 False 的键"
            "（masked_fill）；只有浮点掩码才是加上去的"
        ),
    },
    "times": {
        "en": "the float mask was multiplied with the scores: a float mask is added to them",
        "zh": "浮点掩码与分数相乘了：浮点掩码应加到分数上",
    },
    "after": {
        "en": (
            "the mask was applied after the softmax: hidden keys must get −∞ scores before it, "
            "so that the visible ones still share out the whole weight and every row sums to one"
        ),
        "zh": (
            "掩码是在 softmax 之后才施加的：被遮住的键必须在 softmax 之前就得到 −∞ 分数，"
            "这样可见的键才能分完全部权重，每行之和为 1"
        ),
    },
    "no dropout": {
        "en": (
            "dropout_p was ignored: the weights are dropped out (dropout(weights, dropout_p)) "
            "before they average the values; with dropout_p = 1 every weight is dropped"
        ),
        "zh": (
            "忽略了 dropout_p：权重在对值加权平均之前要先做 dropout"
            "（dropout(weights, dropout_p)）；dropout_p = 1 时每个权重都被丢弃"
        ),
    },
    "dropped weights": {
        "en": (
            "the weights returned are after dropout: attention returns the weights before "
            "dropout (only the values are averaged with the dropped ones)"
        ),
        "zh": (
            "返回的是 dropout 之后的权重：attention 返回 dropout 之前的权重（只有对值的加权平均"
            "才用 dropout 后的权重）"
        ),
    },
}


@dataclass(frozen=True)
class AttentionExpected:
    out: np.ndarray
    weights: np.ndarray
    grads: list
    wrong: dict = field(default_factory=dict)


MASK_KINDS = {"bool": {"en": "bool", "zh": "布尔"}, "float": {"en": "float", "zh": "浮点"}}


def _broadcast_mask(rng: np.random.Generator, kind: str, shape: tuple) -> np.ndarray:
    """A bool mask (True: may look; every row keeps at least one key) or a float mask
    (drawn biases, some −∞, every row keeps at least one finite) of ``shape``."""
    keep = rng.random(shape) < 0.6
    keep[..., 0] = True
    if kind == "bool":
        return keep
    return np.where(keep, values(rng, shape, 1.0), NEG)


def attention_case(
    rng: np.random.Generator,
    lead: Sequence[int],
    L: int,
    S: int,
    E: int,
    Ev: int,
    *,
    kind: str = "none",
    mask_shape: Sequence[int] | None = None,
    scale: float | None = None,
    causal: bool = False,
    grads: bool = True,
    blind: bool = False,
    dtype: str = "float64",
) -> Case:
    """attention(q, k, v, mask, scale): q (*lead, L, E), k (*lead, S, E), v (*lead, S, Ev),
    a mask of ``mask_shape`` (default (L, S)) of ``kind``; with ``causal`` the bool mask is
    the causal one, j ≤ i; ``blind``: the mask's last query row hides every key. The
    gradients of q, k, v for upstream g on out. ``dtype`` of q, k, v, g and a float mask
    (float32: out, the weights and the gradients stay float32)."""
    lead = tuple(lead)
    q, k, v = (values(rng, (*lead, n, w)) for n, w in ((L, E), (S, E), (S, Ev)))
    mask = None
    if causal:
        kind, mask = "bool", mask_ref(L, S)
    elif kind != "none":
        mask = _broadcast_mask(rng, kind, tuple(mask_shape or (L, S)))
        if blind:
            mask[..., -1, :] = False if kind == "bool" else NEG
    sent = [*_as(dtype, q, k, v), _as(dtype, mask)[0] if kind == "float" else mask]
    q, k, v = (_f64(a) for a in sent[:3])
    mask = _f64(sent[3]) if kind == "float" else mask
    out, weights = attention_ref(q, k, v, mask, kind, scale)
    (g,) = _as(dtype, values(rng, out.shape))
    arrays = [q, k, v]
    found = (
        vjp(lambda a, b, c: attention_ref(a, b, c, mask, kind, scale)[0], arrays, _f64(g))
        if grads
        else None
    )
    wrong = attention_wrong(q, k, v, mask, kind, scale)
    if causal:
        where = tr("the causal mask", "因果掩码")
    elif kind == "none":
        where = tr("no mask", "无掩码")
    else:
        where = tr(f"a {say(MASK_KINDS[kind])} mask", f"{say(MASK_KINDS[kind])}掩码")
    if mask is not None and not causal:
        where += tr(f" of shape {tuple(mask.shape)}", f"，形状为 {tuple(mask.shape)}") + (
            tr(" (the last query sees no key)", "（最后一个查询看不到任何键）") if blind else ""
        )
    text = tr("the default scale", "默认缩放") if scale is None else f"scale={scale}"
    comma = tr(", ", "，")
    label = (
        "attention(q, k, v, mask, scale)"
        + tr(
            f": q {q.shape}, k {k.shape}, v {v.shape}, {where}, {text}",
            f"：q {q.shape}，k {k.shape}，v {v.shape}，{where}，{text}",
        )
        + ("" if dtype == "float64" else f"{comma}{dtype}")
    )
    a, b, c, m = sent
    return Case(
        label,
        {"q": a, "k": b, "v": c, "mask": m, "scale": scale, "g": g if grads else None},
        AttentionExpected(out, weights, found or [], wrong),
    )


def dropout_case(rng: np.random.Generator, L: int, S: int, E: int) -> Case:
    """attention with dropout_p = 1: every weight dropped, out all zeros; the weights
    returned are those before dropout."""
    q, k, v = (values(rng, (1, n, E)) for n in (L, S, S))
    out, weights = attention_ref(q, k, v)
    return Case(
        tr(
            f"attention(q, k, v, dropout_p=1.0): q {q.shape}, k {k.shape}, v {v.shape}",
            f"attention(q, k, v, dropout_p=1.0)：q {q.shape}，k {k.shape}，v {v.shape}",
        ),
        {"q": q, "k": k, "v": v, "mask": None, "scale": None, "g": None, "dropout_p": 1.0},
        AttentionExpected(
            np.zeros_like(out),
            weights,
            [],
            {"dropped weights": (None, 0 * weights), "no dropout": (out, None)},
        ),
    )


@dataclass(frozen=True)
class HalfDropoutExpected:
    weights: np.ndarray  # before dropout
    p: float
    shape: tuple  # out's: (*lead, L, S + 1)


DROPOUT_WORDS = {
    "ignored": {
        "en": (
            "dropout_p was ignored: with dropout_p = 0.5 each weight is dropped (0) or kept and "
            "scaled by 1/(1 − p) before it averages the values"
        ),
        "zh": (
            "忽略了 dropout_p：dropout_p = 0.5 时，每个权重在对值加权平均之前要么被丢弃（0），"
            "要么被保留并乘以 1/(1 − p)"
        ),
    },
    "output": {
        "en": (
            "dropout was applied to the output (dropout(weights @ v)), not to the weights: "
            "PyTorch drops attention weights, out = dropout(weights) @ v (with v = [I | 1] the "
            "last column of out is then the sum of the others; here it is 0 or 1/(1 − p) in "
            "every row)"
        ),
        "zh": (
            "dropout 作用在了输出上（dropout(weights @ v)），而不是权重上：PyTorch 丢弃的是注意力"
            "权重，out = dropout(weights) @ v（v = [I | 1] 时，out 的最后一列就是其余各列之和；"
            "这里它在每一行都是 0 或 1/(1 − p)）"
        ),
    },
}


def dropout_half_case(
    rng: np.random.Generator, lead: Sequence[int], L: int, S: int, E: int, p: float = 0.5
) -> Case:
    """attention(q, k, v, dropout_p=p) with v = [I_S | 1] (S + 1 columns), checked without
    the generator's draws: with the weights w dropped, out = dropout(w) @ v has
    out[…, :S] = dropout(w), each 0 or w / (1 − p), and out[…, S] = Σ out[…, :S]; the
    weights returned are w, before dropout."""
    lead = tuple(lead)
    q, k = values(rng, (*lead, L, E)), values(rng, (*lead, S, E))
    v = np.broadcast_to(np.concatenate([np.eye(S), np.ones((S, 1))], axis=1), (*lead, S, S + 1))
    weights = attention_ref(q, k, v)[1]
    return Case(
        tr(
            f"attention(q, k, v, dropout_p={p}): q {q.shape}, k {k.shape}, v = [I | 1] of shape "
            f"{v.shape} (out[…, :S] is the dropped weights, out[…, S] their sum)",
            f"attention(q, k, v, dropout_p={p})：q {q.shape}，k {k.shape}，v = [I | 1]，形状为 "
            f"{v.shape}（out[…, :S] 是 dropout 后的权重，out[…, S] 是它们的和）",
        ),
        {"q": q, "k": k, "v": np.array(v), "mask": None, "scale": None, "g": None, "dropout_p": p},
        HalfDropoutExpected(weights, p, (*lead, L, S + 1)),
    )


def sdpa_case(
    rng: np.random.Generator, lead: Sequence[int], L: int, S: int, E: int, Ev: int
) -> Case:
    """F.scaled_dot_product_attention(q, k, v, is_causal=True): the top-left triangle."""
    q, k, v = (values(rng, (*lead, n, w)) for n, w in ((L, E), (S, E), (S, Ev)))
    mask = mask_ref(L, S)
    out, weights = attention_ref(q, k, v, mask, "bool")
    triu = np.arange(S)[None, :] >= np.arange(L)[:, None]
    wrong = {"triu": attention_ref(q, k, v, triu, "bool")[0]}
    return Case(
        tr(
            f"F.scaled_dot_product_attention(q, k, v, is_causal=True): q {q.shape}, "
            f"k {k.shape}, v {v.shape}",
            f"F.scaled_dot_product_attention(q, k, v, is_causal=True)：q {q.shape}，"
            f"k {k.shape}，v {v.shape}",
        ),
        {"q": q, "k": k, "v": v},
        AttentionExpected(out, weights, [], wrong),
    )


# -- 9.3: heads ------------------------------------------------------------------------------


def split_ref(x: Any, h: int) -> np.ndarray:
    """out[…, i, t, j] = x[…, t, i·d + j], through index arrays."""
    x = np.asarray(x)
    t, e = x.shape[-2:]
    d = e // h
    i, tt, j = np.ix_(np.arange(h), np.arange(t), np.arange(d))
    return x[..., tt, i * d + j]


def merge_ref(x: Any) -> np.ndarray:
    """out[…, t, i·d + j] = x[…, i, t, j]."""
    x = np.asarray(x)
    h, t, d = x.shape[-3:]
    c = np.arange(h * d)
    return x[..., c[None, :] // d, np.arange(t)[:, None], c[None, :] % d]


def split_wrong(x: np.ndarray, h: int) -> dict:
    t, e = x.shape[-2:]
    d, lead = e // h, x.shape[:-2]
    return {
        "no transpose": np.reshape(x, (*lead, h, t, d)),
        "interleaved": np.swapaxes(np.reshape(x, (*lead, t, d, h)), -1, -2).swapaxes(-3, -2),
    }


def merge_wrong(x: np.ndarray) -> dict:
    h, t, d = x.shape[-3:]
    lead = x.shape[:-3]
    return {
        "no transpose": np.reshape(x, (*lead, t, h * d)),
        "interleaved": np.reshape(np.moveaxis(x, -3, -1), (*lead, t, h * d)),
        "last two": np.reshape(np.swapaxes(x, -1, -2), (*lead, t, h * d)),
    }


HEADS_WORDS = {
    "split no transpose": {  # en-only: a slip's key
        "en": (
            "the heads were made by a reshape to (…, h, T, d) without the transpose: each head "
            "got a run of consecutive features across positions, not its own slice of every "
            "position's features (reshape to (…, T, h, d), then move h in front of T)"
        ),
        "zh": (
            "头是直接 reshape 成 (…, h, T, d) 得到的，没有转置：每个头拿到的是跨越多个位置的"
            "一串连续特征，而不是每个位置的特征中属于它自己的那一段（应先 reshape 成 "
            "(…, T, h, d)，再把 h 移到 T 前面）"
        ),
    },
    "split interleaved": {
        "en": (
            "each head took every h-th feature (a reshape to (…, T, d, h)): head i's slice is "
            "the consecutive features i·d … i·d + d − 1 of each position"
        ),
        "zh": (
            "每个头取的是每隔 h 个的特征（reshape 成了 (…, T, d, h)）：头 i 的那一段是每个位置"
            "上连续的特征 i·d … i·d + d − 1"
        ),
    },
    "merge no transpose": {  # en-only: a slip's key
        "en": (
            "the heads were merged by a reshape alone: (…, h, T, d) must first become "
            "(…, T, h, d) (the heads moved back behind the positions), then (…, T, h·d)"
        ),
        "zh": (
            "合并头时只做了 reshape：(…, h, T, d) 必须先变成 (…, T, h, d)（把头移回位置之后），"
            "再变成 (…, T, h·d)"
        ),
    },
    "merge last two": {  # en-only: a slip's key
        "en": (
            "the last two axes were swapped, not the heads and the positions: (…, h, T, d) "
            "becomes (…, T, h, d) by exchanging axes −3 and −2"
        ),
        "zh": (
            "交换的是最后两个轴，而不是头和位置：(…, h, T, d) 要交换轴 −3 和 −2 才变成 (…, T, h, d)"
        ),
    },
    "merge interleaved": {
        "en": (
            "the heads' features were interleaved (the head axis moved last): position t's "
            "features are head 0's d values, then head 1's, and so on"
        ),
        "zh": (
            "各头的特征被交错排列了（头轴移到了最后）：位置 t 的特征应先是头 0 的 d 个值，"
            "再是头 1 的，依此类推"
        ),
    },
}


@dataclass(frozen=True)
class HeadsExpected:
    split: np.ndarray
    merged: np.ndarray  # merge_heads(split)
    back: np.ndarray  # merge_heads(split_heads(x)) = x
    grad: np.ndarray  # ∂⟨split_heads(x), g⟩/∂x
    split_wrong: dict
    merge_wrong: dict
    h: int


def heads_case(
    rng: np.random.Generator, shape: Sequence[int], h: int, *, arange: bool = False
) -> Case:
    """split_heads(x, h), merge_heads of a (…, h, T, d) y, the round trip, and split's
    gradient: x = arange (each entry its own flat index) or drawn."""
    shape = tuple(shape)
    x = np.arange(float(np.prod(shape))).reshape(shape) if arange else values(rng, shape)
    split = split_ref(x, h)
    y = values(rng, split.shape) if not arange else split + 0.5
    g = values(rng, split.shape)
    what = "arange" if arange else tr("drawn", "随机抽取")
    return Case(
        tr(
            f"split_heads(x, {h}) and merge_heads: x of shape {shape} ({what})",
            f"split_heads(x, {h}) 与 merge_heads：x 的形状为 {shape}（{what}）",
        ),
        {"x": x, "h": h, "y": y, "g": g},
        HeadsExpected(
            split=split,
            merged=merge_ref(y),
            back=x,
            grad=vjp(lambda a: split_ref(a, h), [x], g)[0],
            split_wrong=split_wrong(x, h),
            merge_wrong=merge_wrong(y),
            h=h,
        ),
    )


# -- MultiheadAttention, the block, the GPT ------------------------------------------------


def linear_ref(x: Any, w: Any, b: Any = None) -> np.ndarray:
    out = np.einsum("...i,oi->...o", x, w)
    return out if b is None else out + b


def mha_ref(
    p: dict,
    query: Any,
    key: Any,
    value: Any,
    h: int,
    mask: Any = None,
    split: Any = split_ref,
    prefix: str = "",
) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's MultiheadAttention with batch_first, weights ``p`` by state_dict name:
    (out, per-head weights). ``mask``: an additive float mask broadcasting to (B, h, L, S)."""
    w, b = p[prefix + "in_proj_weight"], p[prefix + "in_proj_bias"]
    e = w.shape[1]
    q, k, v = (
        linear_ref(x, w[i * e : (i + 1) * e], b[i * e : (i + 1) * e])
        for i, x in enumerate((query, key, value))
    )
    q, k, v = (split(t, h) for t in (q, k, v))
    kind = "none" if mask is None else "float"
    out, weights = attention_ref(q, k, v, mask, kind)
    out = merge_ref(out)
    return linear_ref(out, p[prefix + "out_proj.weight"], p[prefix + "out_proj.bias"]), weights


def layer_norm_ref(x: Any, w: Any, b: Any, eps: float = 1e-5) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _erf(x: Any) -> Any:
    """erf, extended to the complex step: erf(a + ih) = erf(a) + ih·erf′(a) (h is 1e-30,
    so h² vanishes)."""
    a = np.real(x)
    real = np.vectorize(math.erf, otypes=[float])(a)
    if not np.iscomplexobj(x):
        return real
    return real + 1j * np.imag(x) * (2 / math.sqrt(math.pi)) * np.exp(-(a**2))


def gelu_ref(x: Any) -> Any:
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def relu_ref(x: Any) -> Any:
    return np.where(np.real(x) > 0, x, 0)


ACTIVATIONS = {"gelu": gelu_ref, "relu": relu_ref}


def block_ref(
    p: dict,
    x: Any,
    h: int,
    norm_first: bool,
    act: str,
    mask: Any = None,
    *,
    slip: str = "",
    prefix: str = "",
) -> np.ndarray:
    """TransformerEncoderLayer(batch_first=True, dropout=0) on x (B, T, E), or with the
    known ``slip`` (see ``BLOCK_WORDS``)."""

    def norm(i: int, t: Any) -> Any:
        return layer_norm_ref(t, p[f"{prefix}norm{i}.weight"], p[f"{prefix}norm{i}.bias"])

    def sa(t: Any) -> Any:
        return mha_ref(p, t, t, t, h, mask, prefix=prefix + "self_attn.")[0]

    def ff(t: Any) -> Any:
        inner = ACTIVATIONS[act](
            linear_ref(t, p[prefix + "linear1.weight"], p[prefix + "linear1.bias"])
        )
        return linear_ref(inner, p[prefix + "linear2.weight"], p[prefix + "linear2.bias"])

    second = 1 if slip == "norm1 twice" else 2
    if slip == "swapped":
        norm_first = not norm_first
    if norm_first:
        if slip == "pre sa normed sum":  # en-only: a slip's key
            x = norm(1, x + sa(x))
            return x + ff(norm(2, x))
        if slip == "ff unnormed":
            x = x + sa(norm(1, x))
            return x + ff(x)
        if slip == "ff old x":
            return x + sa(norm(1, x)) + ff(norm(2, x))
        if slip.startswith("residual normed"):
            x = norm(1, x) + sa(norm(1, x))
            if slip == "residual normed":
                return norm(second, x) + ff(norm(second, x))
            return x + ff(norm(second, x))
        x = (0 if slip == "no sa residual" else x) + sa(norm(1, x))  # en-only: a slip's key
        return (0 if slip == "no ff residual" else x) + ff(norm(second, x))  # en-only: a slip's key
    if slip == "post branch normed":  # en-only: a slip's key
        x = x + norm(1, sa(x))
        return x + norm(2, ff(x))
    if slip == "post ff old x":  # en-only: a slip's key
        return norm(2, x + ff(norm(1, x + sa(x))))
    x = norm(1, (0 if slip == "no sa residual" else x) + sa(x))  # en-only: a slip's key
    return norm(second, (0 if slip == "no ff residual" else x) + ff(x))  # en-only: a slip's key


BLOCK_SLIPS = (
    "pre sa normed sum",  # en-only: a slip's key
    "ff unnormed",
    "ff old x",
    "post branch normed",  # en-only: a slip's key
    "post ff old x",  # en-only: a slip's key
    "swapped",
    "residual normed",
    "residual normed once",  # en-only: a slip's key
    "no sa residual",  # en-only: a slip's key
    "no ff residual",  # en-only: a slip's key
    "norm1 twice",
)

PADDING_WORDS = {
    "en": (
        "the padding mask was not passed on: src_key_padding_mask goes to the self-attention "
        "(key_padding_mask=…), which hides the padded keys from every query"
    ),
    "zh": (
        "没有把填充掩码传下去：src_key_padding_mask 要交给自注意力（key_padding_mask=…），"
        "由它对每个查询遮住填充的键"
    ),
}

BLOCK_WORDS = {
    "pre sa normed sum": {  # en-only: a slip's key
        "en": (
            "the attention's residual went through the norm (x = LN₁(x + SA(x))): in pre-norm "
            "the norm is applied to the branch's input only, x = x + SA(LN₁(x))"
        ),
        "zh": (
            "注意力的残差也经过了归一化（x = LN₁(x + SA(x))）：前置归一化（pre-norm）只对分支的"
            "输入做归一化，x = x + SA(LN₁(x))"
        ),
    },
    "ff unnormed": {
        "en": "the feed-forward branch was fed x, not LN₂(x): x = x + FF(LN₂(x))",
        "zh": "前馈分支的输入是 x，而不是 LN₂(x)：x = x + FF(LN₂(x))",
    },
    "ff old x": {
        "en": (
            "the feed-forward branch read the block's input, not x after the attention's "
            "residual: the second line starts from the first line's result"
        ),
        "zh": (
            "前馈分支读的是整个块的输入，而不是加上注意力残差之后的 x：第二行要从第一行的结果出发"
        ),
    },
    "post branch normed": {  # en-only: a slip's key
        "en": (
            "post-norm normalises the sum, LN₁(x + SA(x)), not the branch: x + LN₁(SA(x)) "
            "leaves the residual path unnormalised"
        ),
        "zh": (
            "后置归一化（post-norm）归一化的是和 LN₁(x + SA(x))，而不是分支：x + LN₁(SA(x)) "
            "让残差路径没有经过归一化"
        ),
    },
    "post ff old x": {  # en-only: a slip's key
        "en": (
            "the second residual added the block's input, not x after the first sub-block: in "
            "post-norm x = LN₂(x + FF(x)) starts from x = LN₁(x + SA(x)), the first line's "
            "result"
        ),
        "zh": (
            "第二个残差加的是整个块的输入，而不是第一个子块之后的 x：后置归一化中 "
            "x = LN₂(x + FF(x)) 从第一行的结果 x = LN₁(x + SA(x)) 出发"
        ),
    },
    "swapped": {
        "en": (
            "pre-norm and post-norm are swapped: norm_first=True normalises what goes into "
            "each branch, x = x + SA(LN₁(x)); norm_first=False normalises each sum, "
            "x = LN₁(x + SA(x))"
        ),
        "zh": (
            "前置归一化和后置归一化弄反了：norm_first=True 对进入每个分支的输入做归一化，"
            "x = x + SA(LN₁(x))；norm_first=False 对每个和做归一化，x = LN₁(x + SA(x))"
        ),
    },
    "residual normed": {
        "en": (
            "the residual carries the normalised x (x = LN₁(x) + SA(LN₁(x))): in pre-norm the "
            "residual path is x itself, x = x + SA(LN₁(x)), and only the branch's input is "
            "normalised"
        ),
        "zh": (
            "残差传递的是归一化后的 x（x = LN₁(x) + SA(LN₁(x))）：前置归一化中残差路径就是 x "
            "本身，x = x + SA(LN₁(x))，只有分支的输入才做归一化"
        ),
    },
    "residual normed once": {  # en-only: a slip's key
        "en": (
            "the attention's residual carries the normalised x (x = LN₁(x) + SA(LN₁(x))): in "
            "pre-norm the residual path is x itself, x = x + SA(LN₁(x)), and only the branch's "
            "input is normalised"
        ),
        "zh": (
            "注意力的残差传递的是归一化后的 x（x = LN₁(x) + SA(LN₁(x))）：前置归一化中残差"
            "路径就是 x 本身，x = x + SA(LN₁(x))，只有分支的输入才做归一化"
        ),
    },
    "no sa residual": {  # en-only: a slip's key
        "en": (
            "the attention's residual is missing: its output is added to what came in, x + SA(…)"
        ),
        "zh": "缺少注意力的残差连接：它的输出要加到输入上，x + SA(…)",
    },
    "no ff residual": {  # en-only: a slip's key
        "en": (
            "the feed-forward's residual is missing: its output is added to what came in, x + FF(…)"
        ),
        "zh": "缺少前馈网络的残差连接：它的输出要加到输入上，x + FF(…)",
    },
    "norm1 twice": {
        "en": (
            "norm1 was used for both branches: the feed-forward branch has its own LayerNorm, norm2"
        ),
        "zh": "两个分支都用了 norm1：前馈分支有自己的 LayerNorm，即 norm2",
    },
}


def _layer_params(rng: np.random.Generator, e: int, ff: int, prefix: str = "") -> dict:
    return {
        f"{prefix}self_attn.in_proj_weight": values(rng, (3 * e, e), 0.6),
        f"{prefix}self_attn.in_proj_bias": values(rng, (3 * e,), 0.2),
        f"{prefix}self_attn.out_proj.weight": values(rng, (e, e), 0.6),
        f"{prefix}self_attn.out_proj.bias": values(rng, (e,), 0.2),
        f"{prefix}linear1.weight": values(rng, (ff, e), 0.6),
        f"{prefix}linear1.bias": values(rng, (ff,), 0.2),
        f"{prefix}linear2.weight": values(rng, (e, ff), 0.6),
        f"{prefix}linear2.bias": values(rng, (e,), 0.2),
        f"{prefix}norm1.weight": 1 + values(rng, (e,), 0.3),
        f"{prefix}norm1.bias": values(rng, (e,), 0.2),
        f"{prefix}norm2.weight": 1 + values(rng, (e,), 0.3),
        f"{prefix}norm2.bias": values(rng, (e,), 0.2),
    }


def _norm_kind(norm_first: bool) -> str:
    """ "pre-norm" or "post-norm", in the learner's language."""
    if norm_first:
        return tr("pre-norm", "前置归一化")
    return tr("post-norm", "后置归一化")


@dataclass(frozen=True)
class BlockExpected:
    out: np.ndarray
    grad: np.ndarray | None
    wrong: dict


def block_case(
    rng: np.random.Generator,
    B: int,
    T: int,
    E: int,
    h: int,
    ff: int,
    *,
    norm_first: bool,
    act: str = "gelu",
    causal: bool = False,
    grads: bool = True,
    padding: bool = False,
) -> Case:
    """TransformerEncoderLayer(E, h, ff, 0.0, act, batch_first=True, norm_first) with drawn
    weights on x (B, T, E); ``causal``: src_mask the float causal mask with is_causal=True;
    ``padding``: a src_key_padding_mask (True: hidden) hiding one key of each sequence (never
    the first, so every query keeps a key), −∞ on those keys' scores."""
    p = _layer_params(rng, E, ff)
    x = values(rng, (B, T, E))
    mask = np.where(mask_ref(T, T), 0.0, NEG) if causal else None
    unpadded = mask
    hidden = np.zeros((B, T), dtype=bool)
    if padding:
        hidden[np.arange(B), rng.integers(1, T, B)] = True
        keys = np.where(hidden, NEG, 0.0)[:, None, None, :]  # (B, 1, 1, T): every head, query
        mask = keys if mask is None else mask + keys
    out = block_ref(p, x, h, norm_first, act, mask)
    g = values(rng, out.shape)
    grad = vjp(lambda a: block_ref(p, a, h, norm_first, act, mask), [x], g)[0] if grads else None
    wrong = {s: block_ref(p, x, h, norm_first, act, mask, slip=s) for s in BLOCK_SLIPS}
    wrong["no padding"] = block_ref(p, x, h, norm_first, act, unpadded) if padding else None
    which = _norm_kind(norm_first)
    label = (
        f"TransformerEncoderLayer({E}, {h}, {ff}, 0.0, {act!r}, batch_first=True, "
        f"norm_first={norm_first})"
        + tr(f" ({which}) on x {x.shape}", f"（{which}），作用于 x {x.shape}")
        + (tr(", the causal src_mask", "，src_mask 为因果掩码") if causal else "")
        + (
            tr(
                ", a src_key_padding_mask (one key of each sequence hidden)",
                "，带 src_key_padding_mask（每个序列遮住一个键）",
            )
            if padding
            else ""
        )
    )
    inputs = {
        "params": p,
        "x": x,
        "E": E,
        "h": h,
        "ff": ff,
        "act": act,
        "norm_first": norm_first,
        "causal": causal,
        "g": g if grads else None,
    }
    if padding:
        inputs["padding"] = hidden
    return Case(label, inputs, BlockExpected(out, grad, wrong))


def block_cache_case(
    rng: np.random.Generator,
    B: int,
    T: int,
    E: int,
    h: int,
    ff: int,
    *,
    norm_first: bool,
    act: str = "gelu",
) -> Case:
    """The layer called with ``kv_cache=`` a probe that hands the keys and values back as
    they came and gives no mask: the probe must receive one update of (B, h, T, E/h) keys
    and values, and the output is the layer's without a mask."""
    p = _layer_params(rng, E, ff)
    x = values(rng, (B, T, E))
    shape = [B, h, T, E // h]
    which = _norm_kind(norm_first)
    return Case(
        f"TransformerEncoderLayer({E}, {h}, {ff}, 0.0, {act!r}, batch_first=True, "
        f"norm_first={norm_first})"
        + tr(
            f" ({which}) on x {x.shape} with kv_cache= a cache that records its updates",
            f"（{which}），作用于 x {x.shape}，kv_cache= 一个记录自身更新的缓存",
        ),
        {"params": p, "x": x, "E": E, "h": h, "ff": ff, "act": act, "norm_first": norm_first},
        {"out": block_ref(p, x, h, norm_first, act), "updates": [[shape, shape]]},
    )


def mha_case(
    rng: np.random.Generator,
    B: int,
    L: int,
    S: int,
    E: int,
    h: int,
    *,
    padding: bool = False,
    average: bool = False,
) -> Case:
    """nn.MultiheadAttention(E, h, batch_first=True) with drawn weights, cross-attention
    (query (B, L, E), key and value (B, S, E)); with ``padding`` a key_padding_mask (True:
    hidden, one key of each sequence). Out, the weights and the query's, key's and value's
    gradients."""
    p = {
        k.removeprefix("self_attn."): v for k, v in _layer_params(rng, E, 1).items() if "attn" in k
    }
    query, key, value = values(rng, (B, L, E)), values(rng, (B, S, E)), values(rng, (B, S, E))
    hidden = np.zeros((B, S), dtype=bool)
    if padding:
        hidden[np.arange(B), rng.integers(1, S, B)] = True
    mask = np.where(hidden, NEG, 0.0)[:, None, None, :] if padding else None

    def run(a: Any, b: Any, c: Any, split: Any = split_ref) -> Any:
        return mha_ref(p, a, b, c, h, mask, split)

    out, weights = run(query, key, value)
    g = values(rng, out.shape)
    grads = vjp(lambda a, b, c: run(a, b, c)[0], [query, key, value], g)
    wrong_split = lambda t, n: np.reshape(t, (*t.shape[:-2], n, t.shape[-2], t.shape[-1] // n))
    wrong = {"split no transpose": run(query, key, value, wrong_split)[0]}  # en-only: a slip's key
    return Case(
        tr(
            f"nn.MultiheadAttention({E}, {h}, batch_first=True) on query {query.shape}, key and "
            f"value {key.shape}",
            f"nn.MultiheadAttention({E}, {h}, batch_first=True)，query 为 {query.shape}，key 和 "
            f"value 为 {key.shape}",
        )
        + (tr(", a key_padding_mask", "，带 key_padding_mask") if padding else "")
        + (
            tr(", weights averaged over the heads", "，权重在各头上取平均")
            if average
            else tr(", per-head weights", "，每个头各自的权重")
        ),
        {
            "params": p,
            "query": query,
            "key": key,
            "value": value,
            "h": h,
            "padding": hidden if padding else None,
            "average": average,
            "g": g,
        },
        MhaExpected(out, weights.mean(axis=1) if average else weights, grads, wrong),
    )


@dataclass(frozen=True)
class MhaExpected:
    out: np.ndarray
    weights: np.ndarray
    grads: list
    wrong: dict


# -- 9.5: embeddings -------------------------------------------------------------------------


def embed_ref(tok: Any, pos: Any, idx: np.ndarray, start: int) -> np.ndarray:
    t = idx.shape[-1]
    return tok[idx] + pos[start : start + t]


def embed_wrong(tok: np.ndarray, pos: np.ndarray, idx: np.ndarray, start: int) -> dict:
    b, t = idx.shape
    wrong = {
        "no start": tok[idx] + pos[:t],
        "no position": tok[idx],
        "scaled": tok[idx] * math.sqrt(tok.shape[-1]) + pos[start : start + t],
        "by ids": tok[idx] + pos[idx] if idx.max() < pos.shape[0] else None,
    }
    if start and t - start in (1, t):
        wrong["stop at t"] = tok[idx] + pos[start:t]
    if start + b <= pos.shape[0] and b != t:
        wrong["batch axis"] = tok[idx] + pos[start : start + b][:, None, :]
    if start != 0:
        wrong["start twice"] = (
            tok[idx] + pos[2 * start : 2 * start + t] if 2 * start + t <= pos.shape[0] else None
        )
    return wrong


EMBED_WORDS = {
    "no start": {
        "en": (
            "the positions started at 0, not at start: with a cache the new tokens sit after "
            "the kept ones, at positions start … start + T − 1"
        ),
        "zh": (
            "位置从 0 开始，而不是从 start 开始：有缓存时，新词元排在已保存的词元之后，"
            "位于位置 start … start + T − 1"
        ),
    },
    "no position": {
        "en": (
            "the position embedding was not added: a token's row says what it is, a position's "
            "row where"
        ),
        "zh": "没有加上位置嵌入：词元的那一行说明它是什么，位置的那一行说明它在哪里",
    },
    "batch axis": {
        "en": (
            "the position rows were added along the batch axis (one row per sequence): they go "
            "along the positions, (T, E), the same rows for every sequence of the batch"
        ),
        "zh": (
            "位置行是沿批量轴加上去的（每个序列一行）：它们应沿位置排列，形状为 (T, E)，"
            "批量中的每个序列都加同样的这些行"
        ),
    },
    "start twice": {
        "en": "the start was counted twice: positions run start … start + T − 1",
        "zh": "start 被算了两次：位置应为 start … start + T − 1",
    },
    "scaled": {
        "en": (
            "the token embedding was multiplied by √E (the 2017 paper's scaling): this GPT adds "
            "the two rows as they are"
        ),
        "zh": "词元嵌入乘以了 √E（2017 年那篇论文的缩放）：这个 GPT 把两行原样相加",
    },
    "by ids": {
        "en": (
            "the position table was indexed by the token ids, not by the positions start … "
            "start + T − 1"
        ),
        "zh": "位置嵌入表是按词元 id 索引的，而不是按位置 start … start + T − 1",
    },
    "stop at t": {
        "en": "the positions ran start … T − 1, not start … start + T − 1",
        "zh": "位置取的是 start … T − 1，而不是 start … start + T − 1",
    },
}


@dataclass(frozen=True)
class EmbedExpected:
    out: np.ndarray
    grads: list
    wrong: dict


def embed_case(
    rng: np.random.Generator,
    B: int,
    T: int,
    V: int,
    block: int,
    E: int,
    start: int = 0,
    *,
    repeat: bool = False,
) -> Case:
    """GPT(V, block, 1, 1, E).embed(idx, start) with drawn tables, idx (B, T); ``repeat``:
    one token id everywhere in the first row (its table row's gradient sums)."""
    tok, pos = values(rng, (V, E)), values(rng, (block, E))
    idx = rng.integers(0, V, (B, T))
    if repeat:
        idx[0] = idx[0, 0]
    out = embed_ref(tok, pos, idx, start)
    g = values(rng, out.shape)
    grads = vjp(lambda a, b: embed_ref(a, b, idx, start), [tok, pos], g)
    return Case(
        tr(
            f"GPT({V}, {block}, 1, 1, {E}).embed(idx, start={start}) for idx of shape ({B}, {T})",
            f"GPT({V}, {block}, 1, 1, {E}).embed(idx, start={start})，idx 的形状为 ({B}, {T})",
        )
        + (tr(", one token repeated", "，一个词元重复出现") if repeat else ""),
        {
            "tok": tok,
            "pos": pos,
            "idx": idx,
            "start": start,
            "g": g,
            "V": V,
            "block": block,
            "E": E,
        },
        EmbedExpected(out, grads, embed_wrong(tok, pos, idx, start)),
    )


# -- 9.6: next_token_probs -------------------------------------------------------------------


def _kth(logits: np.ndarray, k: int) -> np.ndarray:
    return -np.sort(-logits, axis=-1)[..., k - 1 : k]


def _softmax_plain(x: np.ndarray) -> np.ndarray:
    return softmax_ref(x)


def probs_ref(logits: Any, temperature: float, top_k: int | None) -> np.ndarray:
    """softmax(logits / τ), every logit below the k-th largest −∞ first (ties kept)."""
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    if top_k is not None and top_k < scaled.shape[-1]:
        scaled = np.where(scaled < _kth(scaled, top_k), NEG, scaled)
    return _softmax_plain(scaled)


def probs_wrong(logits: Any, temperature: float, top_k: int | None) -> dict:
    logits = np.asarray(logits, dtype=np.float64)
    scaled = logits / temperature
    wrong: dict[str, Any] = {
        "times": probs_ref(logits * temperature * temperature, temperature, top_k),
        "probabilities": probs_ref(logits, 1.0, top_k) / temperature,
        "ignored": probs_ref(logits, 1.0, top_k),
    }
    if top_k is None or top_k >= logits.shape[-1]:
        moved = np.swapaxes(logits, 0, -1)
        wrong["axis 0"] = np.swapaxes(probs_ref(moved, temperature, None), 0, -1)
    if top_k is None or top_k >= logits.shape[-1]:
        return wrong
    kth = _kth(scaled, top_k)
    wrong["strict"] = softmax_nan(np.where(scaled <= kth, NEG, scaled))  # k = 1: nothing left
    first_row = kth.reshape(-1)[0]
    wrong["first row"] = _softmax_plain(np.where(scaled < first_row, NEG, scaled))
    smallest = np.sort(scaled, axis=-1)[..., top_k - 1 : top_k]
    wrong["smallest"] = _softmax_plain(np.where(scaled < smallest, NEG, scaled))
    if top_k > 1:
        wrong["k-1"] = _softmax_plain(np.where(scaled < _kth(scaled, top_k - 1), NEG, scaled))
    for name, order in (
        ("first k", np.argsort(-scaled, axis=-1, kind="stable")),
        ("last k", np.argsort(-scaled[..., ::-1], axis=-1, kind="stable")),
    ):
        if name == "last k":
            order = scaled.shape[-1] - 1 - order
        keep = np.zeros(scaled.shape, dtype=bool)
        np.put_along_axis(keep, order[..., :top_k], True, axis=-1)
        wrong[name] = _softmax_plain(np.where(keep, scaled, NEG))
    wrong["after"] = np.where(scaled < kth, 0.0, _softmax_plain(scaled))
    return wrong


TIES = {
    "en": (
        "exactly k tokens were kept, picked by index among ties: every logit equal to the "
        "k-th largest stays, so more than k may survive"
    ),
    "zh": (
        "恰好保留了 k 个词元，并列时按下标挑选：每个等于第 k 大值的 logit 都要保留，"
        "所以留下的可能多于 k 个"
    ),
}

PROBS_WORDS = {
    "probabilities": {
        "en": (
            "the probabilities were divided by the temperature: divide the logits before the "
            "softmax (each row must sum to one)"
        ),
        "zh": "概率除以了温度：应在 softmax 之前除 logits（每行之和必须为 1）",
    },
    "first row": {
        "en": (
            "every row was cut at the first row's k-th value: the threshold is each row's own "
            "k-th largest logit"
        ),
        "zh": "每一行都按第一行的第 k 个值截断了：阈值应是每一行自己第 k 大的 logit",
    },
    "smallest": {
        "en": "the threshold was the k-th smallest logit, not the k-th largest",
        "zh": "阈值用了第 k 小的 logit，而不是第 k 大的",
    },
    "axis 0": {
        "en": (
            "the softmax ran along the first axis (the batch): the distribution is along the "
            "last axis, over the vocabulary (dim=-1)"
        ),
        "zh": "softmax 沿第一个轴（批量）计算了：分布应沿最后一个轴，在词表上（dim=-1）",
    },
    "ignored": {
        "en": (
            "the temperature was ignored: the logits are divided by it (logits / τ) before the "
            "softmax; τ < 1 sharpens, τ > 1 flattens"
        ),
        "zh": (
            "忽略了温度：softmax 之前要用它除 logits（logits / τ）；τ < 1 使分布更尖锐，"
            "τ > 1 使分布更平坦"
        ),
    },
    "times": {
        "en": (
            "the logits were multiplied by the temperature: they are divided by it (τ < 1 sharpens)"
        ),
        "zh": "logits 乘以了温度：应该除以温度（τ < 1 使分布更尖锐）",
    },
    "strict": {
        "en": (
            "fewer than k tokens were kept: only logits strictly below the k-th largest become "
            "−∞ (logits < kth), so the k-th and its ties stay"
        ),
        "zh": (
            "保留的词元少于 k 个：只有严格小于第 k 大值的 logit 才变为 −∞（logits < kth），"
            "所以第 k 个及与它并列的都要保留"
        ),
    },
    "k-1": {
        "en": (
            "k − 1 tokens were kept: the k-th largest logit stays (compare with topk's last value)"
        ),
        "zh": "只保留了 k − 1 个词元：第 k 大的 logit 要保留（与 topk 的最后一个值比较）",
    },
    "first k": TIES,
    "last k": TIES,
    "after": {
        "en": (
            "top-k was applied after the softmax without renormalising: what is left no longer "
            "sums to one (set the logits to −∞ before the softmax)"
        ),
        "zh": (
            "top-k 是在 softmax 之后做的，且没有重新归一化：剩下的概率之和不再为 1"
            "（应在 softmax 之前把 logits 设为 −∞）"
        ),
    },
}


def probs_case(logits: Sequence, temperature: float, top_k: int | None, label: Text = "") -> Case:
    """next_token_probs(logits, temperature, top_k) on fixed logits."""
    logits = np.asarray(logits, dtype=np.float64)
    what = say(label)
    return Case(
        tr(
            f"next_token_probs(logits of shape {logits.shape}, temperature={temperature}, "
            f"top_k={top_k})",
            f"next_token_probs(logits, temperature={temperature}, top_k={top_k})，"
            f"logits 的形状为 {logits.shape}",
        )
        + (tr(f": {what}", f"：{what}") if what else ""),
        {"logits": logits, "temperature": temperature, "top_k": top_k},
        ProbsExpected(
            probs_ref(logits, temperature, top_k), probs_wrong(logits, temperature, top_k)
        ),
    )


DRAWN_TIES = {"en": "drawn, ties", "zh": "随机抽取，有并列"}
DRAWN = {"en": "drawn", "zh": "随机抽取"}


def drawn_probs_case(
    rng: np.random.Generator,
    shape: Sequence[int],
    temperature: float,
    top_k: int | None,
    ties: bool = True,
) -> Case:
    """Drawn logits from a few levels (ties likely) or continuous ones."""
    logits = rng.integers(-2, 3, tuple(shape)).astype(float) if ties else values(rng, shape)
    case = probs_case(logits, temperature, top_k, DRAWN_TIES if ties else DRAWN)
    return case


@dataclass(frozen=True)
class ProbsExpected:
    probs: np.ndarray
    wrong: dict


# -- 9.7: the cache --------------------------------------------------------------------------


@dataclass(frozen=True)
class CacheExpected:
    keys: list
    values: list
    lengths: list
    wrong: dict


CACHE_WORDS = {
    "new first": {
        "en": (
            "the new keys were put before the kept ones: they are appended after them, in the "
            "order of the positions"
        ),
        "zh": "新的键放在了已保存的键之前：应按位置顺序追加在它们之后",
    },
    "values kept": {
        "en": (
            "the values were not appended: update appends the new values along the positions "
            "as it does the keys, and returns all of both"
        ),
        "zh": "没有追加值：update 要像追加键一样沿位置追加新的值，并返回全部的键和值",
    },
    "values new": {
        "en": (
            "update returned only the new values: it returns every value kept so far, the new "
            "ones appended along the positions (axis −2)"
        ),
        "zh": (
            "update 只返回了新的 value：它应返回迄今保存的全部 value，"
            "新的 value 沿位置轴（轴 −2）追加在末尾"
        ),
    },
    "keys new": {
        "en": "update returned only the new keys: it returns every key kept so far",
        "zh": "update 只返回了新的键：它应返回迄今保存的全部键",
    },
    "everything": {
        "en": (
            "the new queries saw keys after themselves: among the new ones the mask is causal, "
            "query i of new sees keys j ≤ S − new + i"
        ),
        "zh": (
            "新的查询看到了自己之后的键：在新位置之间掩码是因果的，新查询中的第 i 个"
            "只能看到键 j ≤ S − new + i"
        ),
    },
    "left": {
        "en": (
            "the triangle was shifted the wrong way (diagonal new − S): the new queries sit at "
            "the end, so it moves right, diagonal S − new"
        ),
        "zh": (
            "三角平移的方向反了（diagonal new − S）：新的查询位于末尾，所以三角要向右移，"
            "diagonal S − new"
        ),
    },
    "top-left": {
        "en": (
            "the mask is aligned at the top left (j ≤ i): the new queries are the last ones, "
            "query i of new sits at position S − new + i, so it sees keys j ≤ S − new + i"
        ),
        "zh": (
            "掩码对齐在了左上角（j ≤ i）：新的查询是最后那几个，新查询中的第 i 个位于位置 "
            "S − new + i，所以它能看到键 j ≤ S − new + i"
        ),
    },
}


def cache_case(rng: np.random.Generator, B: int, h: int, d: int, steps: Sequence[int]) -> Case:
    """KVCache: update with (B, h, L, d) keys and values for each L of ``steps``; what each
    update returned, and len(cache) after it."""
    ks = [values(rng, (B, h, n, d)) for n in steps]
    vs = [values(rng, (B, h, n, d)) for n in steps]
    keys = [np.concatenate(ks[: i + 1], axis=-2) for i in range(len(steps))]
    vals = [np.concatenate(vs[: i + 1], axis=-2) for i in range(len(steps))]
    lengths = [int(k.shape[-2]) for k in keys]
    wrong = {
        "new first": [np.concatenate(ks[: i + 1][::-1], axis=-2) for i in range(len(steps))],
        "values kept": [vs[0]] * len(steps),
        "values new": vs,
        "keys new": ks,
    }
    return Case(
        tr(
            f"KVCache: update(key, value) with (B, h, L, d) = ({B}, {h}, L, {d}) for L = ",
            f"KVCache：update(key, value)，(B, h, L, d) = ({B}, {h}, L, {d})，L 依次为 ",
        )
        + ", ".join(map(str, steps)),
        {"ks": ks, "vs": vs},
        CacheExpected(keys, vals, lengths, wrong),
    )


@dataclass(frozen=True)
class CacheMaskExpected:
    masks: list
    top_left: list
    everything: list  # diagonal S: every key seen
    left: list  # diagonal new − S
    device: str | None = None  # the keys' device type, where the masks must be


def cache_mask_case(steps: Sequence[int], label: Text = "", device: str | None = None) -> Case:
    """KVCache.mask(new) after each update of ``steps`` new positions (``label``: what the
    steps are, where they are drawn); with ``device`` (``"sim"``) the keys and values are
    on it while the default device stays the CPU: each mask must be on the keys' device."""
    sizes = np.cumsum(steps)
    masks = [mask_ref(n, int(s), int(s) - n).astype(np.int64) for n, s in zip(steps, sizes)]
    top = [mask_ref(n, int(s)).astype(np.int64) for n, s in zip(steps, sizes)]
    every = [mask_ref(n, int(s), int(s)).astype(np.int64) for n, s in zip(steps, sizes)]
    left = [mask_ref(n, int(s), n - int(s)).astype(np.int64) for n, s in zip(steps, sizes)]
    inputs: dict[str, Any] = {"steps": list(map(int, steps))}
    where = ""
    if device:
        inputs["device"] = device
        where = tr(
            f", keys and values on {device!r} (the default device the CPU)",
            f"，键和值在 {device!r} 上（默认设备为 CPU）",
        )
    sizes_text = ", ".join(map(str, steps))
    what = say(label) or tr(f"{sizes_text} positions", f"{sizes_text} 个位置")
    return Case(
        tr(
            f"KVCache.mask(new) after updates of {what}{where}",
            f"KVCache.mask(new)，此前各次更新：{what}{where}",
        ),
        inputs,
        CacheMaskExpected(masks, top, every, left, device),
    )


def gpt_params(rng: np.random.Generator, V: int, block: int, n_layer: int, E: int) -> dict:
    p = {
        "token_embedding.weight": values(rng, (V, E), 1.0),
        "position_embedding.weight": values(rng, (block, E), 1.0),
    }
    for i in range(n_layer):
        p.update(_layer_params(rng, E, 4 * E, f"blocks.{i}."))
    p["ln_f.weight"] = 1 + values(rng, (E,), 0.3)
    p["ln_f.bias"] = values(rng, (E,), 0.2)
    p["lm_head.weight"] = values(rng, (V, E), 0.6)
    p["lm_head.bias"] = values(rng, (V,), 0.2)
    return p


def gpt_ref(p: dict, idx: np.ndarray, n_layer: int, h: int) -> np.ndarray:
    """The course's GPT: embeddings, pre-norm gelu blocks with the causal mask, ln_f, head."""
    t = idx.shape[-1]
    x = embed_ref(p["token_embedding.weight"], p["position_embedding.weight"], idx, 0)
    mask = np.where(mask_ref(t, t), 0.0, NEG)
    for i in range(n_layer):
        x = block_ref(p, x, h, True, "gelu", mask, prefix=f"blocks.{i}.")
    x = layer_norm_ref(x, p["ln_f.weight"], p["ln_f.bias"])
    return linear_ref(x, p["lm_head.weight"], p["lm_head.bias"])


@dataclass(frozen=True)
class GptExpected:
    full: np.ndarray
    cached: np.ndarray
    lengths: list


def gpt_cache_case(
    rng: np.random.Generator,
    B: int,
    T: int,
    prompt: int,
    V: int,
    block: int,
    n_layer: int,
    h: int,
    E: int,
) -> Case:
    """GPT(V, block, n_layer, h, E) with drawn weights: the logits of idx (B, T) at once, and
    through the cache: the first ``prompt`` tokens, then one at a time."""
    p = gpt_params(rng, V, block, n_layer, E)
    idx = rng.integers(0, V, (B, T))
    logits = gpt_ref(p, idx, n_layer, h)
    lengths = [prompt, *range(prompt + 1, T + 1)]
    return Case(
        tr(
            f"GPT({V}, {block}, {n_layer}, {h}, {E}) on idx ({B}, {T}): all at once, and "
            f"through the caches ({prompt} tokens, then one at a time)",
            f"GPT({V}, {block}, {n_layer}, {h}, {E}) 作用于 idx ({B}, {T})：一次算完，以及经由"
            f"缓存（先 {prompt} 个词元，再一次一个）",
        ),
        {"params": p, "idx": idx, "prompt": prompt, "config": [V, block, n_layer, h, E]},
        GptExpected(logits, logits, lengths),
    )


# -- 9.8: the online softmax -----------------------------------------------------------------


def online_state(scores: Sequence[np.ndarray], vals: Sequence[np.ndarray]) -> tuple:
    """(m, l, acc) by definition over the tiles so far: m the largest score (−∞ if none is
    finite), l = Σ exp(s − m), acc = Σ exp(s − m) v (0 and 0 where m = −∞)."""
    s = np.concatenate(scores, axis=-1)
    v = np.concatenate(vals, axis=-2)
    m = s.max(axis=-1, keepdims=True)
    safe = np.where(m == NEG, 0.0, m)
    p = np.where(s == NEG, 0.0, np.exp(np.where(s == NEG, 0.0, s - safe)))
    return m, p.sum(axis=-1, keepdims=True), p @ v


def online_slipped(scores: Sequence[np.ndarray], vals: Sequence[np.ndarray], slip: str) -> dict:
    """The recurrence with one slip: each step's (m, l, acc), as lists."""
    lead = scores[0].shape[:-1]
    m = np.full((*lead, 1), NEG)
    total = np.zeros((*lead, 1))
    acc = np.zeros((*lead, vals[0].shape[-1]))
    out: dict[str, list] = {"m": [], "l": [], "acc": []}
    with np.errstate(invalid="ignore", over="ignore"):
        for s, v in zip(scores, vals):
            tile_max = s.max() if slip == "whole max" else s.max(axis=-1, keepdims=True)
            m_new = np.maximum(m, tile_max)
            safe = m_new if slip == "unsafe" else np.where(m_new == NEG, 0.0, m_new)
            old = np.where(m == NEG, 0.0, m)
            alpha = np.exp(m - (m_new if slip == "alpha unsafe" else safe))
            p = np.exp(s - (old if slip == "old max" else safe))
            total = (1 if slip == "sum" else alpha) * total + p.sum(axis=-1, keepdims=True)
            acc = (1 if slip == "acc" else alpha) * acc + p @ v
            m = m_new
            out["m"].append(m)
            out["l"].append(total)
            out["acc"].append(acc)
    return out


GUARD = {
    "en": (
        "a row that has seen only −∞ so far gave nan: its maximum m′ is −∞, and exp(m − m′) or "
        "exp(s − m′) is then exp(−∞ − (−∞)) = nan; subtract the guarded maximum (0 where it is "
        "−∞) in α as in p, so that m = −∞ and l = 0 stay until a finite score comes"
    ),
    "zh": (
        "迄今只见过 −∞ 的行得到了 nan：它的最大值 m′ 是 −∞，于是 exp(m − m′) 或 exp(s − m′) "
        "就是 exp(−∞ − (−∞)) = nan；在 α 和 p 中都要减去加了保护的最大值（为 −∞ 时取 0），"
        "这样在出现有限分数之前 m = −∞ 和 l = 0 保持不变"
    ),
}

ONLINE_WORDS = {
    "unsafe": GUARD,
    "alpha unsafe": GUARD,
    "sum": {
        "en": (
            "the running sum was not rescaled: when a tile raises the maximum, the sum so far "
            "was measured against the old one and is multiplied by α = exp(m − m′)"
        ),
        "zh": (
            "累计和没有重新缩放：某个块抬高了最大值时，迄今的和是相对旧的最大值算的，"
            "要乘以 α = exp(m − m′)"
        ),
    },
    "acc": {
        "en": (
            "acc was not rescaled: when a tile raises the maximum, the weighted values so far "
            "are multiplied by α = exp(m − m′), as the running sum is"
        ),
        "zh": (
            "acc 没有重新缩放：某个块抬高了最大值时，迄今的加权值要像累计和一样乘以 α = exp(m − m′)"
        ),
    },
    "old max": {
        "en": (
            "the tile's exponentials were measured against the old maximum: p = exp(s − m′), "
            "with m′ the maximum after this tile"
        ),
        "zh": "块内的指数是相对旧的最大值算的：p = exp(s − m′)，其中 m′ 是处理完这个块后的最大值",
    },
    "whole max": {
        "en": (
            "the tile's maximum was taken over the whole tile, not along each row (axis −1, "
            "keepdims=True): every query row keeps its own running maximum m, (…, Lq, 1)"
        ),
        "zh": (
            "块的最大值取自整个块，而不是沿每一行（轴 −1，keepdims=True）：每个查询行都维护"
            "自己的累计最大值 m，形状为 (…, Lq, 1)"
        ),
    },
}


@dataclass(frozen=True)
class OnlineExpected:
    m: list
    l: list  # noqa: E741
    acc: list
    wrong: dict


def online_case(
    rng: np.random.Generator,
    lead: Sequence[int],
    Lq: int,
    tiles: Sequence[int],
    Ev: int,
    *,
    rising: bool = False,
    empty_row: bool = False,
    dtype: str = "float64",
) -> Case:
    """online_step folded over key tiles of the given widths, from the empty state; with
    ``rising`` each tile's scores lie above the last's (every tile raises the maximum);
    ``empty_row``: the first query row sees only −∞ in the first tile; ``dtype`` of the
    scores, the values and the state (float32: m, l and acc stay float32)."""
    lead = tuple(lead)
    scores, vals = [], []
    for n, width in enumerate(tiles):
        s = values(rng, (*lead, Lq, width)) + (3.0 * n if rising else 0.0)
        if empty_row and n == 0:
            s[..., 0, :] = NEG
        scores.append(s)
        vals.append(values(rng, (*lead, width, Ev)))
    sent = {"scores": _as(dtype, *scores), "values": _as(dtype, *vals)}
    scores, vals = [_f64(a) for a in sent["scores"]], [_f64(a) for a in sent["values"]]
    states = [online_state(scores[: n + 1], vals[: n + 1]) for n in range(len(tiles))]
    wrong = {
        slip: online_slipped(scores, vals, slip)
        for slip in ("unsafe", "alpha unsafe", "sum", "acc", "old max", "whole max")
    }
    comma = tr(", ", "，")
    label = (
        tr(
            f"online_step over {len(tiles)} tile(s) of widths {list(tiles)}: scores "
            f"{(*lead, Lq)} × width, values width {Ev}",
            f"online_step 依次处理 {len(tiles)} 个块，宽度为 {list(tiles)}：分数为 "
            f"{(*lead, Lq)} × 宽度，值的宽度为 {Ev}",
        )
        + (tr(", each tile's maximum higher", "，每个块的最大值都更高") if rising else "")
        + (tr(", one row −∞ in the first tile", "，第一个块中有一行全为 −∞") if empty_row else "")
        + ("" if dtype == "float64" else f"{comma}{dtype}")
    )
    return Case(
        label,
        sent,
        OnlineExpected(
            [s[0] for s in states], [s[1] for s in states], [s[2] for s in states], wrong
        ),
    )


def finish_case(
    rng: np.random.Generator, lead: Sequence[int], Lq: int, Ev: int, dtype: str = "float64"
) -> Case:
    """finish((m, l, acc)): acc / l, 0 for the rows with l = 0 (the first row here); in
    ``dtype`` (float32: out stays float32)."""
    shape = (*tuple(lead), Lq)
    m = values(rng, (*shape, 1))
    total = 0.5 + np.abs(values(rng, (*shape, 1)))
    acc = values(rng, (*shape, Ev))
    m[..., 0, :], total[..., 0, :], acc[..., 0, :] = NEG, 0.0, 0.0
    sent = dict(zip(("m", "l", "acc"), _as(dtype, m, total, acc)))
    total, acc = _f64(sent["l"]), _f64(sent["acc"])
    return Case(
        tr(
            f"finish((m, l, acc)) for acc of shape {acc.shape}, the first row l = 0",
            f"finish((m, l, acc))，acc 的形状为 {acc.shape}，第一行 l = 0",
        )
        + ("" if dtype == "float64" else tr(f", {dtype}", f"，{dtype}")),
        sent,
        {
            "out": acc / np.where(total == 0, 1.0, total),
            "nan": _divided(acc, total),
            "undivided": acc,
        },
    )


def _divided(acc: np.ndarray, total: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return acc / total


UNDIVIDED = {
    "en": "acc was not divided by l, the running sum of exponentials: out = acc / l",
    "zh": "acc 没有除以 l（指数的累计和）：out = acc / l",
}

FINISH_WORDS = {
    "en": (
        "a row that saw no key (l = 0) gave nan (0 / 0): finish gives 0 there, dividing by 1 "
        "where l = 0"
    ),
    "zh": "没有看到任何键的行（l = 0）得到了 nan（0 / 0）：finish 在那里给出 0，l = 0 处改为除以 1",
}


def tiled_case(
    rng: np.random.Generator,
    lead: Sequence[int],
    L: int,
    S: int,
    E: int,
    Ev: int,
    tile: int,
    causal: bool = False,
) -> Case:
    """tiled_attention(q, k, v, is_causal, tile_size=tile) against the plain attention."""
    q, k, v = (values(rng, (*lead, n, w)) for n, w in ((L, E), (S, E), (S, Ev)))
    mask = mask_ref(L, S) if causal else None
    out = attention_ref(q, k, v, mask, "bool" if causal else "none")[0]
    return Case(
        f"tiled_attention(q, k, v, is_causal={causal}, tile_size={tile})"
        + tr(
            f": q {q.shape}, k {k.shape}, v {v.shape}",
            f"：q {q.shape}，k {k.shape}，v {v.shape}",
        ),
        {"q": q, "k": k, "v": v, "causal": causal, "tile": tile},
        {"out": out},
    )
