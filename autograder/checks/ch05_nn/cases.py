"""Chapter 5's cases and the parent's own expectations (public and hidden checks share them).

Nothing here imports the code under test or the reference: every expectation is computed
in the parent with NumPy from the case's own data, by the rules the notebook states
(PyTorch's). A model travels as a ``Tree`` (modules by index, each with its parameters,
buffers and children by name; a module or a tensor listed twice is shared), built in the
child with program-defined ``Module`` subclasses; the parent walks the same lists for the
names. Statistical expectations (initialisation, dropout rates) are bounds a correct
solution meets at every seed: six standard deviations of the estimate; values with those
moments that are not independent draws (a table, a grid, a pattern) fail tests whose
false-failure probabilities, stated with each, are below 10⁻¹⁰.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.language import LANGUAGES, Label, Text, say, tr

SIGMAS = 6.0  # a correct solution is outside six standard deviations with p < 2e-9


def _cat(*parts: Text) -> Label:
    """A label in both languages from its pieces (code, the same in both, or a ``Text``), for
    a builder that may run at import (``Rows.of``), before the language is chosen."""
    return Label({lang: "".join(say(part, lang) for part in parts) for lang in LANGUAGES})


def draw(rng: np.random.Generator, shape: tuple[int, ...] = (2, 3), scale: float = 1.0):
    """Random data with 3 decimals (not float32-exact)."""
    return (rng.uniform(-1.0, 1.0, shape) * scale).round(3)


# -- 5.1: registration scripts -----------------------------------------------------------------

# A script: steps [action, name]; action: "param" (a new Parameter), "module" (a new
# Module), "tensor" (a plain Tensor), "int" (the number 3), "none", "buffer"
# (register_buffer(name, Tensor), given code). The program runs them on one Module and
# returns, per step, the error's type name (None when it ran), and the tables at the end.
Script = list


@dataclass(frozen=True)
class Registered:
    errors: list  # per step: "TypeError" or None
    parameters: list[str]
    modules: list[str]
    buffers: list[str]
    plain: list[str]
    found: dict  # name -> the step whose object getattr(m, name) returns (-1: None)
    script: str


def simulate_registration(script: Script) -> Registered:
    """PyTorch's ``Module.__setattr__`` on plain lists."""
    tables: dict[str, dict[str, int]] = {"p": {}, "m": {}, "b": {}, "plain": {}}

    def forget(name: str, keep: str) -> None:
        for key, table in tables.items():
            if key != keep:
                table.pop(name, None)

    errors: list = []
    for step, (action, name) in enumerate(script):
        error = None
        if action == "param":
            forget(name, "p")
            tables["p"][name] = step
        elif action == "module" and name in tables["p"]:
            error = "TypeError"  # a parameter's name takes a Parameter or None only
        elif action == "module":
            forget(name, "m")
            tables["m"][name] = step
        elif action == "buffer":
            forget(name, "b")
            tables["b"][name] = step
        elif action == "none":
            for key in ("p", "m", "b"):
                if name in tables[key]:
                    tables[key][name] = -1
                    break
            else:
                tables["plain"][name] = -1
        elif name in tables["p"] or name in tables["m"]:
            error = "TypeError"
        elif name in tables["b"]:
            if action == "tensor":
                tables["b"][name] = step
            else:
                error = "TypeError"
        else:
            tables["plain"][name] = step
        errors.append(error)
    found = {n: s for table in tables.values() for n, s in table.items()}
    return Registered(
        errors,
        list(tables["p"]),
        list(tables["m"]),
        list(tables["b"]),
        list(tables["plain"]),
        found,
        script_text(script),
    )


WORDS = {
    "param": "Parameter(...)",
    "module": "Module()",
    "tensor": "Tensor(...)",
    "int": "3",
    "none": "None",
}


def script_text(script: Script) -> str:
    parts = []
    for action, name in script:
        if action == "buffer":
            parts.append(f"self.register_buffer({name!r}, Tensor(...))")
        else:
            parts.append(f"self.{name} = {WORDS[action]}")
    return "; ".join(parts)


def registration_case(script: Script, rng: np.random.Generator | None = None) -> Case:
    data = draw(rng, (2,)) if rng is not None else np.array([0.5, -0.25])
    expected = simulate_registration(script)
    return Case(expected.script, {"script": script, "data": data}, expected)


# -- trees of modules (5.3, 5.5) ---------------------------------------------------------------

# {"modules": [{"params": [[name, pid | None]], "buffers": [[name, bid | None, persistent]],
#   "children": [[name, index | None]]}], "shapes": {"p": [shape per pid], "b": [...]}}
# module 0 is the root; a pid or an index listed twice is a shared tensor or module.
Tree = dict


def tree(modules: list, p_shapes: list, b_shapes: list | None = None) -> Tree:
    return {"modules": modules, "p_shapes": p_shapes, "b_shapes": b_shapes or []}


def node(params=(), buffers=(), children=(), empty: bool = False) -> dict:
    """A module; ``empty``: its len() is 0, so it is falsy (as an empty container is)."""
    spec = {
        "params": [list(p) for p in params],
        "buffers": [list(b) for b in buffers],
        "children": [list(c) for c in children],
    }
    if empty:
        spec["empty"] = True
    return spec


def walk_modules(t: Tree, dedup: bool = True, prefix: str = "") -> list[tuple[str, int]]:
    """named_modules: (dotted path, module index), pre-order, a shared module once."""
    out: list[tuple[str, int]] = []
    seen: set[int] = set()

    def visit(index: int, path: str) -> None:
        if dedup:
            if index in seen:
                return
            seen.add(index)
        out.append((path, index))
        for name, child in t["modules"][index]["children"]:
            if child is not None:
                visit(child, f"{path}.{name}" if path else name)

    visit(0, prefix)
    return out


def walk_members(
    t: Tree, table: str, dedup: bool = True, recurse: bool = True, prefix: str = ""
) -> list[tuple[str, int]]:
    """named_parameters / named_buffers: (name, tensor id), module by module."""
    key = "params" if table == "p" else "buffers"
    modules = walk_modules(t, dedup, prefix) if recurse else [(prefix, 0)]
    out, seen = [], set()
    for path, index in modules:
        for entry in t["modules"][index][key]:
            name, tid = entry[0], entry[1]
            if tid is None:
                continue
            if dedup:
                if tid in seen:
                    continue
                seen.add(tid)
            out.append((f"{path}.{name}" if path else name, tid))
    return out


def state_keys(t: Tree) -> list[tuple[str, str, int]]:
    """state_dict: (key, "p" or "b", tensor id): own parameters, own persistent buffers,
    then each child's with "name." (a shared module or tensor under each of its names)."""
    out: list[tuple[str, str, int]] = []

    def visit(index: int, prefix: str) -> None:
        module = t["modules"][index]
        out.extend((prefix + n, "p", pid) for n, pid in module["params"] if pid is not None)
        out.extend(
            (prefix + n, "b", bid)
            for n, bid, persistent in module["buffers"]
            if bid is not None and persistent
        )
        for name, child in module["children"]:
            if child is not None:
                visit(child, prefix + name + ".")

    visit(0, "")
    return out


def model_tree() -> Tree:
    """Net(fc: Linear-like, blocks: [Linear-like, Linear-like]): fc.weight, blocks.0.bias …"""
    modules = [
        node(children=[("fc", 1), ("blocks", 2)]),
        node([("weight", 0), ("bias", 1)]),
        node(children=[("0", 3), ("1", 4)]),
        node([("weight", 2), ("bias", 3)]),
        node([("weight", 4), ("bias", 5)]),
    ]
    return tree(modules, [(3, 2), (3,), (4, 3), (4,), (2, 4), (2,)])


def shared_tree() -> Tree:
    """Net(a: X, b: X, c: Y): the module X reached twice."""
    modules = [
        node([("scale", 0)], children=[("a", 1), ("b", 1), ("c", 2)]),
        node([("weight", 1)]),
        node([("weight", 2)], children=[("inner", 3)]),
        node([("bias", 3)]),
    ]
    return tree(modules, [(1,), (2, 2), (3, 2), (3,)])


def tied_tree() -> Tree:
    """Net(enc, dec) whose dec.weight is enc.weight (one Parameter, tied)."""
    modules = [
        node(children=[("enc", 1), ("dec", 2)]),
        node([("weight", 0), ("bias", 1)]),
        node([("weight", 0), ("bias", 2)]),
    ]
    return tree(modules, [(4, 3), (4,), (4,)])


def deep_tree() -> Tree:
    """Four levels, buffers (one not persistent), a None parameter and a None child."""
    modules = [
        node([("w", 0)], [("count", 0, True)], [("body", 1), ("head", 3)]),
        node(
            [("w", 1), ("bias", None)],
            [("mean", 1, True), ("cache", 2, False)],
            [("inner", 2), ("gone", None)],
        ),
        node([("w", 2)], [("var", 3, True)]),
        node([("w", 3)], children=[("deeper", 4)]),
        node([("w", 4)], [("mean", 4, True)]),
    ]
    return tree(modules, [(2,), (3,), (2, 2), (1,), (3, 1)], [(), (3,), (3,), (2,), (3,)])


def container_tree() -> Tree:
    """Net(body: an empty container (falsy: len() is 0), head: Part(weight, inner))."""
    modules = [
        node(children=[("body", 1), ("head", 2)]),
        node(empty=True),
        node([("weight", 0)], children=[("inner", 3)]),
        node([("bias", 1)]),
    ]
    return tree(modules, [(2, 2), (2,)])


def random_tree(
    rng: np.random.Generator, size: int, share: bool = True, empty: bool = False
) -> Tree:
    """A drawn tree of ``size`` modules: each module's parent drawn among earlier ones,
    parameters and buffers drawn; with ``share``, one module and one parameter reused;
    with ``empty``, the modules without children falsy (len() is 0) half of the time, one
    at least."""
    modules = [node() for _ in range(size)]
    pid, bid, p_shapes, b_shapes = 0, 0, [], []
    for index in range(1, size):
        parent = int(rng.integers(0, index))
        modules[parent]["children"].append(
            [f"m{index}" if rng.random() < 0.5 else str(index), index]
        )
    for module in modules:
        for k in range(int(rng.integers(0, 3))):
            module["params"].append(["weight" if k == 0 else f"p{k}", pid])
            p_shapes.append((int(rng.integers(1, 4)), int(rng.integers(1, 4))))
            pid += 1
        if rng.random() < 0.4:
            module["buffers"].append(["running", bid, bool(rng.random() < 0.7)])
            b_shapes.append((int(rng.integers(1, 4)),))
            bid += 1
    if share and size > 3:
        host = int(rng.integers(0, size - 1))
        modules[host]["children"].append(["again", size - 1])
        if pid:
            modules[size - 1]["params"].append(["tied", int(rng.integers(0, pid))])
    if empty:
        leaves = [m for m in modules if not m["children"]]
        marked = rng.random(len(leaves)) < 0.5
        marked[int(rng.integers(0, len(leaves)))] = True  # at least one
        for module, falsy in zip(leaves, marked):
            if falsy:
                module["empty"] = True
    return tree(modules, p_shapes, b_shapes)


def tensors_of(t: Tree, rng: np.random.Generator) -> dict:
    return {
        "p": [np.asarray(draw(rng, tuple(s))) for s in t["p_shapes"]],
        "b": [np.asarray(draw(rng, tuple(s))) for s in t["b_shapes"]],
    }


@dataclass(frozen=True)
class ModulesExpected:
    names: list  # [[path, index]] named_modules()
    all_names: list  # named_modules(remove_duplicate=False)
    prefixed: list  # named_modules(prefix="model")


def named_modules_case(label: Text, make: Callable[[], Tree], rng: np.random.Generator) -> Case:
    t = make()
    expected = ModulesExpected(
        [list(x) for x in walk_modules(t)],
        [list(x) for x in walk_modules(t, dedup=False)],
        [list(x) for x in walk_modules(t, prefix="model")],
    )
    return Case(
        tr(f"named_modules() of {say(label)}", f"named_modules()：{say(label)}"),
        {"tree": t, "tensors": tensors_of(t, rng), "what": "modules"},
        expected,
    )


@dataclass(frozen=True)
class MembersExpected:
    parameters: list
    all_parameters: list  # remove_duplicate=False
    own: list  # recurse=False
    prefixed: list  # prefix="model"
    buffers: list
    own_prefixed: list  # prefix="model", recurse=False


def members_case(label: Text, make: Callable[[], Tree], rng: np.random.Generator) -> Case:
    t = make()
    expected = MembersExpected(
        [list(x) for x in walk_members(t, "p")],
        [list(x) for x in walk_members(t, "p", dedup=False)],
        [list(x) for x in walk_members(t, "p", recurse=False)],
        [list(x) for x in walk_members(t, "p", prefix="model")],
        [list(x) for x in walk_members(t, "b")],
        [list(x) for x in walk_members(t, "p", recurse=False, prefix="model")],
    )
    label = tr(
        f"named_parameters() and named_buffers() of {say(label)}",
        f"named_parameters() 与 named_buffers()：{say(label)}",
    )
    return Case(label, {"tree": t, "tensors": tensors_of(t, rng), "what": "members"}, expected)


@dataclass(frozen=True)
class TrainExpected:
    paths: list[str]  # each module's first path (index order), for messages
    sub: int  # the module whose own eval() the script calls last
    below: list[int]  # the modules at or below ``sub``


def train_case(
    label: Text, make: Callable[[], Tree], rng: np.random.Generator, shown: bool = True
) -> Case:
    t = make()
    paths = {}
    for path, index in walk_modules(t, dedup=False):
        paths.setdefault(index, path or "the model")
    sub = next((i for _, i in walk_modules(t) if i and t["modules"][i]["children"]), 1)
    below = sorted({i for _, i in _subtree(t, sub)})
    expected = TrainExpected([paths.get(i, "?") for i in range(len(t["modules"]))], sub, below)
    part = paths[sub] if shown else tr("a submodule", "<某个子模块>")
    label = tr(
        f"model.eval(), model.train(), then {part}.eval(), on {say(label)}",
        f"依次调用 model.eval()、model.train() 和 {part}.eval()，模型：{say(label)}",
    )
    return Case(
        label, {"tree": t, "tensors": tensors_of(t, rng), "what": "train", "sub": sub}, expected
    )


def _subtree(t: Tree, index: int) -> list[tuple[str, int]]:
    out, stack = [], [index]
    while stack:
        i = stack.pop()
        out.append(("", i))
        stack.extend(c for _, c in t["modules"][i]["children"] if c is not None)
    return out


# -- 5.5: state_dict ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StateExpected:
    keys: list  # [[key, "p"|"b", id]]
    values: list  # arrays, by key


def state_dict_case(label: Text, make: Callable[[], Tree], rng: np.random.Generator) -> Case:
    t = make()
    tensors = tensors_of(t, rng)
    keys = state_keys(t)
    values = [tensors[kind][tid] for _, kind, tid in keys]
    inputs = {"tree": t, "tensors": tensors, "what": "state_dict"}
    label = tr(f"state_dict() of {say(label)}", f"state_dict()：{say(label)}")
    return Case(label, inputs, StateExpected([list(k) for k in keys], values))


@dataclass(frozen=True)
class LoadExpected:
    keys: list  # the model's keys [[key, kind, id]]
    after: dict  # kind -> list of arrays after the call
    error: list[str] | None  # a RuntimeError naming these, or None
    returned: list | None  # [missing, unexpected] when it returns
    what: str
    dtype: str = "float64"  # the model's (the source is float64)


def load_case(
    label: Text,
    make: Callable[[], Tree],
    rng: np.random.Generator,
    drop: int = 0,
    extra: int = 0,
    reshape: int = 0,
    strict: bool = True,
    dtype: str = "float64",
) -> Case:
    """load_state_dict of new values for the model's keys, less the first ``drop`` keys,
    plus ``extra`` unexpected ones, ``reshape`` keys with a wrong shape; the model's tensors
    of ``dtype``, the source's float64."""
    t = make()
    tensors = tensors_of(t, rng)
    keys = state_keys(t)
    new = {"p": [None] * len(tensors["p"]), "b": [None] * len(tensors["b"])}
    source: list = []
    for i, (key, kind, tid) in enumerate(keys):
        value = np.asarray(draw(rng, np.shape(tensors[kind][tid]), 3.0))
        if i < drop:
            continue
        if reshape and len(keys) - i <= reshape:
            value = draw(rng, (*np.shape(tensors[kind][tid]), 2))
        source.append([key, value])
        new[kind][tid] = value
    missing = [k for k, _, _ in keys[:drop]]
    unexpected = [f"extra.{i}.weight" for i in range(extra)]
    source += [[k, draw(rng, (2,))] for k in unexpected]
    wrong = [k for k, _, _ in keys[len(keys) - reshape :]] if reshape else []
    naming = wrong + (missing + unexpected if strict else [])
    if naming:
        after, returned = tensors, None
    else:
        after = {
            kind: [n if n is not None else old for n, old in zip(new[kind], tensors[kind])]
            for kind in ("p", "b")
        }
        returned = [missing, unexpected]
    parts = []
    if drop:
        parts.append(tr(f"{drop} key(s) missing", f"缺少 {drop} 个键"))
    if extra:
        parts.append(tr(f"{extra} unexpected key(s)", f"{extra} 个意外的键"))
    if reshape:
        parts.append(tr(f"{reshape} of another shape", f"{reshape} 个键形状不同"))
    what = tr(", ", "，").join(parts) or tr("every key, new values", "所有键，新的值")
    text = tr(
        f"load_state_dict({'' if strict else 'strict=False, '}{what}) into {say(label)}",
        f"load_state_dict({'' if strict else 'strict=False, '}{what})，模型：{say(label)}",
    )
    if dtype != "float64":
        text += tr(
            f", the model {dtype}, the source float64", f"，模型为 {dtype}，源数据为 float64"
        )
    inputs = {"tree": t, "tensors": tensors, "what": "load", "source": source, "strict": strict}
    if dtype != "float64":
        inputs["dtype"] = dtype
    expected = LoadExpected([list(k) for k in keys], after, naming or None, returned, what, dtype)
    return Case(text, inputs, expected)


# -- 5.2: Linear -------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitExpected:
    """Samples of U(-bound, bound) (uniform) or N(0, std²), by statistics."""

    shape: tuple
    kind: str  # "uniform" or "normal"
    scale: float  # the bound, or the std
    what: str
    bias_shape: tuple | None = None


def linear_init_case(n_in: int, n_out: int, bias: bool = True, seed: int = 0) -> Case:
    k = 1 / math.sqrt(n_in)
    extra = "" if bias else ", bias=False"
    label = Label(
        {
            "en": f"Linear({n_in}, {n_out}{extra}): weight and bias U(-k, k), k = 1/√{n_in}",
            "zh": f"Linear({n_in}, {n_out}{extra})：weight 和 bias 服从 U(-k, k)，k = 1/√{n_in}",
        }
    )
    expected = InitExpected((n_out, n_in), "uniform", k, "Linear", (n_out,) if bias else None)
    return Case(label, {"n_in": n_in, "n_out": n_out, "bias": bias, "seed": seed}, expected)


@dataclass(frozen=True)
class LinearExpected:
    y: np.ndarray
    x_grad: np.ndarray | None  # None: the input does not require grad
    w_grad: np.ndarray | None
    b_grad: np.ndarray | None
    second: tuple | None = None  # (∂S/∂x, ∂S/∂W, ∂S/∂b) of the second-order program


def linear_forward_case(
    rng: np.random.Generator,
    x_shape: tuple,
    n_out: int,
    bias: bool = True,
    needs: tuple = (True, True, True),
    second: bool = False,
) -> Case:
    """Linear on x of ``x_shape`` with W, b drawn, then ``y.backward(g)``; ``needs``: which
    of x, W, b require grad. With ``second``: gx, gW = grad(½‖y‖², [x, W], create_graph=True),
    then S = Σ h·gx + Σ k·gW backward, whose gradients the parent has in closed form:
    gx = yW and gW = yᵀx, so ∂S/∂y = hWᵀ + xkᵀ, ∂S/∂x = (∂S/∂y)W + yk,
    ∂S/∂W = (∂S/∂y)ᵀx + yᵀh, ∂S/∂b = Σₙ ∂S/∂y."""
    n_in = x_shape[-1]
    x, w = draw(rng, x_shape), draw(rng, (n_out, n_in))
    b = draw(rng, (n_out,)) if bias else None
    y = x @ w.T + (b if bias else 0)
    g = draw(rng, y.shape)
    g2, x2 = g.reshape(-1, n_out), x.reshape(-1, n_in)
    needs = tuple(needs[:3] if bias else needs[:2])
    grads = (g @ w, g2.T @ x2, g2.sum(axis=0) if bias else None)
    padded = needs + (False,) * (3 - len(needs))
    x_grad, w_grad, b_grad = (grad if need else None for grad, need in zip(grads, padded))
    h = k = None
    second_grads = None
    label = tr(
        f"Linear({n_in}, {n_out}{'' if bias else ', bias=False'}) on x of shape {x_shape}",
        f"Linear({n_in}, {n_out}{'' if bias else ', bias=False'})，x 的形状为 {x_shape}",
    )
    if second:
        h, k = draw(rng, x.shape), draw(rng, w.shape)
        y2 = y.reshape(-1, n_out)
        dy = h.reshape(-1, n_in) @ w.T + x2 @ k.T
        sx = (dy @ w + y2 @ k).reshape(x.shape)
        sw = dy.T @ x2 + y2.T @ h.reshape(-1, n_in)
        second_grads = (sx, sw, dy.sum(axis=0) if bias else None)
        label += tr(
            ": gx, gW = grad(½‖y‖², [x, weight], create_graph=True), then "
            "(h·gx + k·gW).sum().backward()",
            "：gx, gW = grad(½‖y‖², [x, weight], create_graph=True)，然后 "
            "(h·gx + k·gW).sum().backward()",
        )
    else:
        off = [name for name, need in zip(("x", "weight", "bias"), needs) if not need]
        if off:
            label += tr(
                f" ({', '.join(off)} not requiring grad)", f"（{', '.join(off)} 不需要梯度）"
            )
        label += tr(", then y.backward(g)", "，然后 y.backward(g)")
    expected = LinearExpected(y, x_grad, w_grad, b_grad, second_grads)
    inputs = {"x": x, "w": w, "b": b, "g": g, "needs": list(needs), "h": h, "k": k}
    return Case(label, inputs, expected)


# -- 5.4: containers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ContainerExpected:
    names: list[str]
    order: list[int]  # the modules' creation numbers, in registered order
    calls: list[int] | None  # Sequential: the order the modules ran
    y: np.ndarray | None
    chained: bool  # append returned the container itself


def container_case(
    rng: np.random.Generator, kind: str, n: int, appended: int = 0, picks: list | None = None
) -> Case:
    """``kind``: "sequential" (Sequential(m0, …) then .append, run on x), "list"
    (ModuleList([m0, …]) then append one by one), "list_append" (ModuleList() then
    append each, chained). With ``picks``, the container holds the modules m[i] for i in
    picks (its first ``n`` given, the rest appended): a module picked twice is held twice."""
    total = n + appended
    picks = list(range(total)) if picks is None else list(picks)
    scales = [float(s) for s in draw(rng, (max(picks, default=-1) + 1,), 2.0)]
    x = draw(rng, (3,))
    y = x.copy()
    for i in picks:
        y = y * scales[i] + 1.0
    names = [str(i) for i in range(total)]
    calls = picks if kind == "sequential" else None
    expected = ContainerExpected(
        names, picks, calls, y if kind == "sequential" else None, kind == "list_append"
    )
    text = {
        "sequential": tr(
            f"Sequential of {n} modules (x·s + 1 each)",
            f"包含 {n} 个模块的 Sequential（每个模块计算 x·s + 1）",
        ),
        "list": tr(f"ModuleList of {n} modules", f"包含 {n} 个模块的 ModuleList"),
        "list_append": tr("ModuleList(), then .append(m) for each of", "ModuleList()，然后对"),
    }[kind]
    if kind == "list_append":
        text += tr(
            f" {total} modules, chained (ml.append(a).append(b))",
            f" {total} 个模块逐个 .append(m)，链式调用（ml.append(a).append(b)）",
        )
    elif appended:
        text += tr(f", then .append({appended} more)", f"，然后再 .append {appended} 个")
    if picks != list(range(total)):
        text += tr(
            f", the modules {picks} (one module held twice)",
            f"，模块依次为 {picks}（有一个模块被持有两次）",
        )
    if kind == "sequential":
        text += tr(", called on x", "，在 x 上调用")
    inputs = {"kind": kind, "scales": scales, "n": n, "x": x, "picks": picks}
    return Case(text, inputs, expected)


# -- 5.6: softmax and log_softmax --------------------------------------------------------------


def np_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def np_log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    s = x - x.max(axis=dim, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=dim, keepdims=True))


@dataclass(frozen=True)
class SoftmaxExpected:
    out: np.ndarray
    grad: np.ndarray
    function: str
    dtype: str
    text: str  # the input as the message prints it


def softmax_case(
    rng: np.random.Generator | None,
    function: str,
    shape: tuple = (3, 4),
    dim: int = -1,
    x: Any = None,
    dtype: str = "float64",
    scale: float = 3.0,
) -> Case:
    data = np.asarray(x, dtype=np.float64) if x is not None else draw(rng, shape, scale)
    d = dim % data.ndim
    g = (
        draw(rng, data.shape)
        if rng is not None
        else np.linspace(-1, 0.5, data.size).reshape(data.shape)
    )
    y = np_softmax(data, d)
    if function == "softmax":
        out, grad = y, y * (g - (g * y).sum(axis=d, keepdims=True))
    else:
        out, grad = np_log_softmax(data, d), g - y * g.sum(axis=d, keepdims=True)
    text = (
        np.array2string(data, separator=", ")
        if x is not None
        else tr(f"x of shape {data.shape}", f"形状为 {data.shape} 的 x")
    )
    if x is None and scale >= 1e3:
        text += tr(f" with entries up to ±{scale:g}", f"，元素最大到 ±{scale:g}")
    label = _cat(
        f"{function}({text}, dim={dim})" + ("" if dtype == "float64" else f", {dtype}"),
        {"en": ", then out.backward(g)", "zh": "，然后 out.backward(g)"},
    )
    inputs = {"function": function, "x": data, "dim": dim, "g": g, "dtype": dtype}
    return Case(label, inputs, SoftmaxExpected(out, grad, function, dtype, text))


# -- 5.7: cross_entropy ------------------------------------------------------------------------


def np_cross_entropy(
    z: np.ndarray, t: np.ndarray, ignore_index: int, smoothing: float, reduction: str, g: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Loss and ∂/∂z of ``(loss * g).sum()`` for rows z (M, C), t (M,)."""
    m, c = z.shape
    log_p = np_log_softmax(z, 1)
    keep = t != ignore_index
    tt = np.where(keep, t, 0)
    nll = -log_p[np.arange(m), tt]
    loss = (1 - smoothing) * nll - smoothing * log_p.mean(axis=1)
    loss = np.where(keep, loss, 0.0)
    q = np.full((m, c), smoothing / c)
    q[np.arange(m), tt] += 1 - smoothing
    grad = (np.exp(log_p) - q) * keep[:, None]
    count = int(keep.sum())
    if reduction == "none":
        return loss, grad * np.asarray(g).reshape(m, 1)
    if reduction == "sum":
        return np.asarray(loss.sum()), grad * g
    value = loss.sum() / count if count else np.nan
    return np.asarray(value), grad * g / max(count, 1)


@dataclass(frozen=True)
class CrossEntropyExpected:
    loss: np.ndarray
    grad: np.ndarray
    all_rows: np.ndarray | None  # the mean over every row (ignored ones as 0)
    reduction: str
    smoothing: float
    dtype: str = "float64"  # the logits'


def cross_entropy_case(
    rng: np.random.Generator,
    n: int = 5,
    c: int = 4,
    reduction: str = "mean",
    ignore: int = 0,
    ignore_index: int = -100,
    smoothing: float = 0.0,
    scale: float = 3.0,
    extra: tuple = (),
    single: bool = False,
    dtype: str = "float64",
) -> Case:
    """Logits (n, c, *extra) (or (c,) with ``single``) of ``dtype``, targets drawn,
    ``ignore`` of them set to ignore_index."""
    shape = (c,) if single else (n, c, *extra)
    z = draw(rng, shape, scale)
    if scale >= 1e3:
        z = np.sign(z) * scale * (np.abs(z) > 0.5) + z * 1e-3  # entries near ±scale
    z = z.astype(dtype).astype(np.float64)  # the values the child's logits hold
    t_shape = () if single else (n, *extra)
    t = rng.integers(0, c, t_shape).astype(np.int64)
    flat = t.reshape(-1)
    if ignore:
        flat[rng.permutation(flat.size)[:ignore]] = ignore_index
    rows = z.reshape(1, c) if single else np.moveaxis(z, 1, -1).reshape(-1, c)
    g = draw(rng, t_shape) if reduction == "none" else 0.5 + float(rng.integers(1, 4))
    loss, grad_rows = np_cross_entropy(
        rows,
        flat,
        ignore_index,
        smoothing,
        reduction,
        np.asarray(g).reshape(-1) if reduction == "none" else g,
    )
    if reduction == "none":
        loss = loss.reshape(t_shape)
    grad = grad_rows.reshape(c) if single else np.moveaxis(grad_rows.reshape(n, *extra, c), -1, 1)
    all_rows = None
    if reduction == "mean" and ignore:
        total, _ = np_cross_entropy(rows, flat, ignore_index, smoothing, "sum", 1.0)
        all_rows = np.asarray(total / rows.shape[0])
    options = [f"reduction={reduction!r}"]
    if ignore_index != -100 or ignore:
        ignored = tr(f" ({ignore} ignored)", f"（忽略 {ignore} 个）") if ignore else ""
        options.append(f"ignore_index={ignore_index}" + ignored)
    if smoothing:
        options.append(f"label_smoothing={smoothing}")
    where = tr(f"logits of shape {shape}", f"形状为 {shape} 的 logits") + (
        tr(f", entries near ±{scale:g}", f"，元素接近 ±{scale:g}") if scale >= 1e3 else ""
    )
    if dtype != "float64":
        where += f", {dtype}"
    label = tr(
        f"cross_entropy({where}, {', '.join(options)}), then backward",
        f"cross_entropy({where}, {', '.join(options)})，然后反向传播",
    )
    inputs = {
        "z": z,
        "t": t,
        "ignore_index": ignore_index,
        "smoothing": smoothing,
        "reduction": reduction,
        "g": g,
    }
    if dtype != "float64":
        inputs["dtype"] = dtype
    expected = CrossEntropyExpected(loss, grad, all_rows, reduction, smoothing, dtype)
    return Case(label, inputs, expected)


# -- 5.8: init ---------------------------------------------------------------------------------

GAINS = {"linear": 1.0, "sigmoid": 1.0, "tanh": 5 / 3, "relu": math.sqrt(2.0)}


def gain_of(nonlinearity: str, a: float) -> float:
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + a * a))
    return GAINS[nonlinearity]


def init_case(function: str, shape: tuple, seed: int, **options: Any) -> Case:
    receptive = math.prod(shape[2:])
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    if function.startswith("xavier"):
        std = options.get("gain", 1.0) * math.sqrt(2.0 / (fan_in + fan_out))
    else:
        fan = fan_in if options.get("mode", "fan_in") == "fan_in" else fan_out
        std = gain_of(options.get("nonlinearity", "leaky_relu"), options.get("a", 0.0))
        std /= math.sqrt(fan)
    kind = "uniform" if function.endswith("uniform_") else "normal"
    scale = math.sqrt(3.0) * std if kind == "uniform" else std
    args = "".join(f", {k}={v!r}" for k, v in options.items())
    label = Label(
        {
            "en": f"init.{function}(w{args}) for w of shape {shape} (fan_in {fan_in}, fan_out "
            f"{fan_out})",
            "zh": f"对形状为 {shape} 的 w 调用 init.{function}(w{args})（fan_in {fan_in}，fan_out "
            f"{fan_out}）",
        }
    )
    inputs = {"function": function, "shape": shape, "options": options, "seed": seed}
    return Case(label, inputs, InitExpected(shape, kind, scale, function))


def sample_problem(values: Any, kind: str, scale: float, what: Text) -> str | None:
    """Whether ``values`` look like samples of U(-scale, scale) or N(0, scale²): mean,
    variance (and the uniform's bounds, the normal's tails) within six standard
    deviations of their estimates."""
    what = say(what)
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    n = x.size
    if not np.isfinite(x).all():
        return tr(f"{what} holds non-finite values", f"{what} 含有非有限值")
    if n and not x.any():
        return tr(f"{what} is all zeros", f"{what} 全为零")
    var = scale**2 / 3 if kind == "uniform" else scale**2
    target = f"U(-{scale:.6g}, {scale:.6g})" if kind == "uniform" else f"N(0, {scale:.6g}²)"
    if kind == "uniform" and np.abs(x).max() > scale * (1 + 1e-6):
        return tr(
            f"{what} has a value {show_float(np.abs(x).max())} outside ±{scale:.6g}: expected "
            f"samples of {target}",
            f"{what} 有一个值 {show_float(np.abs(x).max())} 超出了 ±{scale:.6g}：期望是 "
            f"{target} 的样本",
        )
    if abs(x.mean()) > SIGMAS * math.sqrt(var / n):
        return tr(
            f"{what}'s mean is {x.mean():.4g}: expected samples of {target} (mean 0)",
            f"{what} 的均值是 {x.mean():.4g}：期望是 {target} 的样本（均值为 0）",
        )
    # the sample's E[x²] has relative std √(2/n) (normal) or √(4/5)/√n (uniform)
    rel = math.sqrt(2.0 / n) if kind == "normal" else math.sqrt(0.8 / n)
    second = float(np.mean(x * x))
    if abs(second / var - 1) > SIGMAS * rel:
        ratio = math.sqrt(second / var)
        return tr(
            f"{what}'s standard deviation is {math.sqrt(second):.4g}, {ratio:.3g} times the "
            f"{math.sqrt(var):.4g} of {target}",
            f"{what} 的标准差是 {math.sqrt(second):.4g}，是 {target} 的标准差 "
            f"{math.sqrt(var):.4g} 的 {ratio:.3g} 倍",
        )
    if n >= 4000:
        kurtosis = float(np.mean(x**4)) / second**2
        want, spread = (1.8, 0.3) if kind == "uniform" else (3.0, SIGMAS * math.sqrt(24 / n) + 0.1)
        if abs(kurtosis - want) > spread:
            other = tr("normal", "正态分布") if kind == "uniform" else tr("uniform", "均匀分布")
            return tr(
                f"{what} looks {other}, not {target} (kurtosis {kurtosis:.3g}, expected {want})",
                f"{what} 看起来服从{other}，而不是 {target}（峰度 {kurtosis:.3g}，期望 {want}）",
            )
    return None


# Bounds of the pattern tests, each failed by honest NumPy draws with a negligible chance:
DISTINCT = 0.9  # the share of distinct magnitudes below which values repeat
SPACING = 30.0  # P(n draws' closest pair is over 30/(n(n-1)) apart) ≤ e^-30 ≈ 9e-14
PATTERN_SIGMAS = 7.0  # a correlation of independent draws is outside 7σ with p ≈ 3e-12
NEIGHBOURS = 1000  # the fewest elements whose correlations are judged (the normal limit)


def repeats_problem(values: Any, what: Text) -> str | None:
    """Whether ``values`` repeat: fewer than 90% of them distinct, as a table tiled or a row
    broadcast gives. It needs no scale, so it comes before the moments (whose estimates
    such values throw off by chance). Two float64 draws of U(-b, b) or N(0, σ²) are equal
    with probability below 2⁻⁵¹, so n draws hold n²·2⁻⁵² < 10⁻⁶ equal pairs at these sizes
    (n ≤ 4·10⁴): one in ten never. (Draws of float32 resolution, 2²⁴ values, hold about
    n²/2²⁵ < 50 of n ≥ 10⁴: they pass too.)"""
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.isfinite(flat).all() or not flat.any():
        return None  # non-finite values and zeros: ``sample_problem`` names them
    n, distinct, what = flat.size, np.unique(flat).size, say(what)
    if n > 1 and distinct < DISTINCT * n:
        return tr(
            f"{what} repeats its values: only {distinct} of its {n} values are distinct, where "
            "independent draws from a continuous distribution (almost) never repeat: draw one "
            "number per element from the generator, not a table or a row reused",
            f"{what} 的值有重复：它的 {n} 个值中只有 {distinct} 个互不相同，而从连续分布中独立"
            "抽取的值（几乎）不会重复：应从生成器为每个元素抽取一个数，而不是重复使用一张表或一行",
        )
    return None


def pattern_problem(values: Any, kind: str, scale: float, what: Text) -> str | None:
    """Whether ``values``, with the right moments (``sample_problem``: judged first, since
    the grid test reads the scale), are independent draws of U(-scale, scale) or
    N(0, scale²) and not a grid or a pattern with those moments. Three tests, each failed
    by an honest NumPy draw with a negligible probability:

    - a grid: sorted and mapped through the distribution's CDF, n independent draws are
      n uniform points, whose n − 1 gaps all exceed t with probability (1 − (n − 1)t)ⁿ; at
      t = 30/(n(n − 1)) that is (1 − 30/n)ⁿ < e⁻³⁰ ≈ 9·10⁻¹⁴. A shuffled linspace has every
      gap 1/(n − 1), over n/30 times that bound (n ≥ 100).
    - mirrored: fewer than 90% of the magnitudes |x| distinct, as antithetic pairs ±h
      give (values and their negatives). As for ``repeats_problem``: two draws have equal
      magnitudes with probability below 2⁻⁵⁰, so n²·2⁻⁵¹ < 10⁻⁶ equal pairs.
    - neighbours (n ≥ 1000): ``neighbour_problem``.
    """
    x, what = np.asarray(values, dtype=np.float64), say(what)
    flat = x.reshape(-1)
    n = flat.size
    if n >= 100:
        u = np.sort(_cdf(flat, kind, scale))
        gap = float(np.diff(u).min())
        if gap > SPACING / (n * (n - 1)):
            return tr(
                f"{what} is a grid, not random draws: sorted, no two of its {n} values are "
                f"closer than {gap:.3g} of the distribution's mass, where n independent draws "
                f"have a closest pair about 1/n² = {1 / n**2:.2g} apart: draw them from the "
                "generator (uniform_, normal_), not a shuffled linspace",
                f"{what} 是一个网格，而不是随机抽样：排序后，它的 {n} 个值中任意两个相距都超过"
                f"分布质量的 {gap:.3g}，而 n 个独立抽样中最近的一对约相距 1/n² = "
                f"{1 / n**2:.2g}：应从生成器抽样（uniform_、normal_），而不是用打乱的 linspace",
            )
    distinct = np.unique(np.abs(flat)).size
    if n > 1 and distinct < DISTINCT * n:
        return tr(
            f"{what} holds values and their negatives: only {distinct} of its {n} magnitudes "
            "|x| are distinct, and pairs ±h are not independent draws: draw one number per "
            "element from the generator",
            f"{what} 同时含有一些值和它们的相反数：它的 {n} 个绝对值 |x| 中只有 {distinct} 个"
            "互不相同，而成对的 ±h 不是独立抽样：应从生成器为每个元素抽取一个数",
        )
    found = neighbour_problem(x)
    if found:
        return tr(
            f"{what}'s values are not independent: {found}: draw each element on its own "
            "(one call to the generator for the whole shape)",
            f"{what} 的值不是独立的：{found}：应让每个元素独立抽取（对整个形状调用一次生成器）",
        )
    return None


def _cdf(x: np.ndarray, kind: str, scale: float) -> np.ndarray:
    """The distribution's CDF at ``x``: U(-scale, scale)'s or N(0, scale²)'s."""
    if kind == "uniform":
        return (x + scale) / (2 * scale)
    erf = np.frompyfunc(math.erf, 1, 1)
    return 0.5 * (1 + erf(x / (scale * math.sqrt(2))).astype(np.float64))


def neighbour_problem(x: np.ndarray) -> str | None:
    """The larger correlation of elements next to each other (flat order) and of elements
    one row apart (the last axis's length, for two axes or more), where it is outside 7/√n
    of 0; None for fewer than 1000 elements or a constant array. For independent draws
    (values, or dropout's 0/1 keep indicators) each is ≈ N(0, 1/n), outside 7σ with
    probability 2.6·10⁻¹² in the normal limit. Its sum of neighbours' products is
    1-dependent. For symmetric values (init) the skewness is 0 and the fourth cumulant's
    correction is under 4× at n ≥ 1000: below 10⁻¹¹ each. For 0/1 indicators kept with
    rate q the skewness γ² = (1 − 2q)²/(q(1 − q)) raises one tail by at most
    1 + γ²·7·48/(6√n) (Edgeworth) and lowers the other: with q in [0.1, 0.9] (dropout judges
    p from 0.1 to 0.9 only) and n ≥ 1000, under 14×: below 4·10⁻¹¹ each."""
    flat = np.asarray(x, dtype=np.float64).reshape(-1)
    n = flat.size
    centred = flat - flat.mean()
    total = float(np.sum(centred * centred))
    if n < NEIGHBOURS or total == 0:
        return None
    bound = PATTERN_SIGMAS / math.sqrt(n)
    row = x.shape[-1] if x.ndim >= 2 else 0
    lags = [(1, tr("elements next to each other", "相邻元素"))]
    lags += (
        [(row, tr(f"elements one row ({row} elements) apart", f"相隔一行（{row} 个元素）的元素"))]
        if 1 < row < n
        else []
    )
    r, words = max(
        ((float(np.sum(centred[:-lag] * centred[lag:])) / total, words) for lag, words in lags),
        key=lambda found: abs(found[0]),
    )
    if abs(r) > bound:
        return tr(
            f"{words} have correlation {r:.3f} (independent draws: within ±{bound:.3f})",
            f"{words}的相关系数为 {r:.3f}（独立抽样应在 ±{bound:.3f} 以内）",
        )
    return None


def show_float(x: float) -> str:
    return f"{x:.6g}"


# -- 5.9: dropout ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DropoutExpected:
    x: np.ndarray
    p: float
    training: bool
    calls: int


def dropout_case(
    rng: np.random.Generator,
    shape: tuple,
    p: float,
    training: bool = True,
    calls: int = 1,
    dtype: str = "float64",
    generator: bool = True,
    module: bool = False,
) -> Case:
    x = draw(rng, shape) + 2.0  # no zeros: a dropped element is told by its 0
    seed = int(rng.integers(0, 2**31))
    where = "nn.Dropout" if module else "dropout"
    mode = tr("training", "训练模式") if training else tr("eval", "评估模式")
    label = tr(
        f"{where}(x, p={p}) in {mode}, x of shape {shape}",
        f"{mode}下的 {where}(x, p={p})，x 的形状为 {shape}",
    )
    if dtype != "float64":
        label += f", {dtype}"
    label += tr(f", called {calls} times", f"，调用 {calls} 次") if calls > 1 else ""
    label += tr(", generator given", "，传入 generator") if generator and not module else ""
    inputs = {
        "x": x,
        "p": p,
        "training": training,
        "calls": calls,
        "dtype": dtype,
        "seed": seed,
        "generator": generator,
        "module": module,
    }
    return Case(label, inputs, DropoutExpected(x, p, training, calls))


def masks_coincide(p: float, n: int) -> float:
    """The probability that two independent dropout masks of n elements are equal:
    (p² + (1 − p)²)ⁿ (1 for p = 0 or 1, where there is no mask)."""
    return (p * p + (1 - p) ** 2) ** n


# -- 5.10: BatchNorm1d -------------------------------------------------------------------------


DEFAULTS = {"eps": 1e-5, "momentum": 0.1, "affine": True, "track_running_stats": True}


@dataclass(frozen=True)
class BatchNormExpected:
    outs: list  # per training batch
    running_mean: list
    running_var: list
    tracked: list[int]
    eval_out: np.ndarray
    eval_with_batch_stats: np.ndarray
    x_grad: np.ndarray
    w_grad: np.ndarray
    b_grad: np.ndarray
    options: dict


def batchnorm_case(
    rng: np.random.Generator,
    c: int,
    n: int,
    length: int | None = None,
    batches: int = 2,
    momentum: float | None = 0.1,
    track: bool = True,
    affine: bool = True,
    eps: float = 1e-5,
) -> Case:
    shape = (n, c) if length is None else (n, c, length)
    axes = (0,) if length is None else (0, 2)
    view = (1, c) if length is None else (1, c, 1)
    xs = [draw(rng, shape, 2.0) + 1.0 for _ in range(batches)]
    x_eval = draw(rng, shape, 2.0) + 1.0
    w = draw(rng, (c,)) + 1.5 if affine else np.ones(c)
    b = draw(rng, (c,)) if affine else np.zeros(c)
    g = draw(rng, shape)
    count = math.prod(shape) // c
    rm, rv = np.zeros(c), np.ones(c)
    outs, means, variances, tracked = [], [], [], []

    def normalise(x: np.ndarray, mean: np.ndarray, var: np.ndarray) -> np.ndarray:
        return (x - mean.reshape(view)) / np.sqrt(var.reshape(view) + eps) * w.reshape(
            view
        ) + b.reshape(view)

    for k, x in enumerate(xs):
        mean, var = x.mean(axis=axes), x.var(axis=axes)
        outs.append(normalise(x, mean, var))
        if track:
            m = momentum if momentum is not None else 1.0 / (k + 1)
            rm = (1 - m) * rm + m * mean
            rv = (1 - m) * rv + m * var * count / (count - 1)
            means.append(rm.copy())
            variances.append(rv.copy())
            tracked.append(k + 1)
    batch_eval = normalise(x_eval, x_eval.mean(axis=axes), x_eval.var(axis=axes))
    eval_out = normalise(x_eval, rm, rv) if track else batch_eval
    # the first batch's gradients (training mode: through the batch statistics)
    x = xs[0]
    mean, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    xhat = (x - mean) / np.sqrt(var + eps)
    gh = g * w.reshape(view)
    x_grad = (
        gh - gh.mean(axis=axes, keepdims=True) - xhat * (gh * xhat).mean(axis=axes, keepdims=True)
    ) / np.sqrt(var + eps)
    w_grad, b_grad = (g * xhat).sum(axis=axes), g.sum(axis=axes)
    options = {"eps": eps, "momentum": momentum, "affine": affine, "track_running_stats": track}
    shown = [f"{k}={v}" for k, v in options.items() if v != DEFAULTS[k]]
    label = tr(
        f"BatchNorm1d({c}{''.join(', ' + s for s in shown)}): {batches} training batches"
        f" of shape {shape}, then eval()",
        f"BatchNorm1d({c}{''.join(', ' + s for s in shown)})：{batches} 个形状为 {shape} 的"
        "训练批量，然后 eval()",
    )
    inputs = {"c": c, "options": options, "w": w, "b": b, "xs": xs, "x_eval": x_eval, "g": g}
    expected = BatchNormExpected(
        outs, means, variances, tracked, eval_out, batch_eval, x_grad, w_grad, b_grad, options
    )
    return Case(label, inputs, expected)


# -- 5.11: DataLoader --------------------------------------------------------------------------


@dataclass(frozen=True)
class LoaderExpected:
    epochs: list  # per epoch, its batches as lists of item indices
    n: int
    drop_last: bool
    batch_size: int


def loader_case(
    rng: np.random.Generator | None,
    n: int,
    batch_size: int,
    shuffle: bool = False,
    drop_last: bool = False,
    epochs: int = 1,
    generator: bool = True,
    dataset: str = "items",
) -> Case:
    """Batches of ``dataset`` ("items": item i is the int i; "tensors": TensorDataset(X, y)
    with y = 0 … n−1) over ``epochs`` epochs; the order, when shuffled, is
    ``randperm(n, generator=g)`` for each epoch, g = Generator().manual_seed(seed) (or the
    global generator after manual_seed(seed))."""
    seed = int(rng.integers(0, 2**31)) if rng is not None else 7
    stream = np.random.default_rng(seed)
    expected = []
    for _ in range(epochs):
        order = stream.permutation(n).tolist() if shuffle else list(range(n))
        batches = [order[s : s + batch_size] for s in range(0, n, batch_size)]
        if drop_last and batches and len(batches[-1]) < batch_size:
            batches.pop()
        expected.append(batches)
    options: list[Text] = [f"batch_size={batch_size}"]
    if shuffle:
        options.append("shuffle=True")
        options.append(
            "generator=Generator().manual_seed(s)"
            if generator
            else {"en": "after manual_seed(s)", "zh": "在 manual_seed(s) 之后"}
        )
    if drop_last:
        options.append("drop_last=True")
    what = (
        "TensorDataset(X, y)"
        if dataset == "tensors"
        else {"en": "a dataset whose item i is i", "zh": "第 i 项为 i 的数据集"}
    )
    joined = {lang: ", ".join(say(o, lang) for o in options) for lang in LANGUAGES}
    label = _cat(
        "DataLoader(",
        what,
        {"en": f" of {n} items, ", "zh": f"，共 {n} 项，"},
        joined,
        ")",
        {"en": f", {epochs} epochs", "zh": f"，{epochs} 轮"} if epochs > 1 else "",
    )
    inputs = {
        "n": n,
        "batch_size": batch_size,
        "shuffle": shuffle,
        "drop_last": drop_last,
        "epochs": epochs,
        "seed": seed,
        "generator": generator,
        "dataset": dataset,
    }
    return Case(label, inputs, LoaderExpected(expected, n, drop_last, batch_size))


# -- 5.12: checkpoint --------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckpointExpected:
    out: np.ndarray
    grads: dict  # name -> array (None: no gradient)
    kind: str
    after: np.ndarray | None = None  # sp.rand(3) drawn after the backward


def _tanh_mlp(x: np.ndarray, ws: list, noise: np.ndarray | None) -> tuple[np.ndarray, list]:
    hs = [x if noise is None else x * noise]
    for w in ws:
        hs.append(np.tanh(hs[-1] @ w))
    return hs[-1], hs


def _tanh_mlp_backward(hs: list, ws: list, g: np.ndarray, noise: np.ndarray | None) -> tuple:
    w_grads = [None] * len(ws)
    for i in reversed(range(len(ws))):
        d = g * (1 - hs[i + 1] ** 2)
        w_grads[i] = hs[i].T @ d
        g = d @ ws[i].T
    return (g if noise is None else g * noise), w_grads


def checkpoint_case(
    rng: np.random.Generator, kind: str, n: int = 4, width: int = 5, depth: int = 3
) -> Case:
    """``kind``: "closure" (fn(h) = tanh(… tanh(h @ W1) … @ Wd), the W closed over,
    checkpointed on h = 2x), "args" (the W passed as arguments too, and a constant),
    "noise" (fn multiplies h by noise drawn inside it with sp.rand: replayed), "modules"
    (fn a Sequential of Linear(bias=False) and Tanh)."""
    x = draw(rng, (n, width))
    ws = [draw(rng, (width, width), 1.2) for _ in range(depth)]
    g = draw(rng, (n, width))
    noise_seed = int(rng.integers(0, 2**31))
    stream = np.random.default_rng(noise_seed)  # the global generator after manual_seed
    noise = stream.random((n, width)) if kind == "noise" else None
    stream.random(2)  # the program draws 2 numbers between the forward and the backward
    after = stream.random(3)  # and 3 after the backward
    h = 2 * x
    out, hs = _tanh_mlp(h, ws, noise)
    h_grad, w_grads = _tanh_mlp_backward(hs, ws, g, noise)
    grads = {"x": 2 * h_grad}
    grads.update({f"W{i + 1}": wg for i, wg in enumerate(w_grads)})
    if kind == "args":
        grads["c"] = None
    words = {
        "closure": tr(
            "fn(h) = tanh(…tanh(h @ W1)… @ W{d}), the W closed over",
            "fn(h) = tanh(…tanh(h @ W1)… @ W{d})，W 由闭包捕获",
        ),
        "args": tr(
            "fn(h, W1, …, W{d}, c), weights as arguments, c a constant",
            "fn(h, W1, …, W{d}, c)，权重作为参数传入，c 是常数",
        ),
        "noise": tr(
            "fn(h) = tanh(…tanh((h · sp.rand(h.shape)) @ W1)…): random numbers inside fn",
            "fn(h) = tanh(…tanh((h · sp.rand(h.shape)) @ W1)…)：fn 内部抽取随机数",
        ),
        "modules": tr(
            "fn = Sequential(Linear(bias=False), Tanh(), …) of depth {d}",
            "fn = Sequential(Linear(bias=False), Tanh(), …)，深度为 {d}",
        ),
    }[kind].format(d=depth)
    label = tr(
        f"out = checkpoint(fn, h) for h = 2x, x of shape {(n, width)}, {words}; out.backward(g)",
        f"out = checkpoint(fn, h)，其中 h = 2x，x 的形状为 {(n, width)}，{words}；out.backward(g)",
    )
    inputs = {"kind": kind, "x": x, "ws": ws, "g": g, "noise_seed": noise_seed}
    return Case(label, inputs, CheckpointExpected(out, grads, kind, after))
