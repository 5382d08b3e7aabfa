"""Public checks for chapter 5 — modules, layers, losses, data, checkpointing.

Every expectation is the parent's own (``cases.py``: PyTorch's rules on plain lists, NumPy
forward and backward formulas, six-sigma bounds for random draws and deterministic tests
that the right moments cannot fool); nothing the student wrote, and not the reference,
computes one. Models are ``cases.Tree`` lists built in the child with program-defined
modules, so the tree walks (5.3) and state_dict (5.5) are judged without Linear or
Sequential.

- 5.1 registration scripts (``cases.simulate_registration``): Parameters, Modules, buffers,
  plain values, reassignment moving a name between tables (and out of ``__dict__``),
  refusals of a Tensor or a number where a Parameter or a Module is registered, None
  (a parameter set to None stays registered; a plain attribute then a Module by its name).
- 5.2 ``Linear``: U(−k, k) for weight and bias, k = 1/√in (statistics of 16k draws, and
  draws, not a table, a grid or a pattern with those moments; the same weights after the
  same ``manual_seed``, other weights after another seed and for the next Linear; a float32
  Linear's parameters float32, and ``reset_parameters`` filling the same objects anew);
  ``LinearFunction`` through Linear on 1-D, 2-D and 3-D inputs: y, and the gradients of x,
  W and b (gᵀx in W's (out, in) layout, the bias's summed over the batch) against the
  parent's NumPy, with and without a bias, with x, W or b not requiring grad
  (``needs_input_grad`` read by index), and second derivatives (grad(…, create_graph=True),
  then backward: the backward's Tensor operations recorded). Known mistakes named: xᵀg,
  g Wᵀ, the bias's mean or sum over the outputs, 3 gradients for 2 inputs, arrays returned,
  gradients that are constants under create_graph.
- 5.3 ``named_modules`` (shared modules once, ``remove_duplicate=False``, ``prefix``),
  ``named_parameters``/``named_buffers`` (dotted names, tied weights once, ``recurse``,
  with and without ``prefix``), ``train``/``eval`` reaching every module (and returning
  self). An error raised through a Tensor's ``==`` says so (``in`` on a list of Tensors).
- 5.4 ``Sequential`` and ``ModuleList``: children ``"0"``, ``"1"``, … in order, ``append``
  registering (and returning the container), Sequential running them in order (12 of
  them: "10" sorts before "2"; one module held twice runs twice).
- 5.5 ``state_dict`` (PyTorch's key order, detached values, ``keep_vars``) and
  ``load_state_dict`` (in place, the Parameter objects kept, nothing copied before the
  check, missing / unexpected / wrong-shape keys named, ``strict=False``, a float32 model
  keeping its dtype when loaded from float64 values).
- 5.6 softmax / log_softmax values and gradients, at logits of 1000 and ±1e4 too (a
  non-finite output told apart: no shift, one max for the whole tensor, log of softmax).
- 5.7 cross_entropy: reductions, ignore_index (the mean over the kept rows), label
  smoothing, ±1e4, every row ignored (nan, zero gradient), (N, C, d) and (C,) layouts,
  float32 logits (loss and gradient float32).
- 5.8 xavier and kaiming, uniform and normal: the standard deviation from the right fans
  (fan_in ≠ fan_out), gain, mode, nonlinearity, a (a = 2: its gain is far from a = 0's);
  draws, not values repeated, a grid, pairs ±h or neighbours that are not independent;
  ``generator`` and ``manual_seed`` honoured (the same seed, the same values; another seed
  or the same generator again, other values); a float32 tensor stays float32.
- 5.9 dropout: each output 0 or x/(1−p), kept elements independent (neighbours and rows
  uncorrelated: no fixed pattern, no row of the mask reused), the kept fraction within six
  sigma of 1−p, the gradient the same mask, eval and p = 0 the identity, p = 1 zeros, a new
  mask per call (another generator's seed, or the same generator again, another mask), a
  Dropout module in eval.
- 5.10 BatchNorm1d: training outputs, running_mean / running_var (unbiased) /
  num_batches_tracked after each batch, momentum None, eval with the running statistics
  (and leaving them alone), buffers that do not require grad, gradients; (N, C) and
  (N, C, L); no running stats; no affine.
- 5.11 DataLoader: exact batches, the shuffled order ``randperm(n, generator=g)`` epoch
  after epoch (the parent's ``default_rng(seed).permutation``), drop_last, the global
  generator without one, TensorDataset batches (collated: a list of items is named).
- 5.12 checkpoint: the output, gradients equal to the plain run's (the parent's NumPy
  backward), none of fn's intermediates alive after the forward (weak references), random
  numbers inside fn replayed and the global generator put back after the replay (the
  program draws between forward and backward and after), weights as arguments and closed
  over, a Sequential of Linear.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from ...harness.api import Case, Check, Verdict, compare, show
from ...harness.table import (
    Field,
    Fields,
    Mistake,
    Rows,
    each,
    first,
    record,
    row,
    rules,
    say,
    tr,
    where,
)
from . import programs
from .cases import (
    batchnorm_case,
    checkpoint_case,
    container_case,
    container_tree,
    cross_entropy_case,
    deep_tree,
    dropout_case,
    gain_of,
    init_case,
    linear_forward_case,
    linear_init_case,
    load_case,
    loader_case,
    masks_coincide,
    members_case,
    model_tree,
    named_modules_case,
    neighbour_problem,
    pattern_problem,
    registration_case,
    repeats_problem,
    sample_problem,
    script_text,
    shared_tree,
    simulate_registration,
    softmax_case,
    state_dict_case,
    tied_tree,
    train_case,
    walk_modules,
)

RTOL, ATOL = 1e-7, 1e-9

# what checks cannot avoid running (a stand-in exists for each: standins.py)
MODULE = ("5.1",)  # any Module subclass with attributes
TREE = ("5.1", "5.3")  # a module put in eval(), or walked


def _close(got: Any, want: Any, path: str, rtol: float = RTOL, atol: float = ATOL) -> str | None:
    return compare(got, want, rtol=rtol, atol=atol, path=path)


def _is(facts: Callable[[Case, Any], dict], name: str) -> Callable[[Case, Any], Any]:
    """A rule's condition: what ``facts(case, got)`` derives as ``name`` (``rules`` gives its
    facts to the words only)."""
    return lambda case, got: facts(case, got)[name]


# -- 5.1 ----------------------------------------------------------------------------------------

# the tables a registration script fills: the program's record key, the name a student
# reads, what kind of thing a name there is and what it accepts
TABLES = [
    (
        "parameters",
        "_parameters",
        {"en": "parameter", "zh": "参数"},
        {"en": "a Parameter", "zh": "Parameter"},
    ),
    (
        "modules",
        "_modules",
        {"en": "child module", "zh": "子模块"},
        {"en": "a Module", "zh": "Module"},
    ),
    ("buffers", "_buffers", {"en": "buffer", "zh": "缓冲区"}, {"en": "a Tensor", "zh": "Tensor"}),
]
WORDS = {"param": "Parameter(...)", "module": "Module()", "tensor": "Tensor(...)", "int": "3"}
WORDS |= {"none": "None", "buffer": "register_buffer(...)"}
PLACES = {key: words for key, words, _, _ in TABLES} | {
    "plain": {"en": "a plain attribute", "zh": "普通属性"}
}


def _refusal(case: Case, received: Any) -> str | None:
    """The first refusal PyTorch makes that the script did not, or the reverse. Code, not a
    table: a step is judged against the tables as the script had left them (the replay,
    ``simulate_registration``)."""
    steps = case.inputs["script"]
    for step, ((action, name), w, got) in enumerate(
        zip(steps, case.expected.errors, received["errors"])
    ):
        if w and not got:
            before = simulate_registration(steps[:step])
            kind, allowed = next((k, a) for t, _, k, a in TABLES if name in getattr(before, t))
            what = {
                "tensor": tr("a plain Tensor", "普通 Tensor"),
                "module": tr("a Module", "Module"),
            }
            what, kind, allowed = what.get(action, "3"), say(kind), say(allowed)
            return tr(
                f"self.{name} = {what} raised nothing, but {name!r} is a registered {kind}: "
                f"PyTorch raises TypeError ({allowed} or None expected)",
                f"self.{name} = {what} 没有引发异常，但 {name!r} 是已注册的{kind}："
                f"PyTorch 会引发 TypeError（期望 {allowed} 或 None）",
            )
        if got and not w:
            also = (
                tr(
                    " (None keeps a registered name, as None)",
                    "（赋值为 None 时，已注册的名字仍留在原来的表中，值为 None）",
                )
                if action == "none"
                else ""
            )
            return tr(
                f"{script_text([[action, name]])} raised {got}, which PyTorch allows{also}",
                f"{script_text([[action, name]])} 引发了 {got}，而 PyTorch 允许这样做{also}",
            )
    return None


def _placed(case: Case, got: Any) -> dict:
    """The first table that differs (a name missing, and where it went; one left over; the
    order), then __dict__'s names, then a name that gives another object."""
    want = case.expected
    tables = [(words, getattr(want, t), got[t]) for t, words, _, _ in TABLES]
    words, due, listed = next((t for t in tables if list(t[2]) != list(t[1])), ("", [], []))
    lost = next((n for n in due if n not in listed), None)
    went = next(
        (
            tr(f" (it went to {say(PLACES[t])})", f"（实际去向：{say(PLACES[t])}）")
            for t in PLACES
            if lost in got[t]
        ),
        "",
    )
    found = got["found"] if isinstance(got["found"], dict) else {}
    left = next((n for n in listed if n not in due), None)
    last = next((WORDS[a] for a, n in reversed(case.inputs["script"]) if n == left), "")
    steps = case.inputs["script"]
    table = next((t for t, w, _, _ in TABLES if w == words), None)
    ever = [
        getattr(simulate_registration(steps[: k + 1]), table or "plain") for k in range(len(steps))
    ]
    return dict(table=words, listed=listed, due=due, lost=lost, went=went) | {
        "left": left,
        "never": left is not None and not any(left in names for names in ever),
        "why": (
            tr(f"self.{left} = {last} is not {kind}", f"self.{left} = {last} 不是 {kind}")
            if (
                kind := {
                    "parameters": tr("a Parameter", "Parameter"),
                    "modules": tr("a Module", "Module"),
                }.get(table or "")
            )
            else tr("only register_buffer adds a buffer", "只有 register_buffer 才会添加缓冲区")
        ),
        "extra": next((n for n in got["plain"] if n not in want.plain), None),
        "absent": next((n for n in want.plain if n not in got["plain"]), None),
        "moved": next((n for n, step in want.found.items() if found.get(n) != step), None),
    }


# the script's steps replayed: the first refusal missed or made, then each table's names
# and order, __dict__, and which object each name gives
REGISTRATION_VERDICT = first(
    lambda case, r: record(r, ("errors", "plain", "found", *(t[0] for t in TABLES))),
    _refusal,
    rules(
        (
            _is(_placed, "lost"),
            {
                "en": "{lost!r} is not in {table} after: {want.script}{went}",
                "zh": "执行 {want.script} 之后，{lost!r} 不在 {table} 中{went}",
            },
        ),
        (
            _is(_placed, "never"),
            {
                "en": "{left!r} went into {table} after: {want.script}, yet nothing registered it "
                "there: {why}",
                "zh": "执行 {want.script} 之后，{left!r} 出现在 {table} 中，但没有任何操作把它"
                "注册到那里：{why}",
            },
        ),
        (
            _is(_placed, "left"),
            {
                "en": "{left!r} is still in {table} after: {want.script}: a name lives in one "
                "place only (remove it from the other tables when it is set again)",
                "zh": "执行 {want.script} 之后，{left!r} 仍在 {table} 中：一个名字只能存在于一处"
                "（再次赋值时，要把它从其他表中删除）",
            },
        ),
        (
            _is(_placed, "table"),
            {
                "en": "{table} is {listed}, expected {due} (in the order first set)",
                "zh": "{table} 是 {listed}，期望 {due}（按首次赋值的顺序）",
            },
        ),
        (
            _is(_placed, "extra"),
            {
                "en": "{extra!r} is in the instance's __dict__ after: {want.script}: a registered "
                "name must not also be a plain attribute (normal lookup finds __dict__ first, so "
                "getattr would return the old value)",
                "zh": "执行 {want.script} 之后，{extra!r} 出现在实例的 __dict__ 中：已注册的名字"
                "不能同时是普通属性（常规的属性查找先找 __dict__，getattr 会返回旧值）",
            },
        ),
        (
            _is(_placed, "absent"),
            {
                "en": "self.{absent} is not a plain attribute after: {want.script}",
                "zh": "执行 {want.script} 之后，self.{absent} 不是普通属性",
            },
        ),
        (
            _is(_placed, "moved"),
            {
                "en": "after {want.script}, self.{moved} is not the object last assigned to it",
                "zh": "执行 {want.script} 之后，self.{moved} 不是最后一次赋给它的对象",
            },
        ),
        facts=_placed,
    ),
)


REGISTRATION = [
    [["param", "w"], ["module", "child"], ["int", "k"], ["tensor", "t"]],
    [["param", "w"], ["param", "v"], ["param", "w"]],
    [["param", "w"], ["module", "w"]],
    [["module", "m"], ["param", "m"], ["int", "n"]],
    [["int", "w"], ["param", "w"]],
    [["param", "w"], ["none", "w"], ["param", "w"]],
    [["param", "w"], ["tensor", "w"]],
    [["module", "m"], ["int", "m"]],
    [["buffer", "b"], ["tensor", "b"], ["none", "b"], ["int", "b"]],
    [["buffer", "b"], ["param", "b"]],
    [["module", "m"], ["none", "m"], ["tensor", "x"]],
    [["int", "m"], ["module", "m"]],
    [["param", "w"], ["none", "w"]],
    [["buffer", "b"], ["module", "b"]],
]


# -- 5.2 ----------------------------------------------------------------------------------------


def _equal(a: Any, b: Any) -> bool:
    """Whether two values a program sent are equal (NumPy's ``array_equal``: the same shape
    and values; None and None; the same "<type>" text), compared here, in the parent. A flag
    worked out in the child could be changed by the code under test, which runs in the same
    process; values, once sent, cannot."""
    try:
        return bool(np.array_equal(a, b))
    except (TypeError, ValueError):  # values that cannot be compared (a text and a number)
        return False


def _is_shaped(value: Any, shape: tuple | None) -> bool:
    return isinstance(value, np.ndarray) and value.shape == shape


WEIGHT = {"en": "Linear's weight", "zh": "Linear 的权重"}
BIAS = {"en": "Linear's bias", "zh": "Linear 的偏置"}


def _both(names: Any) -> str:
    """The parameters the program found equal, as words ("weight and bias")."""
    return tr(" and ", " 和 ").join(map(str, names)) if isinstance(names, list) else show(names)


def _names(case: Case) -> list[str]:
    """The Linear's parameters: weight, and bias unless bias=False."""
    return ["weight", "bias"] if case.inputs["bias"] else ["weight"]


def _alike(case: Case, got: Any, one: str, two: str) -> list[str]:
    """The parameters in which two of the program's Linears hold equal values, compared
    here: "first" (made after manual_seed(seed)), "again" (after the same seed),
    "following" (made right after it), "other" (after manual_seed(seed + 1))."""
    first = {"weight": got["weight"], "bias": got["bias"]}
    a, b = (first if k == "first" else got[k] for k in (one, two))
    return [n for n in _names(case) if _equal(a.get(n), b.get(n))]


def _linear_init(case: Case, got: Any) -> dict:
    """The weight's and the bias's shapes and statistics (a k from out_features named)."""
    want, weight, bias = case.expected, got["weight"], got["bias"]
    (n_out, n_in), shaped = want.shape, _is_shaped(weight, want.shape)
    repeats = shaped and repeats_problem(weight, WEIGHT)
    sample = shaped and weight.any() and sample_problem(weight, "uniform", want.scale, WEIGHT)
    pattern = shaped and pattern_problem(weight, "uniform", want.scale, WEIGHT)
    k_out = 1 / np.sqrt(n_out) if n_out else 0.0
    swapped = sample and n_out != n_in and abs(float(np.abs(weight).max()) / k_out - 1) < 0.05
    top = float(np.abs(weight).max()) if sample else 0.0
    kaiming = sample and abs(top / np.sqrt(6 / n_in) - 1) < 0.05  # kaiming_uniform_'s a = 0
    bias_shaped = _is_shaped(bias, want.bias_shape)
    bias_repeats = bias_shaped and bias.any() and repeats_problem(bias, BIAS)
    bias_sample = bias_shaped and bias.any() and sample_problem(bias, "uniform", want.scale, BIAS)
    bias_pattern = bias_shaped and pattern_problem(bias, "uniform", want.scale, BIAS)
    return (
        dict(shape=getattr(weight, "shape", show(weight)), sample=sample, pattern=pattern)
        | dict(
            bias_pattern=bias_pattern, seed=case.inputs["seed"], other_seed=case.inputs["seed"] + 1
        )
        | dict(repeats=repeats, bias_repeats=bias_repeats)
        | dict(other=_both(_alike(case, got, "first", "other")))
        | dict(next=_both(_alike(case, got, "again", "following")))
        | dict(
            k=tr(
                f": in_features={n_in}, not out_features",
                f"：应为 in_features={n_in}，而不是 out_features",
            )
            if swapped
            else f" = 1/√{n_in}"
        )
        | dict(kaiming=kaiming)
        | dict(normal=shaped and abs(float(np.std(weight)) - 1) < 0.05 and want.scale < 0.5)
        | dict(bias_shown=show(bias), bias_sample=bias_sample)
        | dict(dtype=next((d for d in got["float32"] if d not in ("float32", "")), None))
    )


LINEAR_INIT_KEYS = ("weight", "bias", "again", "float32", "kept", "other", "following", "reset")

# the weight (its shape, not zeros, not N(0, 1), U(-k, k)), the bias (none with bias=False),
# then the generator, the dtype and the objects reset_parameters fills
LINEAR_INIT = rules(
    (
        lambda case, got: not _is_shaped(got["weight"], case.expected.shape),
        {
            "en": "Linear's weight has shape {shape}, expected {want.shape} (out_features, "
            "in_features), as in PyTorch",
            "zh": "Linear 的权重形状为 {shape}，期望 {want.shape}，即 (out_features, "
            "in_features)，与 PyTorch 一致",
        },
    ),
    (
        lambda case, got: not got["weight"].any(),
        {
            "en": "Linear's weight is all zeros: reset_parameters must draw U(-k, k)",
            "zh": "Linear 的权重全为零：reset_parameters 必须从 U(-k, k) 中抽样",
        },
    ),
    (
        _is(_linear_init, "normal"),
        {
            "en": "Linear's weight looks N(0, 1) (standard deviation ≈ 1): PyTorch's default is "
            "U(-k, k) with k = 1/√in_features = {want.scale:.4g}",
            "zh": "Linear 的权重看起来服从 N(0, 1)（标准差 ≈ 1）：PyTorch 的默认初始化是 "
            "U(-k, k)，其中 k = 1/√in_features = {want.scale:.4g}",
        },
    ),
    (_is(_linear_init, "repeats"), "{repeats}"),
    (
        _is(_linear_init, "kaiming"),
        {
            "en": "{sample}: the bound is √6/√in_features, kaiming_uniform_'s with its default "
            "a = 0 (PyTorch's Linear draws as kaiming_uniform_ with a = √5, the bound "
            "1/√in_features)",
            "zh": "{sample}：边界是 √6/√in_features，即 kaiming_uniform_ 取默认 a = 0 时的边界"
            "（PyTorch 的 Linear 按 a = √5 的 kaiming_uniform_ 抽样，边界为 1/√in_features）",
        },
    ),
    (
        _is(_linear_init, "sample"),
        {"en": "{sample} (k = 1/√in_features{k})", "zh": "{sample}（k = 1/√in_features{k}）"},
    ),
    (_is(_linear_init, "pattern"), "{pattern}"),
    (
        lambda case, got: case.expected.bias_shape is None and got["bias"] is not None,
        {
            "en": "Linear(bias=False) has a bias: {bias_shown}",
            "zh": "Linear(bias=False) 却有偏置：{bias_shown}",
        },
    ),
    (
        lambda case, got: (
            case.expected.bias_shape and not _is_shaped(got["bias"], case.expected.bias_shape)
        ),
        {
            "en": "Linear's bias is {bias_shown}, expected shape {want.bias_shape}",
            "zh": "Linear 的偏置是 {bias_shown}，期望形状 {want.bias_shape}",
        },
    ),
    (
        lambda case, got: case.expected.bias_shape and not got["bias"].any(),
        {
            "en": "Linear's bias is zeros: PyTorch draws it from U(-k, k) too, k = 1/√in_features",
            "zh": "Linear 的偏置全为零：PyTorch 也从 U(-k, k) 中抽取偏置，k = 1/√in_features",
        },
    ),
    (_is(_linear_init, "bias_repeats"), "{bias_repeats}"),
    (_is(_linear_init, "bias_sample"), "{bias_sample}"),
    (_is(_linear_init, "bias_pattern"), "{bias_pattern}"),
    (
        lambda case, got: _alike(case, got, "first", "again") != _names(case),
        {
            "en": "two Linears made after the same manual_seed(s) differ: draw with init.uniform_ "
            "(the framework's generator), not NumPy's global one",
            "zh": "在相同的 manual_seed(s) 之后创建的两个 Linear 不相同：请用 init.uniform_"
            "（框架的生成器）抽样，而不是 NumPy 的全局生成器",
        },
    ),
    (
        lambda case, got: _alike(case, got, "first", "other"),
        {
            "en": "two different seeds gave the same weights: Linears made after "
            "manual_seed({seed}) and manual_seed({other_seed}) have the same {other}: draw with "
            "init.uniform_ (the framework's generator, which manual_seed restarts), not from a "
            "fixed table or a generator of your own",
            "zh": "两个不同的随机种子给出了相同的权重：在 manual_seed({seed}) 和 "
            "manual_seed({other_seed}) 之后创建的 Linear 有相同的 {other}：请用 init.uniform_ "
            "抽样（框架的生成器，manual_seed 会重置它），而不是取自固定的表或自己创建的生成器",
        },
    ),
    (
        lambda case, got: _alike(case, got, "again", "following"),
        {
            "en": "two Linears made one after the other have the same {next}: each must draw new "
            "numbers from the framework's generator (init.uniform_), which moves on with each "
            "draw",
            "zh": "先后创建的两个 Linear 有相同的 {next}：每个都必须从框架的生成器"
            "（init.uniform_）中抽取新的随机数，生成器每抽一次都会前进",
        },
    ),
    (
        lambda case, got: _equal(*got["reset"]),
        {
            "en": "reset_parameters() left the same weights: it must draw new ones (init.uniform_)",
            "zh": "reset_parameters() 之后权重没有变：它必须重新抽样（init.uniform_）",
        },
    ),
    (
        _is(_linear_init, "dtype"),
        {
            "en": "Linear(..., dtype=float32)'s parameters are {dtype}: reset_parameters fills "
            "the Parameters __init__ made (of the dtype asked for) in place, with init.uniform_",
            "zh": "Linear(..., dtype=float32) 的参数是 {dtype}：reset_parameters 应该用 "
            "init.uniform_ 原地填充 __init__ 创建的 Parameter（它们已是所要求的数据类型）",
        },
    ),
    (
        lambda case, got: not got["kept"],
        {
            "en": "reset_parameters() replaced the weight or the bias by a new Parameter: fill "
            "the existing ones in place (init.uniform_), so an optimizer holding them still does",
            "zh": "reset_parameters() 用新的 Parameter 替换了权重或偏置：应原地填充已有的参数"
            "（init.uniform_），这样持有它们的优化器仍然持有它们",
        },
    ),
    keys=LINEAR_INIT_KEYS,
    facts=_linear_init,
)


def _rows(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """x and g as rows: (N, in) and (N, out)."""
    x, w, g = case.inputs["x"], case.inputs["w"], case.inputs["g"]
    return x.reshape(-1, w.shape[1]), g.reshape(-1, w.shape[0])


def _without_bias(case: Case) -> np.ndarray | None:
    return None if case.inputs["b"] is None else case.inputs["x"] @ case.inputs["w"].T


LINEAR_GRADS = [
    Field("x_grad", "x.grad", RTOL, ATOL),
    Field("w_grad", "weight.grad", RTOL, ATOL),
    Field("b_grad", "bias.grad", RTOL, ATOL),
]
LINEAR_MISTAKES = [
    Mistake("y", _without_bias, {"en": "the bias is not added", "zh": "没有加上偏置"}),
    Mistake(
        "x_grad",
        lambda case: _rows(case)[1] @ case.inputs["w"].T,
        {
            "en": "∂L/∂x = g W, (N, out)(out, in), not g Wᵀ",
            "zh": "∂L/∂x = g W，(N, out)(out, in)，而不是 g Wᵀ",
        },
    ),
    Mistake(
        "w_grad",
        lambda case: _rows(case)[0].T @ _rows(case)[1],
        {
            "en": "∂L/∂W has W's shape (out, in): gᵀx, not xᵀg",
            "zh": "∂L/∂W 的形状与 W 相同，为 (out, in)：应是 gᵀx，而不是 xᵀg",
        },
    ),
    Mistake(
        "b_grad",
        lambda case: _rows(case)[1].mean(axis=0),
        {
            "en": "the bias gradient sums over the batch (axis 0): Σₙ g, not the mean",
            "zh": "偏置的梯度是在批量（轴 0）上求和：Σₙ g，而不是取均值",
        },
    ),
    Mistake(
        "b_grad",
        lambda case: _rows(case)[1].sum(axis=1),
        {
            "en": "the bias gradient sums over the batch (axis 0), not the outputs",
            "zh": "偏置的梯度是在批量（轴 0）上求和，而不是在输出上求和",
        },
    ),
]


def _arrives(field: Field) -> Verdict:
    """A gradient where its input requires grad (x, weight, bias: expected not None), and
    none where it does not."""
    key, name = field.key, field.name
    return rules(
        (
            lambda case, got: getattr(case.expected, key) is not None and got[key] is None,
            {
                "en": f"{name} is None, but it requires grad: backward returns a gradient for each "
                "input where ctx.needs_input_grad says so (index 0 x, 1 weight, 2 bias)",
                "zh": f"{name} 是 None，但它需要梯度：ctx.needs_input_grad 指明需要梯度的每个输入，"
                "backward 都要为它返回梯度（索引 0 是 x，1 是 weight，2 是 bias）",
            },
        ),
        (
            lambda case, got: getattr(case.expected, key) is None and got[key] is not None,
            {
                "en": f"{name.split('.')[0]} does not require grad, yet {name} was set: leave "
                "requires_grad as the caller set it (only inputs that require grad receive a "
                "gradient)",
                "zh": f"{name.split('.')[0]} 不需要梯度，但 {name} 被设置了：requires_grad 应保持"
                "调用者设置的值（只有需要梯度的输入才会得到梯度）",
            },
        ),
    )


# the gradients of y.backward(g), each present where due, then its value
BACKWARD = first(*(first(_arrives(f), Fields([f], LINEAR_MISTAKES)) for f in LINEAR_GRADS))
SECOND = {
    "en": "the second derivatives: backward's Tensor operations must use grad_output and the "
    "saved x and weight, so all three are recorded",
    "zh": "二阶导数：backward 中的 Tensor 运算必须用到 grad_output 以及保存的 x 和 weight，"
    "这样三者都会被记录",
}
# the gradients of (h·gx + k·gW).sum().backward(), after grad(…, create_graph=True)
SECOND_ORDER = Fields(
    [
        Field(f.key, f.name, RTOL, ATOL, lambda case, i=i: case.expected.second[i], says=SECOND)
        for i, f in enumerate(LINEAR_GRADS)
    ],
    before=rules(
        (
            lambda case, got: not all(got.get("recorded", [True])),
            {
                "en": "the gradients LinearFunction.backward returned were not recorded under "
                "create_graph=True: they were computed outside the graph (on .data arrays, or "
                "from a detached grad_output), so Linear is not twice differentiable, as "
                "PyTorch's is",
                "zh": "在 create_graph=True 下，LinearFunction.backward 返回的梯度没有被记录："
                "它们是在计算图之外算出的（在 .data 数组上，或由分离的 grad_output 算出），"
                "因此 Linear 不能像 PyTorch 的那样求二阶导数",
            },
        )
    ),
)


LINEAR_Y = Fields(
    [Field("y", "y", RTOL, ATOL)],
    LINEAR_MISTAKES,
    keys=("y", "requires_grad", "x_grad", "w_grad", "b_grad"),
    before=rules(
        (
            lambda case, got: (
                isinstance(got["y"], np.ndarray) and got["y"].shape != case.expected.y.shape
            ),
            {
                "en": "Linear's output has shape {got[y].shape}, expected {want.y.shape}: x Wᵀ + b",
                "zh": "Linear 的输出形状为 {got[y].shape}，期望 {want.y.shape}：x Wᵀ + b",
            },
        )
    ),
)
# y (its shape first), that y is recorded, then the gradients (of y.backward(g), or the
# second derivatives), each declared with the known wrong formulas
LINEAR_FORWARD = first(
    LINEAR_Y,
    rules(
        (
            lambda case, got: not got["requires_grad"],
            {
                "en": "y does not require grad: return LinearFunction.apply's Tensor (it "
                "records y)",
                "zh": "y 不需要梯度：应返回 LinearFunction.apply 得到的 Tensor（它会记录 y）",
            },
        )
    ),
    lambda case, r: (BACKWARD if case.expected.second is None else SECOND_ORDER)(case, r),
)


# -- 5.3 ----------------------------------------------------------------------------------------


def _last(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _walked(key: str, call: str) -> Callable[[Case, Any], dict]:
    """The facts of the walk ``call`` (the record's ``key``): its names and objects against
    PyTorch's, a child's name without its prefix, one object twice, a falsy module skipped."""

    def facts(case: Case, got: Any) -> dict:
        walk, want = got.get(key), getattr(case.expected, key)
        pairs = walk if isinstance(walk, list) else []
        names, due = [p[0] for p in pairs], [p[0] for p in want]
        seen: dict = {}
        for name, index in pairs:
            seen.setdefault(index, []).append(name)
        once = len({p[1] for p in want}) == len(want)
        deep = (
            names != due and names == [_last(n) for n in due] and next(n for n in due if "." in n)
        )
        skipped = [i for _, i in want if i not in seen]
        tree = case.inputs["tree"]
        empty = key == "names" and skipped and tree["modules"][skipped[0]].get("empty")
        missing = [n for n in due if n not in names]
        ids = dict(pairs)
        # a name not yielded, taken for an earlier one with the same last part (another object)
        alias = next(
            (
                (m, n)
                for m in missing[:1]
                for n in names
                if _last(n) == _last(m) and ids.get(n) != dict(want).get(m)
            ),
            None,
        )
        extra = next((n for n in names if n not in due), None)
        nones = _none_entries(tree, "buffers" if "buffers" in key else "params")
        return (
            dict(what=call, shown=show(walk), listed=isinstance(walk, list), names=names, due=due)
            | dict(
                same=names == due and [p[1] for p in pairs] == [p[1] for p in want],
                deep=deep,
                short=deep and _last(deep),
                missing=missing,
                twice=once and next((ns for ns in seen.values() if len(ns) > 1), None),
                falsy=say(FALSY) if empty else "",
            )
            | dict(
                dotted=next((n for n in names if n.startswith(".")), None),
                alias=alias,
                none=extra if extra in nones or extra in {"model." + n for n in nones} else None,
                order=call.startswith("named_modules")
                and sorted(names) == sorted(due)
                and names != due
                and _order(names, due),
            )
        )

    return facts


def _none_entries(tree: Any, table: str) -> set[str]:
    """The dotted names of the tree's entries set to None (parameters or buffers)."""
    found = set()
    for path, index in walk_modules(tree, dedup=False):
        for name, tid, *_ in tree["modules"][index][table]:
            if tid is None:
                found.add(f"{path}.{name}" if path else name)
    return found


def _order(names: list[str], due: list[str]) -> str:
    """What is out of order in a walk that yields the right names: a module after one inside
    it, or (depth first) a module's next sibling before its whole subtree."""
    parent = {
        n: max((p for p in due if p != n and (p == "" or n.startswith(p + "."))), key=len)
        for n in due
        if any(p != n and (p == "" or n.startswith(p + ".")) for p in due)
    }
    late = next((n for n, p in parent.items() if names.index(n) < names.index(p)), None)
    if late is not None:
        return tr(
            f"yielded {late!r} before {parent[late]!r}, the module holding it: a module comes "
            "before the modules inside it",
            f"先产出了 {late!r}，后产出包含它的模块 {parent[late]!r}：一个模块要排在它内部的"
            "模块之前",
        )
    i = next(i for i, (a, b) in enumerate(zip(names, due)) if a != b)
    return tr(
        f"yielded {names[i]!r} before {due[i]!r}: depth first, a module's whole subtree comes "
        "before its next sibling",
        f"在 {due[i]!r} 之前产出了 {names[i]!r}：按深度优先，一个模块的整个子树要排在它的"
        "下一个兄弟模块之前",
    )


FALSY = {
    "en": " (that module is falsy, as an empty Sequential or ModuleList is: skip a child only "
    "when it is None, `if child is None`, not `if not child`)",
    "zh": "（该模块是假值，空的 Sequential 或 ModuleList 都是如此：只在子模块为 None 时才跳过它，"
    "即 `if child is None`，而不是 `if not child`）",
}


def _walk(walked: Callable[[Case, Any], dict], keys: tuple) -> Verdict:
    """One walk's rows, read from its facts (``_walked``)."""
    return rules(
        (
            lambda case, got: not walked(case, got)["listed"],
            {"en": "{what} gave {shown}", "zh": "{what} 返回了 {shown}"},
        ),
        (_is(walked, "same"), None),
        (
            _is(walked, "dotted"),
            {
                "en": "{what} gives {dotted!r}: the root's prefix is empty, so its children's "
                "names start without a dot",
                "zh": "{what} 给出了 {dotted!r}：根模块的前缀为空，所以它的子模块的名字开头没有点",
            },
        ),
        (
            _is(walked, "none"),
            {
                "en": "{what} yielded {none!r}, which is set to None: an entry set to None is not "
                "yielded",
                "zh": "{what} 产出了 {none!r}，但它被设为 None：设为 None 的条目不应产出",
            },
        ),
        (
            _is(walked, "deep"),
            {
                "en": "{what} gives {short!r} where PyTorch gives {deep!r}: prefix each child's "
                "names with its attribute name and a dot{falsy}",
                "zh": "{what} 给出 {short!r}，而 PyTorch 给出 {deep!r}：子模块产出的每个名字前，"
                "都要加上该子模块在父模块中的属性名和一个点{falsy}",
            },
        ),
        (
            _is(walked, "twice"),
            {
                "en": "{what} yielded one object twice (as {twice[0]!r} and {twice[1]!r}): a "
                "shared module or a tied weight is yielded once, at its first name "
                "(remove_duplicate: keep a set of those seen){falsy}",
                "zh": "{what} 把同一个对象产出了两次（作为 {twice[0]!r} 和 {twice[1]!r}）：共享的"
                "模块或绑定的权重只产出一次，用它的第一个名字（remove_duplicate：用一个集合记下"
                "已见过的对象）{falsy}",
            },
        ),
        (
            _is(walked, "alias"),
            {
                "en": "{what} is missing {alias[0]!r}: it was taken for {alias[1]!r}, which has "
                "the same name within its module; two tensors are one only when they are the same "
                "object",
                "zh": "{what} 缺少 {alias[0]!r}：它被当成了 {alias[1]!r}，两者在各自模块中的名字"
                "相同；两个张量只有是同一个对象时才算同一个",
            },
        ),
        (
            _is(walked, "missing"),
            {
                "en": "{what} is missing {missing[0]!r}: expected {due}, received {names}{falsy}",
                "zh": "{what} 缺少 {missing[0]!r}：期望 {due}，实际收到 {names}{falsy}",
            },
        ),
        (_is(walked, "order"), "{what} {order}{falsy}"),
        (
            lambda case, got: True,
            {
                "en": "{what}: expected {due}, received {names}{falsy}",
                "zh": "{what}：期望 {due}，实际收到 {names}{falsy}",
            },
        ),
        keys=keys,
        facts=walked,
    )


def walks(*calls: tuple[str, str], optional: tuple = ()) -> Verdict:
    """Each walk (its record key, the call) by ``_walk``'s rows, in order."""
    keys = tuple(key for key, _ in calls if key not in optional)
    return first(*(_walk(_walked(key, call), keys) for key, call in calls))


NAMED_MODULES = walks(
    ("names", "named_modules()"),
    ("all_names", "named_modules(remove_duplicate=False)"),
    ("prefixed", 'named_modules(prefix="model")'),
)
NAMED_MEMBERS = walks(
    ("parameters", "named_parameters()"),
    ("buffers", "named_buffers()"),
    ("all_parameters", "named_parameters(remove_duplicate=False)"),
    ("own", "named_parameters(recurse=False)"),
    ("prefixed", 'named_parameters(prefix="model")'),
    ("own_prefixed", 'named_parameters(prefix="model", recurse=False)'),
    optional=("own_prefixed",),
)


def _trained(case: Case, got: Any) -> dict:
    """The first module whose training flag differs after model.eval(), model.train() or a
    submodule's eval()."""
    want, n = case.expected, len(case.expected.paths)
    calls = ["model.eval()", "model.train()", f"{want.paths[want.sub]}.eval()"]
    due = [[False] * n, [True] * n, [i not in want.below for i in range(n)]]
    flags = (
        (c, i, a != b)
        for c, w, g in zip(calls, due, got["flags"])
        for i, (a, b) in enumerate(zip(w, g))
    )
    call, i, _ = next((flag for flag in flags if flag[2]), (None, 0, False))
    mode = tr("eval", "评估") if call == calls[1] else tr("training", "训练")
    verb = (
        tr(f"left {want.paths[i]} in {mode} mode", f"让 {want.paths[i]} 仍处于{mode}模式")
        if i
        else tr("did not set its own training flag", "没有设置它自己的 training 标志")
    )
    return dict(call=call, path=want.paths[i], verb=verb) | dict(
        stray=i and i not in want.below and call == calls[2],
        falsy=say(FALSY) if case.inputs["tree"]["modules"][i].get("empty") else "",
    )


TRAIN = rules(
    (
        _is(_trained, "stray"),
        {
            "en": "{call} changed {path}, which is not below it",
            "zh": "{call} 改变了 {path}，而它并不在其下",
        },
    ),
    (
        _is(_trained, "call"),
        {
            "en": "{call} {verb}: the mode goes down to every module below, recursively{falsy}",
            "zh": "{call} {verb}：模式要递归地传到其下的每个模块{falsy}",
        },
    ),
    (
        lambda case, got: not got["returned_self"],
        {
            "en": "model.eval() did not return the model itself (train(mode) returns self)",
            "zh": "model.eval() 没有返回模型本身（train(mode) 返回 self）",
        },
    ),
    keys=("flags", "returned_self"),
    facts=_trained,
)


# -- 5.4 ----------------------------------------------------------------------------------------


def _container(case: Case, got: Any) -> dict:
    return {"kind": "Sequential" if case.inputs["kind"] == "sequential" else "ModuleList"}


RAN = {
    "en": "Sequential ran its modules in the order {got[calls]}, expected {want.calls}: ",
    "zh": "Sequential 运行其模块的顺序是 {got[calls]}，期望 {want.calls}：",
}
# the children registered, named and ordered, run as often as held, the output, the hooks
CONTAINER = first(
    rules(
        (
            lambda case, got: not got["names"] and case.expected.names,
            {
                "en": "{kind}'s modules are not registered (its _modules is empty): a plain "
                "Python list hides them from parameters() and state_dict",
                "zh": "{kind} 的模块没有注册（它的 _modules 为空）：放在普通的 Python 列表里，"
                "parameters() 和 state_dict 就看不到它们",
            },
        ),
        (
            lambda case, got: got["names"] != case.expected.names,
            {
                "en": "{kind}'s children are named {got[names]}, expected {want.names}",
                "zh": "{kind} 的子模块名为 {got[names]}，期望 {want.names}",
            },
        ),
        (
            lambda case, got: got["order"] != case.expected.order,
            {
                "en": "{kind}'s children are in the order {got[order]}, expected {want.order}",
                "zh": "{kind} 的子模块顺序为 {got[order]}，期望 {want.order}",
            },
        ),
        (
            lambda case, got: (
                got["calls"]
                == list(dict.fromkeys(case.expected.calls or []))
                != case.expected.calls
            ),
            {
                "en": RAN["en"] + "a module held twice runs twice (iterate "
                "self._modules.values(); children() yields each module once)",
                "zh": RAN["zh"] + "被持有两次的模块要运行两次（遍历 self._modules.values()；"
                "children() 对每个模块只产出一次）",
            },
        ),
        (
            lambda case, got: case.expected.calls not in (None, got["calls"]),
            {
                "en": RAN["en"] + "each module once, in the order registered",
                "zh": RAN["zh"] + "每个模块运行一次，按注册的顺序",
            },
        ),
        keys=("names", "order", "calls", "y", "chained"),
        facts=_container,
    ),
    Fields([Field("y", "Sequential(...)(x)", RTOL, ATOL)]),
    rules(
        (
            lambda case, got: got.get("hooked", case.expected.calls) != case.expected.calls,
            {
                "en": "a forward hook on a module inside the Sequential did not run: call "
                "module(x), not module.forward(x) (__call__ runs forward, then the hooks)",
                "zh": "Sequential 中某个模块上的前向钩子没有运行：应调用 module(x)，而不是 "
                "module.forward(x)（__call__ 先运行 forward，再运行钩子）",
            },
        ),
        (
            lambda case, got: case.expected.chained and not got["chained"],
            {
                "en": "ModuleList.append did not return the ModuleList (PyTorch's returns self, "
                "to chain)",
                "zh": "ModuleList.append 没有返回 ModuleList（PyTorch 的版本返回 self，以便链式"
                "调用）",
            },
        ),
    ),
)


# -- 5.5 ----------------------------------------------------------------------------------------


def _state(case: Case, got: Any) -> dict:
    """state_dict's keys against PyTorch's (a child's without its prefix, one missing, one
    too many), then the first value that is no Tensor."""
    keys, listed = [k for k, _, _ in case.expected.keys], got["keys"]
    missing, extra = [k for k in keys if k not in listed], [k for k in listed if k not in keys]
    deep = listed != keys and listed == [_last(k) for k in keys]
    deep = deep and next(k for k in keys if "." in k)
    if not deep and missing and "." in missing[0] and _last(missing[0]) in listed:
        deep = missing[0]
    values = zip(keys, got["values"] or [])
    tree = case.inputs["tree"]
    paths = walk_modules(tree, dedup=False)
    once = {p for p, _ in walk_modules(tree)}
    hidden = [
        f"{p}.{n}" if p else n
        for p, i in paths
        for n, b, kept in tree["modules"][i]["buffers"]
        if b is not None and not kept
    ]
    shared = next(
        (p for p, _ in paths if missing and missing[0].startswith(p + ".") and p not in once), None
    )
    return (
        dict(due=keys, deep=deep, short=deep and _last(deep), missing=missing)
        | dict(
            extra=extra, array=next(((k, v.strip("<>")) for k, v in values if _not_tensor(v)), None)
        )
        | dict(
            why=(
                tr(
                    f": {extra[0]!r} is a non-persistent buffer (registered with "
                    "persistent=False), which state_dict leaves out",
                    f"：{extra[0]!r} 是非持久缓冲区（用 persistent=False 注册），state_dict "
                    "不包含它",
                )
                if extra and extra[0] in hidden
                else ""
            ),
            shared=(
                tr(
                    f" ({shared} is a module held under another name too: state_dict lists a "
                    "shared module under each of its names)",
                    f"（{shared} 这个模块还以另一个名字被持有：共享的模块在它的每个名字下都会"
                    "出现在 state_dict 中）",
                )
                if shared
                else ""
            ),
        )
    )


def _not_tensor(value: Any) -> bool:
    return isinstance(value, str) and value != "<Tensor>"


def _entries(case: Case) -> list[str]:
    return [f"state_dict()[{k!r}]" for k, *_ in case.expected.keys]


# the keys (prefixed, none missing or extra, in PyTorch's order), the values (tensors, each
# against the model's), then detached, and the model's own with keep_vars
STATE_DICT = first(
    rules(
        (
            _is(_state, "deep"),
            {
                "en": "state_dict gives {short!r} where PyTorch gives {deep!r}: prefix each "
                "child's keys with its name and a dot",
                "zh": "state_dict 给出 {short!r}，而 PyTorch 给出 {deep!r}：在每个子模块的键前"
                "加上它的名字和一个点",
            },
        ),
        (
            _is(_state, "missing"),
            {
                "en": "state_dict has no key {missing[0]!r}: expected {due}, received "
                "{got[keys]}{shared}",
                "zh": "state_dict 没有键 {missing[0]!r}：期望 {due}，实际收到 {got[keys]}{shared}",
            },
        ),
        (
            _is(_state, "extra"),
            {
                "en": "state_dict has a key {extra[0]!r} it must not have{why}: expected {due}",
                "zh": "state_dict 有一个不该有的键 {extra[0]!r}{why}：期望 {due}",
            },
        ),
        (
            lambda case, got: got["keys"] != [k for k, _, _ in case.expected.keys],
            {
                "en": "state_dict's keys are in the order {got[keys]}, expected PyTorch's {due}",
                "zh": "state_dict 的键顺序为 {got[keys]}，期望与 PyTorch 一致：{due}",
            },
        ),
        (
            _is(_state, "array"),
            {
                "en": "state_dict()[{array[0]!r}] is a {array[1]}, not a Tensor: the values are "
                "the tensors, detached (param.detach())",
                "zh": "state_dict()[{array[0]!r}] 是 {array[1]}，不是 Tensor：值应是分离后的张量"
                "（param.detach()）",
            },
        ),
        keys=("keys", "values", "requires_grad", "kept"),
        facts=_state,
    ),
    Fields([Field("values.*", _entries, RTOL, ATOL)]),
    rules(
        (
            lambda case, got: next(
                (k for (k, *_), flag in zip(case.expected.keys, got["requires_grad"]) if flag), None
            ),
            {
                "en": "state_dict()[{0!r}] requires grad: its values are detached "
                "(keep_vars=False)",
                "zh": "state_dict()[{0!r}] 需要梯度：它的值应是分离后的（keep_vars=False）",
            },
        ),
        (
            lambda case, got: next(
                (k for (k, *own), kept in zip(case.expected.keys, got["kept"]) if kept != own), None
            ),
            {
                "en": "state_dict(keep_vars=True)[{0!r}] is not the model's own tensor: with "
                "keep_vars the values are the Parameters and buffers themselves",
                "zh": "state_dict(keep_vars=True)[{0!r}] 不是模型自己的张量：使用 keep_vars 时，"
                "值就是 Parameter 和缓冲区本身",
            },
        ),
    ),
)


def _key(want: Any, kind: str, i: int) -> str:
    """The state_dict key of the model's tensor ``i`` of ``kind`` ("p" or "b")."""
    return next((k for k, kd, t in want.keys if kd == kind and t == i), f"{kind}{i}")


def _load(case: Case, got: Any) -> dict:
    """What load_state_dict raised, the first tensor of another dtype, the first Parameter
    replaced."""
    want, dtypes = case.expected, got.get("dtypes", {})
    wrong = ((_key(want, k, i), d) for k in "pb" for i, d in enumerate(dtypes.get(k, [])))
    return dict(
        did=(
            tr(f"raised {got['error']}", f"引发了 {got['error']}")
            if got["error"]
            else tr("raised nothing", "没有引发异常")
        ),
        lax=""
        if case.inputs["strict"]
        else tr(
            " (a wrong shape is an error even with strict=False)",
            "（即使 strict=False，形状不对也是错误）",
        ),
        unnamed=[k for k in want.error or () if k not in (got["message"] or "")],
        dtype=next(((k, d) for k, d in wrong if d not in (want.dtype, "")), None),
        replaced=next((name for name, same in got["same_objects"] if not same), None),
        shown=show(got["returned"]),
    )


# the error load_state_dict must raise (or not), then the dtype the model's tensors keep
LOAD_ERRORS = rules(
    (
        lambda case, got: case.expected.error is not None and got["error"] != "RuntimeError",
        {
            "en": "load_state_dict({want.what}) {did}: expected a RuntimeError naming "
            "{want.error}{lax}",
            "zh": "load_state_dict({want.what}) {did}：期望引发一个指明 {want.error} 的 "
            "RuntimeError{lax}",
        },
    ),
    (
        _is(_load, "unnamed"),
        {
            "en": "load_state_dict's error does not name {unnamed[0]!r}: one RuntimeError lists "
            "every missing and unexpected key and every size mismatch; received {got[message]!r}",
            "zh": "load_state_dict 的错误信息没有提到 {unnamed[0]!r}：一个 RuntimeError 要列出"
            "所有缺失的键、意外的键和每一处尺寸不匹配；实际收到 {got[message]!r}",
        },
    ),
    (
        lambda case, got: (
            case.expected.error is None
            and got["error"]
            and next(
                (
                    k
                    for k, kind, _ in case.expected.keys
                    if kind == "b" and k in (got["message"] or "")
                ),
                None,
            )
        ),
        {
            "en": "load_state_dict({want.what}) raised {got[error]}: {got[message]} (the buffer "
            "{0!r} is one of the model's keys: they are those of its state_dict, buffers included)",
            "zh": "load_state_dict({want.what}) 引发了 {got[error]}：{got[message]}（缓冲区 "
            "{0!r} 是模型的键之一：模型的键就是它的 state_dict 的键，包括缓冲区）",
        },
    ),
    (
        lambda case, got: case.expected.error is None and got["error"],
        {
            "en": "load_state_dict({want.what}) raised {got[error]}: {got[message]}",
            "zh": "load_state_dict({want.what}) 引发了 {got[error]}：{got[message]}",
        },
    ),
    (
        _is(_load, "dtype"),
        {
            "en": "after load_state_dict, {dtype[0]!r} is {dtype[1]}, not the model's "
            "{want.dtype}: copy the values into the model's own array, target.data[...] = ... "
            "(which converts them, as PyTorch's copy_ does)",
            "zh": "load_state_dict 之后，{dtype[0]!r} 是 {dtype[1]}，不是模型的 {want.dtype}："
            "应把值复制到模型自己的数组中，target.data[...] = ...（这会转换数据类型，就像 "
            "PyTorch 的 copy_ 那样）",
        },
    ),
    facts=_load,
)
# the objects load_state_dict must keep, and what it returns
LOAD_KEPT = rules(
    (
        _is(_load, "replaced"),
        {
            "en": "load_state_dict replaced the Parameter {replaced!r} by a new object: copy into "
            "the existing one in place (an optimizer holds the old object)",
            "zh": "load_state_dict 用新对象替换了 Parameter {replaced!r}：应原地复制到已有的"
            "对象中（优化器持有的是旧对象）",
        },
    ),
    (
        lambda case, got: case.expected.returned not in (None, got["returned"]),
        {
            "en": "load_state_dict returned {shown}, expected (missing_keys, unexpected_keys) = "
            "{want.returned}",
            "zh": "load_state_dict 返回了 {shown}，期望 (missing_keys, unexpected_keys) = "
            "{want.returned}",
        },
    ),
    facts=_load,
)


def load_verdict(case: Case, received: Any) -> str | None:
    """The error (or none), the dtypes kept, each tensor after the call (unchanged where
    the call raises; the source's own array named), then the objects kept. Built per case:
    each tensor's words name its key (a starred Field's ``says`` and a Mistake's words are
    one text for every item)."""
    want = case.expected
    tol = (1e-6, 1e-8) if want.dtype == "float32" else (RTOL, ATOL)
    fields, mistakes = [], []
    for kind, i, w in [(k, i, w) for k in "pb" for i, w in enumerate(want.after[k])]:
        key, at = _key(want, kind, i), f"after.{kind}.{i}"
        says = (
            tr(
                f"load_state_dict changed {key!r} before raising: check every key and shape "
                "first, then copy",
                f"load_state_dict 在引发异常之前就改变了 {key!r}：应先检查每个键和形状，再复制",
            )
            if want.error is not None
            else ""
        )
        name = tr(f"{key} after load_state_dict", f"load_state_dict 之后的 {key}")
        fields.append(Field(at, name, *tol, lambda c, w=w: w, says=says))
        if want.error is None and np.any(w):
            mistakes.append(Mistake(at, lambda c, w=w: 0 * w, f"{key!r}{say(OWN_ARRAY)}"))
    keys = ("error", "message", "after", "same_objects", "returned")
    return Fields(fields, mistakes, keys=keys, before=LOAD_ERRORS, then=LOAD_KEPT)(case, received)


OWN_ARRAY = {
    "en": " holds the state_dict's own array after load_state_dict (it changed when the source "
    "did): copy the values in, target.data[...] = ...",
    "zh": " 在 load_state_dict 之后持有的是 state_dict 自己的数组（源数据一变，它也跟着变）："
    "应把值复制进来，target.data[...] = ...",
}


# -- 5.6 ----------------------------------------------------------------------------------------


def _by_dtype(case: Case) -> tuple[float, float]:
    """Tolerances of a float32 result against the parent's float64."""
    return (1e-5, 1e-6) if case.expected.dtype == "float32" else (RTOL, ATOL)


def _non_finite(got: Any, want: np.ndarray) -> bool:
    """A result of the expected shape, not finite where the expected one is."""
    same = isinstance(got, np.ndarray) and got.shape == np.shape(want)
    return same and np.isfinite(want).all() and not np.isfinite(got).all()


def _g_itself(case: Case) -> Any:
    return case.inputs["g"] if case.expected.function == "log_softmax" else None


def _summed(where: Any) -> Callable[[Case], str]:
    return lambda case: tr(
        f"{case.expected.function}'s backward summed over {say(where)}, not along dim = "
        f"{case.inputs['dim']}: each slice along dim is a softmax of its own",
        f"{case.expected.function} 的反向函数在{say(where)}上求和，而不是沿 dim = "
        f"{case.inputs['dim']}：沿 dim 的每个切片各自是一个 softmax",
    )


def _softmax_grad(
    case: Case, axis: int | None = -1, diagonal: bool = False, logged: bool = False
) -> np.ndarray | None:
    """x.grad of a known mistake: the backward's sum along ``axis`` (None: the whole
    tensor) where another than dim; softmax's Jacobian diagonal only; log_softmax's backward
    with its output in place of softmax(x). None where it is no mistake in this case."""
    x = np.asarray(case.inputs["x"], dtype=np.float64)
    d, g, softmax = case.inputs["dim"] % x.ndim, case.inputs["g"], case.expected.function
    y = np.exp(x - x.max(axis=d, keepdims=True))
    y = y / y.sum(axis=d, keepdims=True)
    if diagonal:
        return y * (1 - y) * g if softmax == "softmax" else None
    if logged:
        with np.errstate(divide="ignore"):
            log_y = np.log(y)
        return g - log_y * g.sum(axis=d, keepdims=True) if softmax != "softmax" else None
    if (axis is None and x.ndim == 1) or (axis is not None and axis in (d, *range(x.ndim, 9))):
        return None
    total = (lambda a: a.sum()) if axis is None else (lambda a: a.sum(axis=axis, keepdims=True))
    return y * (g - total(g * y)) if softmax == "softmax" else g - y * total(g)


OVERFLOW = {
    "en": "exp overflows; subtract the max first (exp(x - max) is at most 1)",
    "zh": "exp 上溢了；应先减去最大值（exp(x - max) 至多为 1）",
}
G_ITSELF = {
    "en": "log_softmax's backward returned g itself: it is g − softmax(x)·Σg (the softmax term "
    "is missing)",
    "zh": "log_softmax 的反向函数直接返回了 g：应为 g − softmax(x)·Σg（缺少 softmax 项）",
}
# a non-finite output (what it matches: ``_softmax_mistake``), the output, its dtype, x.grad
SOFTMAX = first(
    rules(
        (
            lambda case, got: (
                _non_finite(got["out"], case.expected.out)
                and (show(got["out"]), _softmax_mistake(case, got["out"]) or say(OVERFLOW))
            ),
            {
                "en": "{want.function} of {want.text} is {0}: {1}",
                "zh": "对 {want.text} 求 {want.function}，得到 {0}：{1}",
            },
        ),
        keys=("out", "dtype", "grad"),
    ),
    Fields([Field("out", lambda case: f"{case.expected.function}(x)", tolerance=_by_dtype)]),
    rules(
        (
            lambda case, got: got["dtype"] != case.expected.dtype,
            {
                "en": "{want.function} of a {want.dtype} input returned {got[dtype]}",
                "zh": "输入为 {want.dtype} 时，{want.function} 返回了 {got[dtype]}",
            },
        ),
        (
            lambda case, got: got["grad"] is None,
            {
                "en": "{want.function}'s output does not require grad",
                "zh": "{want.function} 的输出不需要梯度",
            },
        ),
    ),
    Fields(
        [Field("grad", "x.grad", tolerance=_by_dtype)],
        [
            Mistake("grad", _g_itself, G_ITSELF),
            Mistake(
                "grad",
                lambda case: _softmax_grad(case, None),
                _summed({"en": "the whole tensor", "zh": "整个张量"}),
            ),
            *(
                Mistake(
                    "grad",
                    lambda case, a=a: _softmax_grad(case, a),
                    _summed({"en": f"axis {a}", "zh": f"轴 {a} "}),
                )
                for a in range(4)
            ),
            Mistake(
                "grad",
                lambda case: _softmax_grad(case, diagonal=True),
                {
                    "en": "softmax's backward kept only the Jacobian's diagonal, y(1 − y)·g: each "
                    "output of a slice depends on every input of that slice",
                    "zh": "softmax 的反向函数只保留了雅可比矩阵的对角线 y(1 − y)·g：一个切片的每个"
                    "输出都依赖于该切片的每个输入",
                },
            ),
            Mistake(
                "grad",
                lambda case: _softmax_grad(case, logged=True),
                {
                    "en": "log_softmax's backward used its own output, log p, where the "
                    "probabilities p belong",
                    "zh": "log_softmax 的反向函数在本该用概率 p 的地方用了它自己的输出 log p",
                },
            ),
        ],
    ),
)


def _softmax_mistake(case: Case, out: np.ndarray) -> str | None:
    """What a non-finite output matches: one max for the whole tensor, or log(softmax)."""
    x = np.asarray(case.inputs["x"], dtype=np.float64)
    d = case.inputs["dim"] % x.ndim
    with np.errstate(all="ignore"):
        shifted = x - x.max()
        e = np.exp(shifted)
        if case.expected.function == "softmax":
            whole = e / e.sum(axis=d, keepdims=True)
        else:
            whole = shifted - np.log(e.sum(axis=d, keepdims=True))
        y = np.exp(x - x.max(axis=d, keepdims=True))
        log_of_softmax = np.log(y / y.sum(axis=d, keepdims=True))
    if np.allclose(out, whole, equal_nan=True):
        return tr(
            "it was shifted by one max for the whole tensor: subtract each slice's own max, "
            "x.max(axis=dim, keepdims=True); a row far below the tensor's max underflows to "
            "exp(…) = 0 everywhere, and 0/0",
            "整个张量只减去了同一个最大值：应减去每个切片自己的最大值 "
            "x.max(axis=dim, keepdims=True)；远低于张量最大值的一行会处处下溢为 exp(…) = 0，"
            "于是得到 0/0",
        )
    if case.expected.function == "log_softmax" and np.allclose(out, log_of_softmax):
        return tr(
            "log(softmax(x)) is −inf where a probability underflows to 0: compute "
            "shifted − log Σ exp(shifted), with shifted = x − max (no log of a probability)",
            "概率下溢为 0 的地方，log(softmax(x)) 是 −inf：应计算 shifted − log Σ exp(shifted)，"
            "其中 shifted = x − max（不要对概率取对数）",
        )
    return None


# -- 5.7 ----------------------------------------------------------------------------------------


def _smoothing(words: Any) -> Callable[[Case], Any]:
    return lambda case: words if case.expected.smoothing else ""


def _ce(case: Case, got: Any) -> dict:
    """The loss's and the gradient's dtypes where another than the logits'."""
    loss, grad = [*(got.get("dtypes") or []), "", ""][:2]
    other = lambda dtype: dtype not in (case.expected.dtype, "") and dtype
    return {"loss_dtype": other(loss), "grad_dtype": other(grad), "shown": show(got["loss"])}


SMOOTHING = {
    "en": "label smoothing: (1 − ε)·(−log p_t) + ε·mean over classes of −log p_c",
    "zh": "标签平滑：(1 − ε)·(−log p_t) + ε·(−log p_c 在各类别上的均值)",
}


def _ce_wrong(mistake: str) -> Callable[[Case], np.ndarray | None]:
    """The loss or logits.grad (by the mistake's own field) that cross_entropy computes with
    ``mistake``, in the case's layout; None where the case cannot tell it from the right one
    (no ignored row, no smoothing, another reduction)."""

    def wrong(case: Case) -> np.ndarray | None:
        z, t, i = case.inputs["z"], case.inputs["t"], case.inputs["ignore_index"]
        eps, reduction, g = case.inputs["smoothing"], case.inputs["reduction"], case.inputs["g"]
        c = z.shape[0] if z.ndim == 1 else z.shape[1]
        rows = z.reshape(1, c) if z.ndim == 1 else np.moveaxis(z, 1, -1).reshape(-1, c)
        flat, m = t.reshape(-1), rows.shape[0]
        keep = flat != i
        smoothed = ("smoothing_sum", "smoothing_ignored", "others", "target_only", "onehot")
        if (mistake in smoothed and not eps) or (mistake in CE_IGNORED and keep.all()):
            return None
        if mistake in ("sum_as_mean", "not_divided") and reduction != (
            "sum" if mistake == "sum_as_mean" else "mean"
        ):
            return None
        shifted = rows - rows.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        y, tt = np.exp(log_p), np.where(keep, flat, 0)
        nll = -log_p[np.arange(m), tt]
        q = np.zeros((m, c))
        q[np.arange(m), tt] = 1.0
        if mistake == "others":  # ε over the C − 1 other classes
            q = (1 - eps) * q + eps * (1 - q) / (c - 1)
        elif mistake == "target_only":  # 1 − ε on the target, ε/C on the others
            q = (1 - eps) * q + eps / c * (1 - q)
        elif mistake == "onehot":  # the target's 1 − ε alone
            q = (1 - eps) * q
        else:
            q = (1 - eps) * q + eps / c
        loss = -(q * log_p).sum(axis=1)
        if mistake == "smoothing_sum":
            loss = (1 - eps) * nll - eps * log_p.sum(axis=1)
        if mistake == "smoothing_ignored":
            loss = np.where(keep, loss, -eps * log_p.mean(axis=1))
        elif mistake != "kept_losses":
            loss = np.where(keep, loss, 0.0)
        grad = (y - q) * (1.0 if mistake == "grad_ignored" else keep[:, None])
        count = max(int(keep.sum()), 1)
        if reduction == "none":
            loss, grad = loss.reshape(t.shape), grad * np.asarray(g).reshape(m, 1)
        else:
            mean = reduction == "mean" or mistake == "sum_as_mean"
            loss = np.asarray(loss.sum() / count if mean else loss.sum())
            grad = grad * g / (count if reduction == "mean" and mistake != "not_divided" else 1)
        if mistake == "ignores_g":
            grad = grad / (np.asarray(g).reshape(m, 1) if reduction == "none" else g)
        shaped = grad.reshape(c) if z.ndim == 1 else np.moveaxis(grad.reshape(*t.shape, c), -1, 1)
        return loss if mistake in CE_ON_LOSS else shaped

    return wrong


CE_LOSS_MISTAKES = [
    (
        "kept_losses",
        {
            "en": "the ignored rows' losses were added: a row whose target is ignore_index adds 0",
            "zh": "被忽略的行的损失也加了进去：目标为 ignore_index 的行贡献 0",
        },
    ),
    (
        "smoothing_sum",
        {
            "en": "the smoothing term sums −log p over the classes where it takes their mean "
            "(ε/C each)",
            "zh": "平滑项对各类别的 −log p 求了和，而应取均值（每类 ε/C）",
        },
    ),
    (
        "smoothing_ignored",
        {
            "en": "the ignored rows kept the smoothing term ε·mean(−log p): an ignored row's loss "
            "is 0",
            "zh": "被忽略的行保留了平滑项 ε·mean(−log p)：被忽略的行损失为 0",
        },
    ),
    (
        "others",
        {
            "en": "the smoothing spread ε over the C − 1 other classes; it goes to all C classes, "
            "the target included (ε/C each)",
            "zh": "平滑把 ε 分给了其他 C − 1 个类别；它应分给全部 C 个类别，包括目标类别"
            "（每类 ε/C）",
        },
    ),
    (
        "target_only",
        {
            "en": "the target got 1 − ε and every other class ε/C: the target gets its ε/C too",
            "zh": "目标类别得到 1 − ε，其他每个类别得到 ε/C：目标类别也要再得到它的 ε/C",
        },
    ),
    (
        "sum_as_mean",
        {"en": "reduction='sum' returned the mean", "zh": "reduction='sum' 却返回了均值"},
    ),
]
CE_GRAD_MISTAKES = [
    (
        "onehot",
        {
            "en": "the gradient's target q lacks the ε/C that smoothing gives every class (the "
            "target included)",
            "zh": "梯度中的目标分布 q 缺少平滑给每个类别（包括目标类别）的 ε/C",
        },
    ),
    (
        "grad_ignored",
        {
            "en": "the ignored rows got a gradient: they add nothing to the loss",
            "zh": "被忽略的行得到了梯度：它们对损失没有贡献",
        },
    ),
    (
        "not_divided",
        {
            "en": "the mean's gradient was not divided by the number of rows counted",
            "zh": "均值的梯度没有除以计入的行数",
        },
    ),
    (
        "ignores_g",
        {
            "en": "the backward ignored grad_output: the gradient is scaled by the incoming g",
            "zh": "反向函数忽略了 grad_output：梯度要乘以传入的 g",
        },
    ),
]
CE_ON_LOSS = {m for m, _ in CE_LOSS_MISTAKES}
CE_IGNORED = ("kept_losses", "smoothing_ignored", "grad_ignored")
COUNTED = {
    "en": "the mean counts ignored targets: divide by the number of rows whose target is not "
    "ignore_index",
    "zh": "均值把被忽略的目标也计入了：应除以目标不是 ignore_index 的行数",
}
# the dtypes, a mean over no rows, a non-finite loss, then the loss and its gradient
CROSS_ENTROPY = first(
    rules(
        (
            _is(_ce, "loss_dtype"),
            {
                "en": "cross_entropy of {want.dtype} logits returned a {loss_dtype} loss: compute "
                "it in the logits' dtype (a float64 array of your own, np.zeros(n), or a division "
                "by a NumPy int64 such as keep.sum() makes it float64: use int(keep.sum()))",
                "zh": "logits 为 {want.dtype} 时，cross_entropy 返回了 {loss_dtype} 的损失：应按 "
                "logits 的数据类型计算（自己创建的 float64 数组、np.zeros(n)，或除以 keep.sum() "
                "这样的 NumPy int64，都会让结果变成 float64：请用 int(keep.sum())）",
            },
        ),
        (
            _is(_ce, "grad_dtype"),
            {
                "en": "logits.grad is {grad_dtype} for {want.dtype} logits: return the logits' "
                "dtype",
                "zh": "logits 为 {want.dtype} 时，logits.grad 是 {grad_dtype}：应返回 logits 的"
                "数据类型",
            },
        ),
        (
            lambda case, got: (
                case.expected.reduction == "mean"
                and np.isnan(case.expected.loss).all()
                and isinstance(got["loss"], np.ndarray)
                and np.isfinite(got["loss"]).all()
            ),
            {
                "en": "every target is ignore_index, and the mean is {shown}: a mean over no rows "
                "is 0/0 = nan, as in PyTorch (the gradient is zeros)",
                "zh": "所有目标都是 ignore_index，而均值是 {shown}：对零行取均值是 0/0 = nan，"
                "与 PyTorch 一致（梯度为零）",
            },
        ),
        (
            lambda case, got: _non_finite(got["loss"], case.expected.loss),
            {
                "en": "the loss is {shown}: exp overflows (or a probability underflows to 0 and "
                "its log is −inf) without the max-shifted log-sum-exp",
                "zh": "损失是 {shown}：不先减去最大值再做 log-sum-exp，exp 就会上溢（或者概率下溢"
                "为 0，其对数为 −inf）",
            },
        ),
        keys=("loss", "grad"),
        facts=_ce,
    ),
    Fields(
        [Field("loss", "loss", tolerance=_by_dtype, says=_smoothing(SMOOTHING))],
        [
            Mistake("loss", lambda case: case.expected.all_rows, COUNTED),
            *(Mistake("loss", _ce_wrong(mistake), says) for mistake, says in CE_LOSS_MISTAKES),
        ],
    ),
    rules(
        (
            lambda case, got: got["grad"] is None,
            {"en": "the loss does not require grad", "zh": "损失不需要梯度"},
        )
    ),
    Fields(
        [
            Field(
                "grad",
                "logits.grad",
                tolerance=_by_dtype,
                says=_smoothing(
                    {
                        "en": "the gradient is softmax − q, q = (1 − ε)·onehot + ε/C",
                        "zh": "梯度是 softmax − q，q = (1 − ε)·onehot + ε/C",
                    }
                ),
            )
        ],
        [Mistake("grad", _ce_wrong(mistake), says) for mistake, says in CE_GRAD_MISTAKES],
    ),
)


# -- 5.8 ----------------------------------------------------------------------------------------


def _fans(case: Case) -> SimpleNamespace:
    """The case's fans, gain and standard deviation, by PyTorch's formulas."""
    options, shape = case.inputs["options"], case.inputs["shape"]
    receptive = int(np.prod(shape[2:]))
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    out = options.get("mode") == "fan_out"
    fan, other = (fan_out, fan_in) if out else (fan_in, fan_out)
    xavier = case.inputs["function"].startswith("xavier")
    nonlinearity = options.get("nonlinearity", "leaky_relu")
    gain = options.get("gain", 1.0) if xavier else gain_of(nonlinearity, options.get("a", 0.0))
    right = gain * np.sqrt(2 / (fan_in + fan_out)) if xavier else gain / np.sqrt(fan)
    return SimpleNamespace(
        xavier=xavier,
        gain=gain,
        fan_in=fan_in,
        fan_out=fan_out,
        fan=fan,
        other=other,
        kernel=receptive > 1 and shape[0 if out else 1],
        without_a=nonlinearity == "leaky_relu" and "a" in options,
        bound=case.expected.kind == "uniform" and right / np.sqrt(3),
        root3=case.expected.kind == "normal" and right * np.sqrt(3),
        squared=not xavier and abs(gain - 1) > 0.05 and gain**2 / np.sqrt(fan),
    )


# init's known mistakes: the words, and the standard deviation the mistake gives (falsy:
# not a mistake this case can make), in the order they are told apart
INIT_MISTAKES = [
    (
        {
            "en": "std = gain·√(1/fan_in): xavier uses both fans, √(2/(fan_in + fan_out))",
            "zh": "std = gain·√(1/fan_in)：xavier 同时用到两个扇数，√(2/(fan_in + fan_out))",
        },
        lambda s: s.xavier and s.gain / np.sqrt(s.fan_in),
    ),
    (
        {
            "en": "std = gain·√(1/fan_out): xavier uses both fans, √(2/(fan_in + fan_out))",
            "zh": "std = gain·√(1/fan_out)：xavier 同时用到两个扇数，√(2/(fan_in + fan_out))",
        },
        lambda s: s.xavier and s.gain / np.sqrt(s.fan_out),
    ),
    (
        {"en": "no gain", "zh": "没有乘增益"},
        lambda s: s.xavier and np.sqrt(2 / (s.fan_in + s.fan_out)),
    ),
    (
        {
            "en": "the other fan: mode= chooses fan_in or fan_out",
            "zh": "用错了扇数：mode= 决定用 fan_in 还是 fan_out",
        },
        lambda s: not s.xavier and s.gain / np.sqrt(s.other),
    ),
    (
        {
            "en": "no gain (calculate_gain(nonlinearity, a))",
            "zh": "没有乘增益（calculate_gain(nonlinearity, a)）",
        },
        lambda s: not s.xavier and 1 / np.sqrt(s.fan),
    ),
    (
        {
            "en": "fans without the kernel's size: use _calculate_fan_in_and_fan_out",
            "zh": "扇数没有算上卷积核的大小：请用 _calculate_fan_in_and_fan_out",
        },
        lambda s: not s.xavier and s.kernel and s.gain / np.sqrt(s.kernel),
    ),
    (  # calculate_gain's default a, 0.01
        {
            "en": "the gain without a: calculate_gain(nonlinearity, a)",
            "zh": "计算增益时没有传入 a：calculate_gain(nonlinearity, a)",
        },
        lambda s: not s.xavier and s.without_a and gain_of("leaky_relu", 0.01) / np.sqrt(s.fan),
    ),
    (
        {
            "en": "the bound equal to the std: a uniform on [-b, b] has std b/√3",
            "zh": "把边界取成了标准差：[-b, b] 上的均匀分布的标准差是 b/√3",
        },
        lambda s: s.bound,
    ),
    (
        {
            "en": "√3 times the std: a uniform's bound b = √3·std taken as the normal's std",
            "zh": "标准差的 √3 倍：把均匀分布的边界 b = √3·std 当成了正态分布的标准差",
        },
        lambda s: s.root3,
    ),
    (
        {
            "en": "the gain squared: gain²/√fan, where the gain enters once",
            "zh": "增益被平方了：gain²/√fan，而增益只应乘一次",
        },
        lambda s: s.squared,
    ),
]


def _init(case: Case, got: Any) -> dict:
    """The sample's statistics, and the known mistake its standard deviation matches (3%);
    then its patterns (repeats, a grid, neighbours that are not independent)."""
    values, want = got["values"], case.expected
    what = tr(f"init.{want.what}'s result", f"init.{want.what} 的结果")
    shaped = _is_shaped(values, want.shape)
    repeats = shaped and repeats_problem(values, what)
    sample = shaped and sample_problem(values, want.kind, want.scale, what)
    pattern = shaped and pattern_problem(values, want.kind, want.scale, what)
    seen, fans = shaped and float(np.sqrt(np.mean(np.asarray(values, float) ** 2))), _fans(case)
    stds = [(words, std(fans)) for words, std in INIT_MISTAKES]
    match = next((words for words, std in stds if std and abs(seen / std - 1) < 0.03), None)
    return {"shown": show(values), "repeats": repeats, "sample": sample, "pattern": pattern} | {
        "matches": tr(f" (it matches {say(match)})", f"（与此错误吻合：{say(match)}）")
        if match
        else "",
        "seed": case.inputs["seed"],
        "other_seed": case.inputs["seed"] + 1,
    }


INIT_KEYS = ("values", "returned_self", "again", "other", "twice", "global")
INIT_KEYS += ("global_again", "global_next", "global_other")


def _fills_equal(one: str, two: str) -> Callable[[Case, Any], bool]:
    """Whether two of the program's fills hold equal values (compared here); "values" is
    the first, made with a generator seeded ``seed``. "twice" is a generator's second fill;
    its first, drawn as "again" was (a generator seeded alike, used once), is not sent: the
    rule comparing them comes after the one that finds "values" and "again" equal."""
    return lambda case, got: _equal(got[one], got[two])


INIT = rules(
    (
        lambda case, got: not _is_shaped(got["values"], case.expected.shape),
        {
            "en": "{want.what} left the tensor as {shown}",
            "zh": "{want.what} 之后张量是 {shown}",
        },
    ),
    (_is(_init, "repeats"), "{repeats}"),
    (_is(_init, "sample"), "{sample}{matches}"),
    (_is(_init, "pattern"), "{pattern}"),
    (
        lambda case, got: not got["returned_self"],
        {
            "en": "init.{want.what} did not return the tensor it filled",
            "zh": "init.{want.what} 没有返回它填充的张量",
        },
    ),
    (
        lambda case, got: got.get("float32") not in ("float32", None),
        {
            "en": "init.{want.what} made a float32 tensor {got[float32]}: write into its array in "
            "place, tensor.data[...] = ... (uniform_ and normal_ do), keeping its dtype",
            "zh": "init.{want.what} 把 float32 张量变成了 {got[float32]}：应原地写入它的数组，"
            "tensor.data[...] = ...（uniform_ 和 normal_ 就是这样做的），保持它的数据类型",
        },
    ),
    (
        lambda case, got: not _equal(got["values"], got["again"]),
        {
            "en": "init.{want.what} ignores generator=: two generators seeded alike gave different "
            "values",
            "zh": "init.{want.what} 忽略了 generator=：两个种子相同的生成器给出了不同的值",
        },
    ),
    (
        _fills_equal("values", "other"),
        {
            "en": "init.{want.what} gave the same values for generators seeded {seed} and "
            "{other_seed}: two different seeds must give different draws: draw from generator= "
            "(uniform_ and normal_ take it), not from a fixed table",
            "zh": "对种子为 {seed} 和 {other_seed} 的生成器，init.{want.what} 给出了相同的值："
            "两个不同的种子必须给出不同的抽样结果：请从 generator= 抽样（uniform_ 和 normal_ "
            "都接受它），而不是取自固定的表",
        },
    ),
    (
        _fills_equal("again", "twice"),
        {
            "en": "init.{want.what} called twice with one generator gave the same values: draw "
            "from the generator's own stream (uniform_ and normal_ with generator=), which moves "
            "on with each draw, not from a new generator made from its seed",
            "zh": "用同一个生成器调用两次 init.{want.what}，给出了相同的值：应从该生成器自己的"
            "随机数流中抽样（uniform_ 和 normal_ 传入 generator=），它每抽一次都会前进，而不是"
            "用它的种子新建一个生成器",
        },
    ),
    (
        lambda case, got: not _equal(got["global"], got["global_again"]),
        {
            "en": "init.{want.what} without a generator is not repeatable after manual_seed: draw "
            "from the framework's generator (uniform_, normal_)",
            "zh": "不传生成器时，init.{want.what} 在 manual_seed 之后不可复现：请从框架的生成器"
            "抽样（uniform_、normal_）",
        },
    ),
    (
        _fills_equal("global", "global_other"),
        {
            "en": "init.{want.what} without a generator gave the same values after "
            "manual_seed({seed}) and manual_seed({other_seed}): draw from the framework's "
            "generator (uniform_, normal_), which manual_seed restarts",
            "zh": "不传生成器时，init.{want.what} 在 manual_seed({seed}) 和 "
            "manual_seed({other_seed}) 之后给出了相同的值：请从框架的生成器抽样（uniform_、"
            "normal_），manual_seed 会重置它",
        },
    ),
    (
        _fills_equal("global_again", "global_next"),
        {
            "en": "init.{want.what} without a generator gave the same values twice in a row: draw "
            "from the framework's generator (uniform_, normal_), which moves on with each draw",
            "zh": "不传生成器时，init.{want.what} 连续两次给出了相同的值：请从框架的生成器抽样"
            "（uniform_、normal_），它每抽一次都会前进",
        },
    ),
    keys=INIT_KEYS,
    facts=_init,
)


# -- 5.9 ----------------------------------------------------------------------------------------


def _call(case: Case, got: Any) -> dict:
    """One call's output against x: its mode, the elements it kept and how they scale."""
    x, p = case.expected.x, case.expected.p
    shaped = _is_shaped(got["out"], x.shape)
    out, tol = (got["out"] if shaped else 0 * x), 1e-5 if got["dtype"] == "float32" else 1e-9
    kept, inverse, moved = out != 0, 1 / (1 - p) if p < 1 else 0, got["moved"]
    if isinstance(moved, list):  # the global generator's next number
        moved = moved != [np.random.default_rng(case.inputs["seed"]).random()]
    elif isinstance(moved, dict):  # the generator's state, and one's just seeded alike
        moved = moved["state"] != moved["seeded"]
    near = lambda got, want: np.allclose(got, want, rtol=tol, atol=tol)
    kept_as = [near(out[kept], x[kept] * k) for k in (1, inverse, 1 / p if p else 0)]
    bound = 6 * np.sqrt(p * (1 - p) / x.size) + 0.5 / x.size
    unchanged = not case.expected.training or p == 0
    mask = isinstance(got["grad"], np.ndarray) and near(got["grad"], kept * inverse)
    return (
        dict(shown=show(got["out"]), unchanged=unchanged, inverse=inverse, keep=1 - p)
        | dict(still=unchanged and not near(out, x), drew=unchanged and moved)
        | dict(scaled=unchanged and p and near(out, x * (1 - p)) and not near(out, x))
        | dict(whole=0 < p < 1 and x.size >= 100 and (kept.all() or not kept.any()))
        | dict(which=tr("all", "全部") if kept.all() else tr("none", "零个"))
        | dict(where="Dropout" if case.inputs["module"] else "dropout")
        | dict(
            mode=tr("in eval()", "在 eval() 中")
            if not case.expected.training
            else tr("with p = 0", "在 p = 0 时")
        )
        | dict(as_x=kept.any() and kept_as[0], unscaled=not kept_as[1])
        | dict(over_p=not kept_as[1] and kept_as[2], undropped=p == 1 and out.any())
        | dict(rate=kept.mean(), off=abs(kept.mean() - (1 - p)) > bound)
        | dict(other_mask=not mask, pattern=0.1 <= p <= 0.9 and neighbour_problem(kept * 1.0))
    )


# one call: its shape and dtype, the identity where due (drawing nothing), zeros for p = 1,
# the kept elements rescaled, the fraction kept, then the gradient's mask
DROPOUT_CALL = rules(
    (
        lambda case, got: not _is_shaped(got["out"], case.expected.x.shape),
        {
            "en": "{where} returned {shown}, expected shape {want.x.shape}",
            "zh": "{where} 返回了 {shown}，期望形状 {want.x.shape}",
        },
    ),
    (
        lambda case, got: got["dtype"] != case.inputs["dtype"],
        {
            "en": "{where} of a {case.inputs[dtype]} input returned {got[dtype]}",
            "zh": "输入为 {case.inputs[dtype]} 时，{where} 返回了 {got[dtype]}",
        },
    ),
    (
        _is(_call, "scaled"),
        {
            "en": "{where} {mode} scaled the input by 1 − p = {keep:.4g}: it must return the "
            "input unchanged (the 1/(1 − p) of training already keeps the expected value)",
            "zh": "{where} {mode}把输入乘了 1 − p = {keep:.4g}：它必须原样返回输入（训练时的 "
            "1/(1 − p) 已经保持了期望值不变）",
        },
    ),
    (
        _is(_call, "still"),
        {
            "en": "{where} still drops {mode}: it must return the input unchanged",
            "zh": "{where} {mode}仍在丢弃元素：它必须原样返回输入",
        },
    ),
    (
        _is(_call, "drew"),
        {
            "en": "{where} {mode} drew random numbers: return the input before drawing the mask "
            "(an evaluation must not move the generator)",
            "zh": "{where} {mode}抽取了随机数：应在抽取掩码之前就返回输入（评估不能让生成器前进）",
        },
    ),
    (_is(_call, "unchanged"), None),
    (
        _is(_call, "undropped"),
        {
            "en": "dropout with p = 1 gave {shown}: every element is dropped (zeros)",
            "zh": "p = 1 时 dropout 给出了 {shown}：每个元素都应被丢弃（全为零）",
        },
    ),
    (lambda case, got: case.expected.p == 1, None),
    (
        _is(_call, "as_x"),
        {
            "en": "the kept elements equal x: not rescaled by 1/(1-p) = {inverse:.4g}",
            "zh": "保留的元素等于 x：没有按 1/(1-p) = {inverse:.4g} 重新缩放",
        },
    ),
    (
        _is(_call, "over_p"),
        {
            "en": "the kept elements are x/p = x/{want.p:g}: rescale by 1/(1 − p), one over the "
            "probability of keeping",
            "zh": "保留的元素是 x/p = x/{want.p:g}：应乘以 1/(1 − p)，即保留概率的倒数",
        },
    ),
    (
        _is(_call, "unscaled"),
        {
            "en": "an element is neither 0 nor x/(1-p): {shown}",
            "zh": "有元素既不是 0 也不是 x/(1-p)：{shown}",
        },
    ),
    (
        _is(_call, "pattern"),
        {
            "en": "the kept elements are not independent: {pattern}: draw one Bernoulli(1 − p) "
            "number per element, for the whole shape (rng.random(input.shape) >= p), not a fixed "
            "pattern or one mask reused along an axis",
            "zh": "保留的元素不是独立的：{pattern}：应对整个形状逐元素抽取一个 Bernoulli(1 − p) "
            "随机数（rng.random(input.shape) >= p），而不是用固定的模式，或沿某个轴重复使用同一个"
            "掩码",
        },
    ),
    (
        _is(_call, "whole"),
        {
            "en": "dropout kept {which} of the {want.x.size} elements with p = {want.p}: one draw "
            "decided the whole tensor, where each element is kept or dropped by a draw of its own",
            "zh": "p = {want.p} 时，dropout 在 {want.x.size} 个元素中保留了{which}：一次抽样决定"
            "了整个张量，而每个元素的保留或丢弃应由它自己的一次抽样决定",
        },
    ),
    (
        _is(_call, "off"),
        {
            "en": "dropout kept {rate:.4f} of the elements with p = {want.p}: expected 1 − p = "
            "{keep:.4g} (each element dropped with probability p)",
            "zh": "p = {want.p} 时，dropout 保留的元素比例为 {rate:.4f}：期望 1 − p = {keep:.4g}"
            "（每个元素以概率 p 被丢弃）",
        },
    ),
    (
        lambda case, got: got["grad"] is None,
        {
            "en": "dropout's output does not require grad (multiply by the mask as a Tensor)",
            "zh": "dropout 的输出不需要梯度（应乘以作为 Tensor 的掩码）",
        },
    ),
    (
        _is(_call, "other_mask"),
        {
            "en": "x.grad is not the same mask / (1 − p) as the forward's",
            "zh": "x.grad 不是与前向传播相同的掩码 / (1 − p)",
        },
    ),
    facts=_call,
)


# two masks that should be independent draws are judged equal only where chance gives that
# with a probability below this (``masks_coincide``)
COINCIDE = 1e-12


def _masks_differ(case: Case) -> bool:
    """Whether two independent masks of this case's x are (all but) sure to differ."""
    p = case.expected.p
    return case.expected.training and masks_coincide(p, case.expected.x.size) < COINCIDE


def _seeded(got: Any, one: str, two: str) -> bool | None:
    """Whether two of the masks the program drew with generators equal (compared here):
    "a" and "b" (seeded 5), "c" (seeded 6), "twice" (one generator seeded 5, its second
    mask: its first was drawn as a was, so "twice" is compared with "a" once a and b are
    found equal); None where it drew none (no generator, a module, eval)."""
    masks = got["seeded"]
    return None if masks is None else _equal(masks[one], masks[two])


def _calls(case: Case, got: Any) -> list[tuple[Case, dict]]:
    """Each call's output, gradient and dtype, and whether the generator moved."""
    moved = got.get("generator_moved")
    calls = zip(got["outs"], got["grads"], got["dtypes"])
    return [(case, {"out": o, "grad": g, "dtype": d, "moved": moved}) for o, g, d in calls]


# each call by ``DROPOUT_CALL``, then across the calls: a new mask each time, the generator
# honoured
DROPOUT = first(
    lambda case, got: record(got, ("outs", "grads", "dtypes", "seeded")),
    each(_calls, DROPOUT_CALL),
    rules(
        (
            lambda case, got: (
                case.expected.training
                and 0 < case.expected.p < 1
                and len(got["outs"]) > 1
                and all(np.array_equal(got["outs"][0] != 0, out != 0) for out in got["outs"][1:])
            ),
            {
                "en": "dropout drew the same mask on every call: draw a new one each call",
                "zh": "dropout 每次调用都抽出了相同的掩码：每次调用都应抽取新的掩码",
            },
        ),
        (
            lambda case, got: _seeded(got, "a", "b") is False,
            {
                "en": "dropout ignores generator=: two generators seeded alike gave different "
                "masks",
                "zh": "dropout 忽略了 generator=：两个种子相同的生成器给出了不同的掩码",
            },
        ),
        (
            lambda case, got: (
                _masks_differ(case) and _seeded(got, "a", "c") and _seeded(got, "a", "twice")
            ),
            {
                "en": "dropout drew the same mask on every call, whatever the generator: "
                "generators seeded 5 and 6, and one generator called twice, gave one mask: draw a "
                "new mask each call from generator= (rng_of(generator)), not from a fixed table "
                "or a cache",
                "zh": "无论用哪个生成器，dropout 每次调用都抽出了相同的掩码：种子为 5 和 6 的"
                "生成器，以及调用两次的同一个生成器，给出的都是同一个掩码：每次调用都应从 "
                "generator=（rng_of(generator)）抽取新的掩码，而不是取自固定的表或缓存",
            },
        ),
        (
            lambda case, got: _masks_differ(case) and _seeded(got, "a", "c"),
            {
                "en": "dropout gave the same mask for generators seeded 5 and 6: two different "
                "seeds must give different masks: draw the mask from generator= "
                "(rng_of(generator))",
                "zh": "对种子为 5 和 6 的生成器，dropout 给出了相同的掩码：两个不同的种子必须给出"
                "不同的掩码：请从 generator=（rng_of(generator)）抽取掩码",
            },
        ),
        (
            lambda case, got: _masks_differ(case) and _seeded(got, "a", "twice"),
            {
                "en": "the mask is the same on every call with one generator: two dropout calls "
                "with generator=g gave the same mask: draw from g's own stream "
                "(rng_of(generator)), which moves on with each draw, not from a new generator made "
                "from its seed",
                "zh": "用同一个生成器时，每次调用的掩码都相同：两次用 generator=g 调用 dropout "
                "给出了相同的掩码：应从 g 自己的随机数流中抽样（rng_of(generator)），它每抽一次"
                "都会前进，而不是用它的种子新建一个生成器",
            },
        ),
    ),
)


# -- 5.10 ---------------------------------------------------------------------------------------


def _batch(case: Case) -> tuple[np.ndarray, tuple]:
    """The first training batch and the axes BatchNorm1d reduces over."""
    x = case.inputs["xs"][0]
    return x, (0,) if x.ndim == 2 else (0, 2)


def _stats_held_constant(case: Case) -> np.ndarray:
    """x.grad with the batch's mean and variance treated as constants."""
    x, axes = _batch(case)
    view = (1, -1) + (1,) * (x.ndim - 2)
    std = np.sqrt(x.var(axis=axes, keepdims=True) + case.expected.options["eps"])
    return case.inputs["g"] * np.asarray(case.inputs["w"]).reshape(view) / std


def _momentum_reversed(case: Case) -> np.ndarray | None:
    """running_mean after the first batch with momentum and 1 − momentum swapped."""
    m = case.expected.options["momentum"]
    x, axes = _batch(case)
    return None if m is None else (1 - m) * x.mean(axis=axes)


def _biased_running_var(case: Case) -> np.ndarray:
    """running_var after the first batch, averaged with the batch's biased variance."""
    m = case.expected.options["momentum"]
    m = 1.0 if m is None else m
    x, axes = _batch(case)
    return (1 - m) * 1.0 + m * x.var(axis=axes)


def _if_affine(key: str) -> Any:
    return lambda case: getattr(case.expected, key) if case.expected.options["affine"] else None


def _bn_wrong(
    key: str, unbiased: bool = False, plus_eps: bool = False, n_batch: bool = False
) -> Callable[[Case], list | None]:
    """The list ``key`` ("outs", "running_mean" or "running_var") that BatchNorm computes
    with a known mistake: normalising with the unbiased variance, eps added to √var,
    running_var's n/(n − 1) with n the batch size (N, not N·L), momentum None taken as 0.1
    (``key`` alone). None where the case cannot tell it apart."""

    def wrong(case: Case) -> list | None:
        o, xs = case.expected.options, case.inputs["xs"]
        momentum, eps = o["momentum"], o["eps"]
        if (n_batch and xs[0].ndim == 2) or (key != "outs" and not o["track_running_stats"]):
            return None
        if key != "outs" and not (n_batch or momentum is None):
            return None
        axes, view = ((0,), (1, -1)) if xs[0].ndim == 2 else ((0, 2), (1, -1, 1))
        w, b = np.reshape(case.inputs["w"], view), np.reshape(case.inputs["b"], view)
        rm, rv, found = np.zeros(len(w.reshape(-1))), np.ones(len(w.reshape(-1))), []
        for k, x in enumerate(xs):
            n = x.size // x.shape[1]
            mean, var = x.mean(axis=axes), x.var(axis=axes)
            if key == "outs":
                v = (var * n / (n - 1) if unbiased else var).reshape(view)
                std = np.sqrt(v) + eps if plus_eps else np.sqrt(v + eps)
                found.append((x - mean.reshape(view)) / std * w + b)
                continue
            m = (0.1 if momentum is None else momentum) if not n_batch else momentum
            m = 1.0 / (k + 1) if m is None else m
            count = x.shape[0] if n_batch else n
            rm, rv = (1 - m) * rm + m * mean, (1 - m) * rv + m * var * count / (count - 1)
            found.append((rm if key == "running_mean" else rv).copy())
        return found

    return wrong


NORMALISE = {
    "en": "normalise with the batch's mean and biased variance",
    "zh": "应使用批量的均值和有偏方差做归一化",
}
BN_RUNNING = [
    Mistake(
        "running_mean.0",
        _momentum_reversed,
        {
            "en": "momentum reversed: running_mean = (1 − momentum)·running_mean + "
            "momentum·batch_mean",
            "zh": "动量用反了：running_mean = (1 − momentum)·running_mean + momentum·batch_mean",
        },
    ),
    Mistake(
        "running_var.0",
        _biased_running_var,
        {
            "en": "running_var keeps the biased variance: multiply the batch's by n/(n − 1) for "
            "the running average",
            "zh": "running_var 保存的是有偏方差：计算滑动平均时，要把批量的方差乘以 n/(n − 1)",
        },
    ),
    Mistake(
        "outs.*",
        _bn_wrong("outs", unbiased=True),
        {
            "en": "normalised with the unbiased variance (÷ (n − 1)); training normalises with the "
            "batch's biased variance (÷ n)",
            "zh": "用无偏方差（÷ (n − 1)）做了归一化；训练时应使用批量的有偏方差（÷ n）做归一化",
        },
    ),
    Mistake(
        "outs.*",
        _bn_wrong("outs", plus_eps=True),
        {
            "en": "eps was added to the standard deviation, √var + eps; it belongs under the root",
            "zh": "eps 加在了标准差上，√var + eps；它应在根号内",
        },
    ),
    Mistake(
        "running_var.*",
        _bn_wrong("running_var", n_batch=True),
        {
            "en": "running_var's n/(n − 1) took n as the batch size; n is the number of values "
            "averaged per channel (N·L for an (N, C, L) batch)",
            "zh": "running_var 的 n/(n − 1) 把 n 取成了批量大小；n 是每个通道参与平均的值的个数"
            "（对 (N, C, L) 的批量是 N·L）",
        },
    ),
    Mistake(
        "running_mean.*",
        _bn_wrong("running_mean"),
        {
            "en": "momentum=None was taken as 0.1; None means a cumulative average (momentum 1/k "
            "at batch k)",
            "zh": "momentum=None 被当成了 0.1；None 表示累积平均（第 k 个批量的动量为 1/k）",
        },
    ),
]


def _per_batch(words: Any) -> Callable[[Case], list[str]]:
    """A name for each training batch, counted from 1."""
    return lambda case: [say(words).format(k + 1) for k in range(len(case.expected.outs))]


# each training batch's output, then running_mean and running_var after each batch
BN_TRAINING = Fields(
    [
        Field(
            "outs.*",
            _per_batch({"en": "the output of training batch {}", "zh": "第 {} 个训练批量的输出"}),
            1e-6,
            1e-8,
            says=NORMALISE,
        ),
        Field(
            "running_mean.*",
            _per_batch(
                {"en": "running_mean after batch {}", "zh": "第 {} 个批量之后的 running_mean"}
            ),
            RTOL,
            ATOL,
        ),
        Field(
            "running_var.*",
            _per_batch(
                {"en": "running_var after batch {}", "zh": "第 {} 个批量之后的 running_var"}
            ),
            RTOL,
            ATOL,
        ),
    ],
    BN_RUNNING,
    keys=("outs", "running_mean", "running_var", "tracked", "eval_out"),
)
BUFFERS = ("running_mean", "running_var", "num_batches_tracked")


def _changed_in_eval(case: Case, got: Any) -> str | None:
    """The first buffer whose values after eval()'s forward differ from those before it
    (both sent; compared here)."""
    pairs = zip(BUFFERS, got["eval_before"], got["eval_after"])
    return next((n for n, old, new in pairs if old is not None and not _equal(new, old)), None)


# with running statistics: what training and eval must leave
BN_TRACKING = rules(
    (
        lambda case, got: got["tracked"] != case.expected.tracked,
        {
            "en": "num_batches_tracked was {got[tracked]}, expected {want.tracked}",
            "zh": "num_batches_tracked 是 {got[tracked]}，期望 {want.tracked}",
        },
    ),
    (
        lambda case, got: got.get("buffers_require_grad"),
        {
            "en": "{got[buffers_require_grad][0]} requires grad after training: it holds a graph "
            "through every batch; update the running statistics outside the graph (in place on "
            ".data, or from detached values)",
            "zh": "训练之后 {got[buffers_require_grad][0]} 需要梯度：它会持有贯穿每个批量的计算图；"
            "应在计算图之外更新滑动统计量（在 .data 上原地更新，或用分离后的值）",
        },
    ),
    (
        _changed_in_eval,
        {
            "en": "eval() changed {0}: the running statistics (and num_batches_tracked) are "
            "updated in training only",
            "zh": "eval() 改变了 {0}：滑动统计量（以及 num_batches_tracked）只在训练时更新",
        },
    ),
    keys=("eval_before", "eval_after"),
)
BN_EVAL = Fields(
    [Field("eval_out", {"en": "the output in eval()", "zh": "eval() 中的输出"}, 1e-6, 1e-8)],
    [
        Mistake(
            "eval_out",
            lambda case: (
                case.expected.eval_with_batch_stats
                if case.expected.options["track_running_stats"]
                else None
            ),
            {
                "en": "BatchNorm used the batch's statistics in eval(): use running_mean and "
                "running_var",
                "zh": "BatchNorm 在 eval() 中使用了批量的统计量：应使用 running_mean 和 "
                "running_var",
            },
        )
    ],
)
BN_GRADS = Fields(
    [
        Field(
            "grads.x",
            {"en": "x.grad (first batch)", "zh": "x.grad（第一个批量）"},
            1e-6,
            1e-8,
            lambda case: case.expected.x_grad,
        ),
        Field("grads.w", "weight.grad", 1e-6, 1e-8, _if_affine("w_grad")),
        Field("grads.b", "bias.grad", 1e-6, 1e-8, _if_affine("b_grad")),
    ],
    [
        Mistake(
            "grads.x",
            _stats_held_constant,
            {
                "en": "it is the gradient with the batch's mean and variance held constant: "
                "compute them with Tensor operations, x.mean(...), so the gradient flows through "
                "them too",
                "zh": "这是把批量的均值和方差当作常数时的梯度：应用 Tensor 运算计算它们，如 "
                "x.mean(...)，让梯度也流经它们",
            },
        )
    ],
    before=rules(
        (
            lambda case, got: (got.get("grads") or {}).get("x") is None,
            {
                "en": "BatchNorm's output does not require grad: compute it with Tensor operations",
                "zh": "BatchNorm 的输出不需要梯度：应用 Tensor 运算计算它",
            },
        )
    ),
)


# training (each batch's output, the running statistics batch by batch, naming reversed
# momentum and a biased variance), what it leaves, eval, then the gradients
BATCHNORM = first(
    BN_TRAINING,
    where(lambda case: case.expected.options["track_running_stats"], BN_TRACKING),
    BN_EVAL,
    BN_GRADS,
)


# -- 5.11 ---------------------------------------------------------------------------------------


def _epoch(case: Case, got: Any) -> dict:
    """The first epoch that differs: its items seen too often or never, its batch sizes."""
    want, epochs = case.expected.epochs, got["epochs"]
    e = next((e for e, (w, g) in enumerate(zip(want, epochs)) if g != w), None)
    w, g = (want[e], epochs[e]) if e is not None else ([], [])
    items, due = [i for b in g for i in b], [i for b in w for i in b]
    counts = [(i, items.count(i), due.count(i)) for i in range(case.expected.n)]
    item, seen, due = next((c for c in counts if c[1] != c[2]), (None, 0, 0))
    randperm = "randperm(n, generator=self.generator)" if case.inputs["generator"] else ""
    sizes, due_sizes = [len(b) for b in g], [len(b) for b in w]
    return (
        dict(differs=e is not None, batches=show(g), due_batches=show(w), item=item)
        | dict(twice=seen > due > 0, dropped=seen > due, never=seen < due)
        | dict(
            times=tr("twice", "两次") if seen == 2 else tr(f"{seen} times", f" {seen} 次"),
            last=g and g[-1],
        )
        | dict(short=case.expected.drop_last and len(g) == len(w) + 1 and g[:-1] == w)
        | dict(sizes=sizes, due_sizes=due_sizes, resized=sizes != due_sizes)
        | dict(again=bool(e) and g == epochs[0], shuffled=e is not None and case.inputs["shuffle"])
        | dict(
            epoch=tr(f" in epoch {(e or 0) + 1}", f"在第 {(e or 0) + 1} 轮中，")
            if len(want) > 1
            else "",
            n=len(epochs),
        )
        | dict(due_n=len(want))
        | dict(
            full=case.expected.drop_last
            and bool(w)
            and g == w[:-1]
            and len(w[-1]) == case.expected.batch_size
            and show(w[-1]),
            reshuffled=bool(e)
            and [i for b in g for i in b]
            == _permuted([i for b in epochs[e - 1] for i in b], [i for b in w for i in b]),
        )
        | dict(
            randperm=randperm
            or tr(
                "randperm(n) from the global generator (manual_seed)",
                "全局生成器（manual_seed）的 randperm(n)",
            )
        )
    )


def _permuted(order: list, by: list) -> list | None:
    """``order`` taken in the order of the permutation ``by`` (None where it is not one)."""
    return [order[j] for j in by] if sorted(by) == list(range(len(order))) else None


def _rows_belong(case: Case, got: Any) -> bool:
    """Whether each TensorDataset batch's X rows (sent) are the rows of its y items (X's row
    i is [2i, 2i + 1]), compared here; an item that is not in the dataset is left to the
    order's rules."""
    if case.inputs["dataset"] != "tensors":
        return True
    n = case.inputs["n"]
    table = np.arange(n * 2).reshape(n, 2)
    for batches, rows in zip(got["epochs"], got["rows"]):
        for ids, x in zip(batches, rows):
            if all(-n <= i < n for i in ids) and not _equal(x, table[ids]):
                return False
    return True


LOADER = rules(
    (
        lambda case, got: got.get("not_collated"),
        {
            "en": "a batch is {got[not_collated]}, not a batch of tensors: yield "
            "self._fetch(indices), which fetches the items and collates them",
            "zh": "有一个批量是 {got[not_collated]}，而不是由张量组成的批量：应 yield "
            "self._fetch(indices)，它会取出各项并把它们整理（collate）成批量",
        },
    ),
    (
        lambda case, got: not _rows_belong(case, got),
        {
            "en": "a batch's X rows do not belong to its y items",
            "zh": "某个批量中 X 的行与它的 y 项对不上",
        },
    ),
    (
        _is(_epoch, "short"),
        {
            "en": "drop_last=True still yielded the short last batch {last}",
            "zh": "drop_last=True 时仍产出了不完整的最后一个批量 {last}",
        },
    ),
    (
        _is(_epoch, "twice"),
        {
            "en": "item {item} appeared {times}{epoch}: every item once per epoch",
            "zh": "{epoch}数据项 {item} 出现了{times}：每一轮中每项只出现一次",
        },
    ),
    (
        _is(_epoch, "dropped"),
        {
            "en": "item {item} appeared{epoch}, but drop_last=True drops the short last batch",
            "zh": "{epoch}数据项 {item} 出现了，但 drop_last=True 会丢弃不完整的最后一个批量",
        },
    ),
    (
        _is(_epoch, "full"),
        {
            "en": "drop_last=True dropped the last batch {full}, which is full: only a short last "
            "batch is dropped",
            "zh": "drop_last=True 丢弃了最后一个批量 {full}，但它是完整的：只有不完整的最后一个"
            "批量才会被丢弃",
        },
    ),
    (
        _is(_epoch, "never"),
        {
            "en": "item {item} never appeared{epoch}: every item once per epoch",
            "zh": "{epoch}数据项 {item} 从未出现：每一轮中每项只出现一次",
        },
    ),
    (
        _is(_epoch, "resized"),
        {
            "en": "the batch sizes{epoch} are {sizes}, expected {due_sizes}",
            "zh": "{epoch}批量大小为 {sizes}，期望 {due_sizes}",
        },
    ),
    (
        _is(_epoch, "again"),
        {
            "en": "every epoch has the same order: draw a new randperm from the generator per "
            "epoch",
            "zh": "每一轮的顺序都相同：每一轮都应从生成器抽取新的 randperm",
        },
    ),
    (
        _is(_epoch, "reshuffled"),
        {
            "en": "the order{epoch} is the last epoch's order shuffled again, where each epoch "
            "draws a permutation of 0 … n − 1 afresh",
            "zh": "{epoch}顺序是把上一轮的顺序再打乱一次得到的，而每一轮都应重新抽取 "
            "0 … n − 1 的一个排列",
        },
    ),
    (
        _is(_epoch, "shuffled"),
        {
            "en": "the shuffled order{epoch} is {batches}, expected {randperm}'s {due_batches}",
            "zh": "{epoch}打乱后的顺序为 {batches}，期望 {randperm} 给出的 {due_batches}",
        },
    ),
    (
        _is(_epoch, "differs"),
        {
            "en": "the batches{epoch} are {batches}, expected {due_batches}",
            "zh": "{epoch}批量为 {batches}，期望 {due_batches}",
        },
    ),
    (
        lambda case, got: len(got["epochs"]) != len(case.expected.epochs),
        {
            "en": "expected {due_n} epochs, received {n}",
            "zh": "期望 {due_n} 轮，实际收到 {n} 轮",
        },
    ),
    keys=("epochs", "rows"),
    facts=_epoch,
)


# -- 5.12 ---------------------------------------------------------------------------------------


def _checkpoint(case: Case, got: Any) -> dict:
    """The first input given a gradient it is not due, the first due one given None."""
    grads = [(name, want, got["grads"].get(name)) for name, want in case.expected.grads.items()]
    extra = next((n for n, want, got in grads if want is None and np.any(got)), None)
    lost = [n for n, w, g in grads if w is not None and g is None]
    due = [n for n, w, _ in grads if w is not None]
    return {
        "extra": extra,
        "lost": lost[0] if lost else 0,
        "all": len(lost) == len(due),
        "inputs": lost == ["x"] and case.expected.kind != "args",
        "inside": lost and "x" not in lost and case.expected.kind != "args",
    }


TWICE = {
    "en": "it arrived twice: run fn again on detached copies of args, so that the inner backward "
    "stops at them and backward returns their .grad",
    "zh": "梯度累加了两次：应在 args 的分离副本上重新运行 fn，这样内部的反向传播会停在它们那里，"
    "再由 backward 返回它们的 .grad",
}


REPLAY = {
    "en": "the recomputation must draw the same random numbers as the forward did: fn ran again "
    "on other random numbers",
    "zh": "重新计算必须抽取与前向传播相同的随机数：fn 重新运行时用的是别的随机数",
}


def _checkpoint_grads(case: Case, received: Any) -> str | None:
    """Each gradient due against the plain run's (twice named). Built per case: the gradients
    are a mapping by input name, and a starred Field reads a list."""
    says = (
        REPLAY
        if case.expected.kind == "noise"
        else tr("gradients must equal the plain run's", "梯度必须与不用 checkpoint 的普通运行相同")
    )
    grads = [
        Field(f"grads.{name}", f"{name}.grad", RTOL, ATOL, lambda c, w=w: w, says=says)
        for name, w in case.expected.grads.items()
        if w is not None
    ]
    twice = [Mistake(g.key, lambda c, g=g: 2 * g.want(c), TWICE) for g in grads]
    return Fields(grads, twice)(case, received)


# the output, a gradient not due or missing, each gradient, then what checkpoint kept and
# the generator it leaves
CHECKPOINT = first(
    Fields([Field("out", "out", RTOL, ATOL)], keys=("out", "grads", "alive", "watched")),
    rules(
        (
            _is(_checkpoint, "extra"),
            {
                "en": "{extra}, which does not require grad, received a gradient",
                "zh": "{extra} 不需要梯度，却得到了梯度",
            },
        ),
        (
            _is(_checkpoint, "inputs"),
            {
                "en": "x.grad is None while the weights inside fn got theirs: the inputs fn runs "
                "on again did not require grad, so nothing reached them",
                "zh": "fn 内部的权重得到了梯度，x.grad 却是 None：fn 重新运行时的输入不需要梯度，"
                "所以梯度传不到它们",
            },
        ),
        (
            _is(_checkpoint, "inside"),
            {
                "en": "{lost}.grad is None though x.grad arrived: a weight fn uses gets its .grad "
                "only from a backward pass through the recomputed graph; gradients returned for "
                "the inputs alone leave it None",
                "zh": "x.grad 已经得到，{lost}.grad 却是 None：fn 用到的权重只能通过在重新计算的"
                "图上做反向传播得到 .grad；只为输入返回梯度，它就仍是 None",
            },
        ),
        (
            _is(_checkpoint, "all"),
            {
                "en": "{lost}.grad is None, and so is every gradient: backward runs with grad mode "
                "off, so the rerun of fn recorded nothing: run fn again under enable_grad()",
                "zh": "{lost}.grad 是 None，所有梯度也都是：backward 运行时梯度模式是关闭的，所以"
                "重新运行 fn 什么也没记录：应在 enable_grad() 下重新运行 fn",
            },
        ),
        (
            _is(_checkpoint, "lost"),
            {
                "en": "{lost}.grad is None, but {lost} requires grad",
                "zh": "{lost}.grad 是 None，但 {lost} 需要梯度",
            },
        ),
        facts=_checkpoint,
    ),
    _checkpoint_grads,
    rules(
        (
            lambda case, got: got["alive"],
            {
                "en": "checkpoint kept the activations: {got[alive]} tensors of fn's intermediates "
                "alive after forward (run fn under no_grad() and keep only its inputs)",
                "zh": "checkpoint 保留了激活值：前向传播之后 fn 仍有 {got[alive]} 个中间张量存活"
                "（应在 no_grad() 下运行 fn，只保存它的输入）",
            },
        ),
        (
            lambda case, got: (
                case.expected.after is not None
                and got.get("after") is not None
                and _close(got["after"], case.expected.after, "")
            ),
            {
                "en": "after the backward, sp.rand drew other numbers than it would have without "
                "the replay: put the global generator back where it stood once fn has run again "
                "(_replaying(ctx.rng_state) does)",
                "zh": "反向传播之后，sp.rand 抽到的数与没有重放时不同：fn 重新运行完后，要把全局"
                "生成器恢复到原来的状态（_replaying(ctx.rng_state) 会这样做）",
            },
        ),
    ),
)


def on_tree(make: Any, label: str, tree: Any, **options: Any) -> Any:
    """A row of a tree case builder (``make(label, tree, rng, **options)``)."""
    return lambda rng: make(label, tree, rng, **options)


NET = "Net(fc, blocks: [0, 1])"
SHARED = {"en": "a model with one module shared by a and b", "zh": "一个模块被 a 和 b 共享的模型"}
FALSY_TREE = {
    "en": "a model holding an empty container (falsy)",
    "zh": "包含一个空容器（假值）的模型",
}
TIED = {"en": "enc and dec with tied weights", "zh": "权重绑定的 enc 和 dec"}
DEEP = {"en": "four levels with buffers", "zh": "带缓冲区的四层模型"}

CHECKS = [
    Check(
        "5.1",
        "Module.__setattr__: registration",
        Rows.of(*[registration_case(s) for s in REGISTRATION]),
        programs.registration,
        REGISTRATION_VERDICT,
        title={"zh": "Module.__setattr__：注册"},
    ),
    Check(
        "5.2",
        "Linear: PyTorch's default initialisation",
        Rows.of(
            linear_init_case(256, 64, seed=1),
            linear_init_case(16, 2048, seed=2),
            linear_init_case(100, 300, bias=False, seed=3),
        ),
        programs.linear_init,
        LINEAR_INIT,
        requires=MODULE,
        title={"zh": "Linear：PyTorch 的默认初始化"},
    ),
    Check(
        "5.2",
        "Linear: LinearFunction's forward and backward",
        Rows(
            [
                row(linear_forward_case, (4, 3), 2),
                row(linear_forward_case, (3,), 4),
                row(linear_forward_case, (2, 3, 5), 3),
                row(linear_forward_case, (5, 2), 3, bias=False),
                row(linear_forward_case, (6, 4), 4),
                row(linear_forward_case, (4, 3), 3, needs=(False, True, True)),
                row(linear_forward_case, (3, 4), 2, needs=(True, False, True)),
                row(linear_forward_case, (3, 4), 2, needs=(True, True, False)),
                row(linear_forward_case, (3, 2), 2, bias=False, needs=(False, True)),
                row(linear_forward_case, (4, 3), 2, second=True),
                row(linear_forward_case, (2, 2, 3), 3, bias=False, second=True),
            ]
        ),
        programs.linear_forward,
        LINEAR_FORWARD,
        requires=MODULE,
        title={"zh": "Linear：LinearFunction 的前向与反向传播"},
    ),
    Check(
        "5.3",
        "named_modules",
        Rows(
            [
                on_tree(named_modules_case, NET, model_tree),
                on_tree(named_modules_case, SHARED, shared_tree),
                on_tree(
                    named_modules_case,
                    {"en": "four levels with a None child", "zh": "四层模型，有一个子模块为 None"},
                    deep_tree,
                ),
                on_tree(named_modules_case, FALSY_TREE, container_tree),
            ]
        ),
        programs.tree,
        NAMED_MODULES,
        requires=MODULE,
    ),
    Check(
        "5.3",
        "named_parameters and named_buffers",
        Rows(
            [
                on_tree(members_case, NET, model_tree),
                on_tree(members_case, SHARED, shared_tree),
                on_tree(members_case, TIED, tied_tree),
                on_tree(
                    members_case,
                    {
                        "en": "four levels, buffers, a None parameter",
                        "zh": "四层模型，带缓冲区，有一个参数为 None",
                    },
                    deep_tree,
                ),
            ]
        ),
        programs.tree,
        NAMED_MEMBERS,
        requires=MODULE,
        title={"zh": "named_parameters 与 named_buffers"},
    ),
    Check(
        "5.3",
        "train and eval",
        Rows(
            [
                on_tree(train_case, NET, model_tree),
                on_tree(train_case, {"en": "four levels", "zh": "四层模型"}, deep_tree),
                on_tree(train_case, FALSY_TREE, container_tree),
            ]
        ),
        programs.tree,
        TRAIN,
        requires=MODULE,
        title={"zh": "train 与 eval"},
    ),
    Check(
        "5.4",
        "Sequential and ModuleList",
        Rows(
            [
                row(container_case, "sequential", 3),
                row(container_case, "sequential", 0),
                row(container_case, "sequential", 2, appended=1),
                row(container_case, "list", 3),
                row(container_case, "list", 1, appended=2),
                row(container_case, "list_append", 0, appended=3),
                row(container_case, "sequential", 3, picks=[0, 1, 0]),
                row(container_case, "sequential", 12),
            ]
        ),
        programs.containers,
        CONTAINER,
        requires=MODULE,
        title={"zh": "Sequential 与 ModuleList"},
    ),
    Check(
        "5.5",
        "state_dict",
        Rows(
            [
                on_tree(state_dict_case, NET, model_tree),
                on_tree(
                    state_dict_case,
                    {
                        "en": "four levels, buffers (one not persistent), None entries",
                        "zh": "四层模型，带缓冲区（其中一个非持久）和值为 None 的条目",
                    },
                    deep_tree,
                ),
                on_tree(state_dict_case, SHARED, shared_tree),
                on_tree(state_dict_case, TIED, tied_tree),
            ]
        ),
        programs.state,
        STATE_DICT,
        requires=TREE,
    ),
    Check(
        "5.5",
        "load_state_dict",
        Rows(
            [
                on_tree(load_case, NET, model_tree),
                on_tree(load_case, DEEP, deep_tree),
                on_tree(load_case, NET, model_tree, drop=1),
                on_tree(load_case, NET, model_tree, extra=1),
                on_tree(load_case, NET, model_tree, reshape=1),
                on_tree(load_case, DEEP, deep_tree, drop=2, extra=1),
                on_tree(load_case, NET, model_tree, drop=1, extra=2, strict=False),
                on_tree(load_case, NET, model_tree, reshape=1, strict=False),
                on_tree(load_case, DEEP, deep_tree, dtype="float32"),
            ]
        ),
        programs.state,
        load_verdict,
        requires=TREE,
    ),
    Check(
        "5.6",
        "softmax and log_softmax",
        Rows(
            [
                row(softmax_case, f, shape, dim, dtype=dtype)
                for f in ("softmax", "log_softmax")
                for shape, dim, dtype in (
                    ((3, 4), 1, "float64"),
                    ((3, 4), 0, "float64"),
                    ((2, 3, 4), -1, "float64"),
                    ((5,), 0, "float64"),
                    ((2, 3, 4), 1, "float32"),
                )
            ]
        ),
        programs.softmax,
        SOFTMAX,
        title={"zh": "softmax 与 log_softmax"},
    ),
    Check(
        "5.6",
        "softmax and log_softmax at large logits",
        Rows.of(
            softmax_case(None, "softmax", x=[[1000.0, 0.0]]),
            softmax_case(None, "log_softmax", x=[[1000.0, 0.0]]),
            softmax_case(None, "softmax", x=[[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4]]),
            softmax_case(None, "log_softmax", x=[[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4]]),
        ),
        programs.softmax,
        SOFTMAX,
        title={"zh": "大 logit 下的 softmax 与 log_softmax"},
    ),
    Check(
        "5.7",
        "cross_entropy",
        Rows(
            [
                row(cross_entropy_case),
                row(cross_entropy_case, reduction="sum"),
                row(cross_entropy_case, reduction="none"),
                row(cross_entropy_case, n=6, ignore=2),
                row(cross_entropy_case, n=6, ignore=2, reduction="sum"),
                row(cross_entropy_case, n=5, ignore=2, ignore_index=1),
                row(cross_entropy_case, n=4, ignore=4),
                row(cross_entropy_case, smoothing=0.1),
                row(cross_entropy_case, n=6, ignore=2, smoothing=0.2, reduction="none"),
                row(cross_entropy_case, n=6, ignore=1, smoothing=0.3),
                row(cross_entropy_case, scale=1e4),
                row(cross_entropy_case, n=3, c=3, extra=(2,)),
                row(cross_entropy_case, c=5, single=True),
                row(cross_entropy_case, n=6, ignore=1, smoothing=0.1, dtype="float32"),
            ]
        ),
        programs.cross_entropy,
        CROSS_ENTROPY,
        requires=("5.6",),
    ),
    Check(
        "5.8",
        "xavier and kaiming",
        Rows.of(
            init_case("xavier_uniform_", (50, 200), 1),
            init_case("xavier_normal_", (200, 50), 2),
            init_case("xavier_uniform_", (60, 180), 3, gain=5 / 3),
            init_case("kaiming_uniform_", (50, 200), 4),
            init_case("kaiming_normal_", (50, 200), 5, mode="fan_out"),
            init_case("kaiming_normal_", (200, 50), 6, nonlinearity="relu"),
            init_case("kaiming_uniform_", (40, 250), 7, a=0.2, mode="fan_out"),
            init_case("kaiming_uniform_", (30, 40, 3, 3), 8, nonlinearity="relu"),
            init_case("kaiming_normal_", (60, 150), 9, a=2.0),
            init_case("xavier_normal_", (120, 80), 10, gain=5 / 3),
        ),
        programs.init,
        INIT,
        title={"zh": "xavier 与 kaiming"},
    ),
    Check(
        "5.9",
        "dropout",
        Rows(
            [
                row(dropout_case, (100, 200), 0.3),
                row(dropout_case, (20000,), 0.8),
                row(dropout_case, (100, 100), 0.5, dtype="float32"),
                row(dropout_case, (4, 5), 0.5, training=False),
                row(dropout_case, (4, 5), 0.0),
                row(dropout_case, (4, 5), 1.0),
                row(dropout_case, (50, 40), 0.4, calls=3, generator=False),
            ]
        ),
        programs.dropout,
        DROPOUT,
    ),
    Check(
        "5.9",
        "nn.Dropout in train() and eval()",
        Rows(
            [
                row(dropout_case, (4, 5), 0.5, training=False, module=True),
                row(dropout_case, (100, 100), 0.25, module=True, generator=False),
            ]
        ),
        programs.dropout,
        DROPOUT,
        requires=TREE,
        title={"zh": "train() 与 eval() 下的 nn.Dropout"},
    ),
    Check(
        "5.10",
        "BatchNorm1d",
        Rows(
            [
                row(batchnorm_case, 3, 8),
                row(batchnorm_case, 2, 4, length=3, batches=3),
                row(batchnorm_case, 3, 5, momentum=None, batches=3),
                row(batchnorm_case, 2, 6, momentum=0.5),
                row(batchnorm_case, 3, 4, track=False),
                row(batchnorm_case, 2, 5, affine=False),
            ]
        ),
        programs.batchnorm,
        BATCHNORM,
        requires=TREE,
    ),
    Check(
        "5.11",
        "DataLoader",
        Rows(
            [
                *Rows.of(
                    loader_case(None, 10, 3),
                    loader_case(None, 10, 3, drop_last=True),
                    loader_case(None, 9, 3, drop_last=True),
                    loader_case(None, 4, 10),
                ).builders,
                row(loader_case, 11, 4, shuffle=True, epochs=2),
                row(loader_case, 10, 3, shuffle=True, drop_last=True, epochs=2),
                row(loader_case, 7, 2, shuffle=True, generator=False),
                row(loader_case, 6, 4, shuffle=True, dataset="tensors"),
            ]
        ),
        programs.loader,
        LOADER,
    ),
    Check(
        "5.12",
        "checkpoint",
        Rows(
            [
                row(checkpoint_case, "closure"),
                row(checkpoint_case, "args"),
                row(checkpoint_case, "noise"),
                row(checkpoint_case, "closure", n=3, width=4, depth=6),
            ]
        ),
        programs.checkpoint,
        CHECKPOINT,
    ),
    Check(
        "5.12",
        "checkpoint of a Sequential of Linear and Tanh",
        Rows(
            [
                row(checkpoint_case, "modules", depth=4),
                row(checkpoint_case, "modules", n=2, width=3, depth=2),
            ]
        ),
        programs.checkpoint,
        CHECKPOINT,
        requires=("5.1", "5.2", "5.4"),
        title={"zh": "对由 Linear 和 Tanh 组成的 Sequential 做 checkpoint"},
    ),
]

# task 5.13, course version 1.1 (exercises.py, its program exercises_program.py)
from .exercises import EXERCISES  # noqa: E402

CHECKS += EXERCISES
