"""Chapter 5's check programs: the only part of the checks that runs next to the code under
test (standard library, NumPy and the harness's kit only). Models are built here from the
case's lists with ``Module`` subclasses defined below (so a check of 5.3 or 5.5 needs no
Linear and no Sequential); each program returns what it saw and decides nothing.

Backward passes run the framework's own ``out.backward`` (chapter 4's engine as the tree
under test has it: in a student's tree, the student's chapter 4)."""

from __future__ import annotations

import functools
import gc
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ...harness.kit import attempt, fill, host, on_device, raised, tensor, tensor_values, tr

# -- 5.1 ---------------------------------------------------------------------------------------


def registration(sp, script: list, data: Any) -> dict:
    """The script's assignments on one fresh Module; per step, what it raised; at the end
    the three tables' names, the plain attributes, and which step's object each name gives."""
    Module = sp.nn.Module

    class Box(Module):
        pass

    box = Box()
    made: list = []
    errors = []
    for action, name in script:
        value = {
            "param": lambda: sp.nn.Parameter(np.array(data)),
            "module": lambda: Box(),
            "tensor": lambda: tensor(sp, data),
            "buffer": lambda: tensor(sp, data),
            "int": lambda: 3,
            "none": lambda: None,
        }[action]()
        made.append(value)
        if action == "buffer":
            result = raised(lambda n=name, v=value: box.register_buffer(n, v))
        else:
            result = raised(lambda n=name, v=value: setattr(box, n, v))
        errors.append(result["error"])
    state = vars(box)
    plain = [n for n in state if not n.startswith("_") and n != "training"]
    found = {}
    for _, name in script:
        got = attempt(lambda n=name: getattr(box, n))["value"]
        steps = [i for i, v in enumerate(made) if v is got and got is not None]
        found[name] = steps[-1] if steps else (-1 if got is None else -2)
    return {
        "errors": errors,
        "parameters": list(state["_parameters"]),
        "modules": list(state["_modules"]),
        "buffers": list(state["_buffers"]),
        "plain": plain,
        "found": found,
    }


# -- trees (5.3, 5.5) ----------------------------------------------------------------------------

ELEMENTWISE = {
    "en": " (this came from comparing Tensors with == — `value in a_list` and `a == b` compare a "
    "Tensor's values elementwise: tell tensors apart by identity, `is` or id(value))",
    "zh": "（这是用 == 比较 Tensor 引起的：`value in a_list` 和 `a == b` 会逐元素比较 Tensor 的"
    "值：要按身份区分张量，用 `is` 或 id(value)）",
}


def explain_tensor_equality(program: Callable) -> Callable:
    """``program``, whose error, when it went through a Tensor's ``__eq__`` or
    ``__bool__``, says so (its traceback, and so where it was raised, kept)."""

    @functools.wraps(program)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return program(*args, **kwargs)
        except (ValueError, TypeError, RuntimeError) as error:
            tb, through = error.__traceback__, False
            while tb is not None:
                code = tb.tb_frame.f_code
                if code.co_name in ("__eq__", "__bool__") and "tensor" in code.co_filename:
                    through = True
                tb = tb.tb_next
            if through and error.args and isinstance(error.args[0], str):
                words = tr(ELEMENTWISE["en"], ELEMENTWISE["zh"])
                error.args = (error.args[0].rstrip() + words, *error.args[1:])
            raise

    return run


def build_tree(sp, tree: dict, tensors: dict, dtype: str = "float64") -> tuple[Any, list, dict]:
    """The modules (by index), and each tensor object's id -> ("p"|"b", id)."""
    Module = sp.nn.Module

    class Part(Module):
        def forward(self, x):
            return x

    class Empty(Part):  # falsy, as an empty Sequential or ModuleList is: len() is 0
        def __len__(self) -> int:
            return 0

    params = [sp.nn.Parameter(np.array(a, dtype=dtype)) for a in tensors["p"]]
    buffers = [tensor(sp, a, dtype=dtype) for a in tensors["b"]]
    modules = [Empty() if spec.get("empty") else Part() for spec in tree["modules"]]
    for module, spec in zip(modules, tree["modules"]):
        for name, pid in spec["params"]:
            if pid is None:
                module.register_parameter(name, None)
            else:
                setattr(module, name, params[pid])
        for name, bid, persistent in spec["buffers"]:
            module.register_buffer(name, None if bid is None else buffers[bid], persistent)
    for module, spec in zip(modules, tree["modules"]):
        for name, child in spec["children"]:
            if child is None:
                module.add_module(name, None)
            else:
                setattr(module, name, modules[child])
    ids = {id(p): ["p", i] for i, p in enumerate(params)}
    ids.update({id(b): ["b", i] for i, b in enumerate(buffers)})
    return modules, params + buffers, ids


def _index(modules: list, m: Any) -> int:
    return next((i for i, x in enumerate(modules) if x is m), -1)


def _members(pairs: Any, ids: dict) -> list:
    return [[name, ids.get(id(t), ["?", -1])[1]] for name, t in pairs]


@explain_tensor_equality
def tree(sp, tree: dict, tensors: dict, what: str, sub: int = 1, **_: Any) -> dict:
    modules, _, ids = build_tree(sp, tree, tensors)
    root = modules[0]
    if what == "modules":
        return {
            "names": [[n, _index(modules, m)] for n, m in root.named_modules()],
            "all_names": [
                [n, _index(modules, m)] for n, m in root.named_modules(remove_duplicate=False)
            ],
            "prefixed": [[n, _index(modules, m)] for n, m in root.named_modules(prefix="model")],
        }
    if what == "members":
        return {
            "parameters": _members(root.named_parameters(), ids),
            "all_parameters": _members(root.named_parameters(remove_duplicate=False), ids),
            "own": _members(root.named_parameters(recurse=False), ids),
            "prefixed": _members(root.named_parameters(prefix="model"), ids),
            "buffers": _members(root.named_buffers(), ids),
            "own_prefixed": _members(root.named_parameters(prefix="model", recurse=False), ids),
        }
    flags = []
    returned = root.eval()
    flags.append([m.training for m in modules])
    root.train()
    flags.append([m.training for m in modules])
    modules[sub].eval()
    flags.append([m.training for m in modules])
    return {"flags": flags, "returned_self": returned is root}


@explain_tensor_equality
def state(
    sp,
    tree: dict,
    tensors: dict,
    what: str,
    source: Any = None,
    strict: bool = True,
    dtype: str = "float64",
    **_: Any,
) -> dict:
    modules, objects, ids = build_tree(sp, tree, tensors, dtype)
    root = modules[0]
    if what == "state_dict":
        sd = root.state_dict()
        kept = root.state_dict(keep_vars=True)
        return {
            "type_name": type(sd).__name__,
            "keys": list(sd),
            "values": [tensor_values(v) for v in sd.values()],
            "requires_grad": [bool(getattr(v, "requires_grad", False)) for v in sd.values()],
            "kept": [ids.get(id(v), ["?", -1]) for v in kept.values()],
        }
    given = {k: tensor(sp, v) for k, v in source}
    before = [id(o) for o in objects]
    result = attempt(lambda: root.load_state_dict(given, strict=strict))
    returned = result["value"]
    for t in given.values():  # the model must hold copies, not the source's arrays
        t.data[...] = 0 if t.data.ndim else t.data
    after: dict = {"p": [], "b": []}
    dtypes: dict = {"p": [], "b": []}
    for kind, table in (("p", "_parameters"), ("b", "_buffers")):
        found = {}
        for module, spec in zip(modules, tree["modules"]):
            entries = spec["params"] if kind == "p" else spec["buffers"]
            for entry in entries:
                if entry[1] is not None:
                    found[entry[1]] = vars(module)[table].get(entry[0])
        after[kind] = [tensor_values(found.get(i)) for i in range(len(tensors[kind]))]
        dtypes[kind] = [str(getattr(found.get(i), "dtype", "")) for i in range(len(tensors[kind]))]
    now = []
    for module, spec in zip(modules, tree["modules"]):
        for name, pid in spec["params"]:
            if pid is not None:
                now.append([name, vars(module)["_parameters"].get(name) is objects[pid]])
    del before
    listed = None
    if returned is not None:
        try:
            missing, unexpected = returned
            listed = [list(missing), list(unexpected)]
        except (TypeError, ValueError):
            listed = f"<{type(returned).__name__}>"
    return {
        "error": result["error"],
        "message": result["message"],
        "after": after,
        "same_objects": now,
        "returned": listed,
        "dtypes": dtypes,
    }


# -- 5.2 ---------------------------------------------------------------------------------------


def linear_init(sp, n_in: int, n_out: int, bias: bool, seed: int) -> dict:
    """A Linear after manual_seed(seed), another after the same seed, one made right after
    it, one after manual_seed(seed + 1), and a float32 one reset: each one's parameters'
    values (the float32 one's weight before and after ``reset_parameters``), for the parent
    to compare."""
    names = ["weight", "bias"] if bias else ["weight"]

    def values(linear: Any) -> dict:
        return {n: tensor_values(getattr(linear, n)) for n in names}

    sp.manual_seed(seed)
    first = sp.nn.Linear(n_in, n_out, bias=bias, dtype=np.float64)
    sp.manual_seed(seed)
    again = sp.nn.Linear(n_in, n_out, bias=bias, dtype=np.float64)
    following = sp.nn.Linear(n_in, n_out, bias=bias, dtype=np.float64)
    sp.manual_seed(seed + 1)
    other = sp.nn.Linear(n_in, n_out, bias=bias, dtype=np.float64)
    single = sp.nn.Linear(n_in, n_out, bias=bias, dtype=np.float32)
    objects = (single.weight, single.bias)
    before = tensor_values(single.weight)
    single.reset_parameters()
    return {
        "float32": [str(getattr(p, "dtype", "")) for p in objects],
        # an identity no value can witness: are the Parameters still the objects __init__ made?
        "kept": single.weight is objects[0] and single.bias is objects[1],
        "weight": tensor_values(first.weight),
        "bias": tensor_values(first.bias),
        "again": values(again),
        "following": values(following),
        "other": values(other),
        "reset": [before, tensor_values(single.weight)],
    }


def linear_forward(
    sp, x: Any, w: Any, b: Any, g: Any, needs: list, h: Any = None, k: Any = None
) -> dict:
    """y = Linear(x) with W, b set; x, W, b requiring grad as ``needs`` says. Without h:
    y.backward(g) and the three .grad. With h and k: gx, gW = grad(½‖y‖², [x, W],
    create_graph=True), then (h·gx + k·gW).sum().backward() and the three .grad. An error
    the backward raises goes on up, a known mistake named in its message."""
    lin = sp.nn.Linear(w.shape[1], w.shape[0], bias=b is not None, dtype=np.float64)
    fill(sp, lin.weight.data, w)
    if b is not None:
        fill(sp, lin.bias.data, b)
    params = [lin.weight] + ([lin.bias] if b is not None else [])
    for p, need in zip(params, needs[1:]):
        p.requires_grad_(bool(need))
    xt = tensor(sp, x, requires_grad=bool(needs[0]))
    try:
        y = lin(xt)
    except NotImplementedError:
        raise
    except Exception as error:  # raised again where it was (its frames kept), with a hint
        _add_hint(error, _forward_hint(str(error), w.shape, b is None))
        raise
    result = {"y": tensor_values(y), "requires_grad": bool(getattr(y, "requires_grad", False))}
    result.update(x_grad=None, w_grad=None, b_grad=None)
    if not result["requires_grad"]:
        return result
    try:
        if h is None:
            y.backward(tensor(sp, g))
        else:
            gx, gw = sp.autograd.grad((y * y).sum() * 0.5, [xt, lin.weight], create_graph=True)
            result["recorded"] = [bool(getattr(t, "requires_grad", False)) for t in (gx, gw)]
            if not all(result["recorded"]):
                return result
            ((gx * tensor(sp, h)).sum() + (gw * tensor(sp, k)).sum()).backward()
    except NotImplementedError:
        raise
    except Exception as error:  # raised again where it was (its frames kept), with a hint
        _add_hint(error, _linear_hint(str(error), w.shape))
        raise
    result.update(x_grad=tensor_values(xt.grad), w_grad=tensor_values(lin.weight.grad))
    result["b_grad"] = tensor_values(lin.bias.grad) if b is not None else None
    return result


def _add_hint(error: Exception, hint: str) -> None:
    """``hint`` added to the error's message (where it is one string)."""
    if hint and len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (tr(f"{error.args[0]} ({hint})", f"{error.args[0]}（{hint}）"),)


def _forward_hint(error: str, shape: tuple, no_bias: bool) -> str:
    """A known mistake of LinearFunction.forward, named from the error it led to."""
    n_out, n_in = shape
    if no_bias and "NoneType" in error:
        return tr(
            "this Linear has no bias (bias=False): the forward added the bias all the same",
            "这个 Linear 没有偏置（bias=False）：前向函数却照样加上了偏置",
        )
    matched = ("mismatch", "cannot be multiplied", "not aligned")  # en-only: error texts
    if any(text in error for text in matched):
        return tr(
            f"the weight is stored (out, in) = {(n_out, n_in)}: the forward multiplied x by it "
            "as stored, not by its transpose",
            f"权重按 (out, in) = {(n_out, n_in)} 存储：前向函数直接用存储的权重乘 x，而不是用它的"
            "转置",
        )
    return ""


def _linear_hint(error: str, shape: tuple) -> str:
    """A known mistake of LinearFunction.backward, named from the error it led to."""
    n_out, n_in = shape
    hints = [
        (
            "must return Tensors",  # en-only: matched in the error
            tr(
                "compute the gradients with Tensor operations on grad_output",
                "应在 grad_output 上用 Tensor 运算计算梯度",
            ),
        ),
        (
            "gradient(s) for 2 input(s)",  # en-only: matched in the error
            tr(
                "without a bias, apply records 2 inputs (x, weight): return 2 gradients "
                "(len(ctx.needs_input_grad) says how many)",
                "没有偏置时，apply 记录 2 个输入（x, weight）：应返回 2 个梯度"
                "（len(ctx.needs_input_grad) 给出个数）",
            ),
        ),
        (
            f"for an input of shape {(n_out, n_in)}",  # en-only: matched in the error
            tr(
                "∂L/∂W has W's shape (out, in): gᵀx, not xᵀg",
                "∂L/∂W 的形状与 W 相同，为 (out, in)：应是 gᵀx，而不是 xᵀg",
            ),
        ),
        (
            f"for an input of shape {(n_out,)}",  # en-only: matched in the error
            tr(
                "the bias gradient sums over the batch (axis 0): g.sum(dim=0)",
                "偏置的梯度是在批量（轴 0）上求和：g.sum(dim=0)",
            ),
        ),
        (
            "does not require grad",  # en-only: matched in the error
            tr(
                "backward's gradients must be recorded: Tensor operations",
                "backward 返回的梯度必须被记录：应使用 Tensor 运算",
            ),
        ),
        (
            "cannot be multiplied",  # en-only: matched in the error
            tr(
                "∂L/∂x = g W: (N, out)(out, in); ∂L/∂W = gᵀx: (out, N)(N, in); the weight saved "
                "in forward is W as stored, (out, in)",
                "∂L/∂x = g W：(N, out)(out, in)；∂L/∂W = gᵀx：(out, N)(N, in)；forward 中保存的"
                "权重就是按存储形状 (out, in) 的 W",
            ),
        ),
    ]
    return next((hint for text, hint in hints if text in error), "")


# -- 5.4 ---------------------------------------------------------------------------------------


def containers(sp, kind: str, scales: list, n: int, x: Any, picks: list) -> dict:
    calls: list[int] = []

    class Affine(sp.nn.Module):
        def __init__(self, number: int, s: float) -> None:
            super().__init__()
            self.scale = sp.nn.Parameter(np.array(s))
            self.number = number

        def forward(self, h):
            calls.append(self.number)
            return h * self.scale + 1.0

    modules = [Affine(i, s) for i, s in enumerate(scales)]
    hooked: list[int] = []  # forward hooks run by __call__: module(x), not module.forward(x)
    for m in modules:
        m.register_forward_hook(lambda module, args, out: hooked.append(module.number))
    made = [modules[i] for i in picks]
    chained = None
    y = None
    if kind == "sequential":
        box = sp.nn.Sequential(*made[:n])
        for m in made[n:]:
            box.append(m)
        y = tensor_values(box(tensor(sp, x)))
    elif kind == "list":
        box = sp.nn.ModuleList(made[:n])
        for m in made[n:]:
            box.append(m)
    else:
        box = sp.nn.ModuleList()
        chained = True
        for m in made:
            chained = (box.append(m) is box) and chained
    table = vars(box)["_modules"]
    return {
        "names": list(table),
        "order": [getattr(m, "number", -1) for m in table.values()],
        "calls": calls if kind == "sequential" else None,
        "hooked": hooked if kind == "sequential" else None,
        "y": y,
        "chained": chained,
        "length": len(box),
    }


# -- 5.6, 5.7 ----------------------------------------------------------------------------------


def softmax(sp, function: str, x: Any, dim: int, g: Any, dtype: str) -> dict:
    xt = tensor(sp, x, requires_grad=True, dtype=dtype)
    out = getattr(sp.nn.functional, function)(xt, dim=dim)
    result = {"out": tensor_values(out), "dtype": str(getattr(out, "dtype", "")), "grad": None}
    if getattr(out, "requires_grad", False):
        out.backward(tensor(sp, g, dtype=dtype))
        result["grad"] = tensor_values(xt.grad)
    return result


def cross_entropy(
    sp,
    z: Any,
    t: Any,
    ignore_index: int,
    smoothing: float,
    reduction: str,
    g: Any,
    dtype: str = "float64",
) -> dict:
    zt = tensor(sp, z, requires_grad=True, dtype=dtype)
    try:
        loss = sp.nn.functional.cross_entropy(
            zt,
            sp.Tensor(np.array(t, dtype=np.int64)),
            ignore_index=ignore_index,
            reduction=reduction,
            label_smoothing=smoothing,
        )
    except Exception as error:  # raised again where it was, a known mistake named
        kept = int((np.asarray(t) != ignore_index).sum())
        if reduction == "none" and kept < np.size(t) and f"({kept} elements)" in str(error):
            _add_hint(
                error,
                tr(
                    f"reduction='none' gave {kept} losses, one per kept target: it gives one per "
                    f"target, {np.size(t)}, 0 for an ignored one",
                    f"reduction='none' 给出了 {kept} 个损失，每个保留的目标一个：它应对每个目标"
                    f"给出一个，共 {np.size(t)} 个，被忽略的目标为 0",
                ),
            )
        raise
    result = {
        "loss": tensor_values(loss),
        "grad": None,
        "dtypes": [str(getattr(loss, "dtype", ""))],
    }
    if getattr(loss, "requires_grad", False):
        loss.backward(tensor(sp, g, dtype=dtype))
        result["grad"] = tensor_values(zt.grad)
        result["dtypes"].append(str(getattr(zt.grad, "dtype", "")))
    return result


# -- 5.8 ---------------------------------------------------------------------------------------


def init(sp, function: str, shape: list, options: dict, seed: int) -> dict:
    """The tensor filled with generator=Generator().manual_seed(seed), and the values of the
    other fills, for the parent to compare: with a generator seeded alike (``again``), seeded
    seed + 1 (``other``), a generator seeded alike used a second time (``twice``: its first
    fill is drawn as ``again`` was, and not sent); without a generator after manual_seed(seed)
    (``global``), again after it and right after that (``global_again``, ``global_next``),
    after manual_seed(seed + 1) (``global_other``)."""
    initialise = getattr(sp.nn.init, function)

    def filled(**generator: Any) -> Any:
        t = sp.nn.Parameter(np.zeros(tuple(shape)))
        initialise(t, **options, **generator)
        return tensor_values(t)

    t = sp.nn.Parameter(np.zeros(tuple(shape)))
    returned = initialise(t, **options, generator=sp.Generator().manual_seed(seed))
    first = tensor_values(t)
    again = filled(generator=sp.Generator().manual_seed(seed))
    other = filled(generator=sp.Generator().manual_seed(seed + 1))
    g = sp.Generator().manual_seed(seed)
    filled(generator=g)  # drawn as ``again`` was: the parent compares ``twice`` with that
    twice = filled(generator=g)
    sp.manual_seed(seed)
    glob = filled()
    sp.manual_seed(seed)
    glob2 = filled()
    glob3 = filled()
    sp.manual_seed(seed + 1)
    glob4 = filled()
    single = sp.nn.Parameter(np.zeros(tuple(shape), dtype=np.float32))
    initialise(single, **options)
    return {
        "float32": str(getattr(single, "dtype", "")),
        "values": first,
        "returned_self": returned is t,
        "again": again,
        "other": other,
        "twice": twice,
        "global": glob,
        "global_again": glob2,
        "global_next": glob3,
        "global_other": glob4,
    }


# -- 5.9 ---------------------------------------------------------------------------------------


def dropout(
    sp,
    x: Any,
    p: float,
    training: bool,
    calls: int,
    dtype: str,
    seed: int,
    generator: bool,
    module: bool,
) -> dict:
    outs, grads, dtypes = [], [], []
    layer, gen = None, None
    if module:
        layer = sp.nn.Dropout(p)
        layer.train(training)
    sp.manual_seed(seed)
    for _ in range(calls):
        xt = tensor(sp, x, requires_grad=True, dtype=dtype)
        try:
            if module:
                out = layer(xt)
            elif generator:
                gen = sp.Generator().manual_seed(seed)
                out = sp.nn.functional.dropout(xt, p, training, generator=gen)
                seed += 1
            else:
                out = sp.nn.functional.dropout(xt, p, training)
        except ZeroDivisionError as error:  # raised again where it was, the mistake named
            if p == 1:
                _add_hint(
                    error,
                    tr(
                        "p = 1 drops every element, and 1/(1 − p) divides by zero",
                        "p = 1 会丢弃每个元素，而 1/(1 − p) 会除以零",
                    ),
                )
            raise
        outs.append(tensor_values(out))
        dtypes.append(str(getattr(out, "dtype", "")))
        if getattr(out, "requires_grad", False):
            out.backward(tensor(sp, np.ones(np.shape(x)), dtype=dtype))
            grads.append(tensor_values(xt.grad))
        else:
            grads.append(None)
    # the masks of generators seeded 5 (a, b) and 6 (c), and one seeded 5's second mask (its
    # first is drawn as a's was, and not sent: the parent compares ``twice`` with a)
    seeded = None
    if generator and not module and training:

        def masked(g: Any) -> Any:
            return tensor_values(sp.nn.functional.dropout(tensor(sp, x), p, True, generator=g))

        seeded = {
            "a": masked(sp.Generator().manual_seed(5)),
            "b": masked(sp.Generator().manual_seed(5)),
            "c": masked(sp.Generator().manual_seed(6)),
        }
        g = sp.Generator().manual_seed(5)
        masked(g)
        seeded["twice"] = masked(g)
    moved = None  # an identity (eval, p = 0) must leave the generator where it was
    if not training or p == 0:
        if gen is not None:  # its state, and a generator's just seeded alike, compared there
            moved = {
                "state": gen.get_state(),
                "seeded": sp.Generator().manual_seed(seed - 1).get_state(),
            }
        else:  # the global generator: the parent knows its next number after manual_seed
            moved = [float(v) for v in host(sp.rand(1, dtype=sp.float64)).ravel()]
    return {
        "outs": outs,
        "grads": grads,
        "dtypes": dtypes,
        "seeded": seeded,
        "generator_moved": moved,
    }


# -- 5.10 --------------------------------------------------------------------------------------


def batchnorm(sp, c: int, options: dict, w: Any, b: Any, xs: list, x_eval: Any, g: Any) -> dict:
    bn = sp.nn.BatchNorm1d(c, **options)
    bn.to(np.dtype(np.float64))
    if options["affine"]:
        fill(sp, bn.weight.data, w)
        fill(sp, bn.bias.data, b)
    outs, means, variances, tracked = [], [], [], []
    grads = None
    for k, x in enumerate(xs):
        xt = tensor(sp, x, requires_grad=True)
        try:
            out = bn(xt)
        except Exception as error:  # raised again where it was, a known mistake named
            if np.ndim(x) == 3 and any(w in str(error) for w in ("broadcast", "shape")):
                _add_hint(
                    error,
                    tr(
                        "an (N, C, L) batch: each channel's statistics run over N and L",
                        "(N, C, L) 形状的批量：每个通道的统计量在 N 和 L 上计算",
                    ),
                )
            raise
        outs.append(tensor_values(out))
        if options["track_running_stats"]:
            means.append(tensor_values(bn.running_mean))
            variances.append(tensor_values(bn.running_var))
            tracked.append(int(host(bn.num_batches_tracked)))
        if k == 0:
            grads = {"x": None, "w": None, "b": None}
            if getattr(out, "requires_grad", False):
                out.backward(tensor(sp, g))
                grads["x"] = tensor_values(xt.grad)
                if options["affine"]:
                    grads["w"], grads["b"] = (
                        tensor_values(bn.weight.grad),
                        tensor_values(bn.bias.grad),
                    )
    names = ("running_mean", "running_var", "num_batches_tracked")
    buffers = [getattr(bn, name) for name in names]
    flags = [bool(getattr(b, "requires_grad", False)) for b in buffers]
    before = [tensor_values(b) for b in buffers]
    bn.eval()
    try:
        eval_out = tensor_values(bn(tensor(sp, x_eval)))
    except Exception as error:  # raised again where it was, a known mistake named
        if not options["track_running_stats"] and "NoneType" in str(error):
            _add_hint(
                error,
                tr(
                    "track_running_stats=False keeps no running statistics (they are None): "
                    "eval() read them all the same",
                    "track_running_stats=False 时不保存滑动统计量（它们是 None）：eval() 却照样"
                    "读取了它们",
                ),
            )
        raise
    return {
        "buffers_require_grad": [n for n, f in zip(names, flags) if f],
        # the buffers' values before eval()'s forward and after it (the parent compares them)
        "eval_before": before,
        "eval_after": [tensor_values(getattr(bn, name)) for name in names],
        "outs": outs,
        "running_mean": means,
        "running_var": variances,
        "tracked": tracked,
        "eval_out": eval_out,
        "grads": grads,
    }


# -- 5.11 --------------------------------------------------------------------------------------


def loader(
    sp,
    n: int,
    batch_size: int,
    shuffle: bool,
    drop_last: bool,
    epochs: int,
    seed: int,
    generator: bool,
    dataset: str,
) -> dict:
    data = sp.utils.data

    class Items(data.Dataset):
        def __len__(self) -> int:
            return n

        def __getitem__(self, i: int) -> int:
            return int(i)

    if dataset == "tensors":
        ds = data.TensorDataset(
            sp.Tensor(np.arange(n * 2, dtype=np.float64).reshape(n, 2)),
            sp.Tensor(np.arange(n, dtype=np.int64)),
        )
    else:
        ds = Items()
    gen = sp.Generator().manual_seed(seed) if shuffle and generator else None
    sp.manual_seed(seed)
    dl = data.DataLoader(
        ds, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, generator=gen
    )
    sp.manual_seed(seed + 1 if generator else seed)  # a generator ignored: the global one
    out, rows = [], []  # each batch's items; a TensorDataset batch's X rows, for the parent
    for _ in range(epochs):
        batches, xs = [], []
        for batch in dl:
            parts = batch if dataset == "tensors" and isinstance(batch, (list, tuple)) else [batch]
            if not all(isinstance(b, sp.Tensor) for b in parts):
                what = f"a {type(batch).__name__}" + (
                    f" of {len(batch)} items" if isinstance(batch, (list, tuple)) else ""
                )
                return {"epochs": [], "rows": [], "not_collated": what}
            if dataset == "tensors":
                xb, yb = batch
                ids = [int(i) for i in host(yb).reshape(-1)]
                xs.append(np.array(host(xb)))
            else:
                ids = [int(i) for i in host(batch).reshape(-1)]
            batches.append(ids)
        out.append(batches)
        rows.append(xs)
    return {"epochs": out, "rows": rows, "not_collated": None}


# -- 5.12 --------------------------------------------------------------------------------------


def checkpoint(sp, kind: str, x: Any, ws: list, g: Any, noise_seed: int) -> dict:
    """fn's intermediates are watched with weak references: after the forward, the count
    still alive is what checkpoint kept (0: it kept only the inputs)."""
    watched: list = []

    def watch(t: Any) -> Any:
        watched.append(weakref.ref(t))
        data = getattr(t, "data", None)
        if isinstance(data, np.ndarray) or on_device(data):
            watched.append(weakref.ref(data))
        return t

    xt = tensor(sp, x, requires_grad=True)
    weights = [tensor(sp, w, requires_grad=True) for w in ws]
    const = tensor(sp, np.ones(np.shape(x)))
    layers = None
    if kind == "modules":
        parts = []
        for w in ws:
            lin = sp.nn.Linear(w.shape[0], w.shape[1], bias=False, dtype=np.float64)
            fill(sp, lin.weight.data, np.asarray(w).T)
            parts += [lin, sp.nn.Tanh()]
        layers = sp.nn.Sequential(*parts)

    def fn(h, *args):
        ws_ = list(args[: len(ws)]) if kind == "args" else weights
        if kind == "args":
            h = h * args[-1]
        if kind == "noise":
            h = watch(h * sp.rand(*h.shape, dtype=sp.float64))
        if kind == "modules":
            for layer in layers:
                h = layer(h)
                watch(h)
            return h
        for i, w in enumerate(ws_):
            h = (h @ w).tanh()
            if i < len(ws_) - 1:
                watch(h)
        return h

    h = xt * 2.0
    sp.manual_seed(noise_seed)
    args = (h, *weights, const) if kind == "args" else (h,)
    out = sp.utils.checkpoint.checkpoint(fn, *args)
    gc.collect()
    if kind == "modules":
        watched = watched[:-2]  # the last layer's output is the result itself
    alive = sum(1 for r in watched if r() is not None)
    value = tensor_values(out)
    sp.rand(2, dtype=sp.float64)  # the program draws between the forward and the backward
    out.backward(tensor(sp, g))
    grads = {"x": tensor_values(xt.grad)}
    if kind == "modules":
        linears = [m for m in layers if isinstance(m, sp.nn.Linear)]
        grads.update({f"W{i + 1}": _t(tensor_values(m.weight.grad)) for i, m in enumerate(linears)})
    else:
        grads.update({f"W{i + 1}": tensor_values(w.grad) for i, w in enumerate(weights)})
    if kind == "args":
        grads["c"] = tensor_values(const.grad)
    after = tensor_values(sp.rand(3, dtype=sp.float64))
    return {
        "out": value,
        "grads": grads,
        "alive": alive,
        "watched": len(watched),
        "after": after,
    }


def _t(a: Any) -> Any:
    return a.T if isinstance(a, np.ndarray) else a
