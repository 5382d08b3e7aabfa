"""``Value``: one number that remembers how it was computed, and can pass gradients back.

The API is micrograd's (``data``, ``grad``, ``_prev``, ``_op``, ``_backward``, ``backward()``),
so code written for micrograd runs unchanged. Each operation below shows its forward
computation, its local derivative and the math side by side:

    out = f(a, b)            forward: compute out.data, remember (a, b) in out._prev
    a.grad += ∂out/∂a · out.grad      backward: the chain rule, one local step
    b.grad += ∂out/∂b · out.grad

``+=`` and not ``=``: a Value used twice receives a gradient from each use (§8).
Tasks 1.2–1.6 are the operations, 1.8 is ``backward()``; 1.7 is in ``graph.py``. The helpers
that turn operands into Values, with their error messages, follow the class.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable

from .graph import topological_order


class Value:
    """A scalar in a computation graph.

    ``data``: the number. ``grad``: ∂(the output backward() was called on)/∂(this value),
    0 until backward() runs. ``_prev``: the Values this one was computed from (empty for a
    leaf). ``_op``: the operation's symbol, for printing and drawing. ``_backward``: the
    local chain-rule step, set by the operation that created this Value.
    """

    def __init__(self, data: float, _children: Iterable[Value] = (), _op: str = "") -> None:
        data = _number(data)
        children = tuple(dict.fromkeys(_children)) if _children else ()  # unique, in order
        for child in children:
            if not isinstance(child, Value):
                raise TypeError(
                    f"a Value's _children must be Values, got {type(child).__name__} {child!r}"
                )
        self.data = data
        self.grad = 0.0
        self._prev: tuple[Value, ...] = children
        self._op = _op
        self._backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"

    # -- task 1.2: addition ---------------------------------------------------------------

    def __add__(self, other: Value | float) -> Value:
        """Task 1.2 — sum.   out = a + b;   ∂out/∂a = 1,   ∂out/∂b = 1."""
        other = _as_value(other, "+")
        ### BEGIN SOLUTION 1.2
        out = Value(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    # -- task 1.3: multiplication ---------------------------------------------------------

    def __mul__(self, other: Value | float) -> Value:
        """Task 1.3 — product.   out = a·b;   ∂out/∂a = b,   ∂out/∂b = a."""
        other = _as_value(other, "*")
        ### BEGIN SOLUTION 1.3
        out = Value(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    # -- task 1.4: powers -----------------------------------------------------------------

    def __pow__(self, exponent: float) -> Value:
        """Task 1.4 — power with a number exponent.   out = aⁿ;   ∂out/∂a = n·aⁿ⁻¹.

        At a = 0 (§4): n·0ⁿ⁻¹ is 1 for n = 1 and 0 for n > 1; for n = 0 the derivative is 0
        (a⁰ = 1 is a constant), though the formula divides by zero there. For other n < 1 no
        number is right: 0ⁿ divides by zero for n < 0, the slope does for 0 < n < 1, and
        each raises ZeroDivisionError, as Python's ``0.0 ** -1`` does.
        """
        if isinstance(exponent, Value) or not isinstance(exponent, numbers.Real):
            raise TypeError(
                "Value ** takes a number exponent (int or float), got "
                f"{type(exponent).__name__}; a Value as exponent is not supported"
            )
        ### BEGIN SOLUTION 1.4
        out = Value(self.data**exponent, (self,), f"**{exponent}")

        def _backward() -> None:
            if exponent != 0:  # a⁰ = 1 is a constant: it adds nothing, even at a = 0
                self.grad += (exponent * self.data ** (exponent - 1)) * out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    # -- task 1.5: exp and log ------------------------------------------------------------

    def exp(self) -> Value:
        """Task 1.5 — exponential.   out = eᵃ;   ∂out/∂a = eᵃ = out."""
        ### BEGIN SOLUTION 1.5
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward() -> None:
            self.grad += out.data * out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    def log(self) -> Value:
        """Task 1.5 — natural logarithm.   out = ln a;   ∂out/∂a = 1/a."""
        if not self.data > 0:
            raise ValueError(f"log is defined for positive numbers only, got {self!r}")
        ### BEGIN SOLUTION 1.5
        out = Value(math.log(self.data), (self,), "log")

        def _backward() -> None:
            self.grad += (1 / self.data) * out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    # -- task 1.6: activation functions ---------------------------------------------------

    def tanh(self) -> Value:
        """Task 1.6 — hyperbolic tangent.   out = tanh a;   ∂out/∂a = 1 − tanh²a."""
        ### BEGIN SOLUTION 1.6
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    def sigmoid(self) -> Value:
        """Task 1.6 — logistic sigmoid.   out = σ(a) = 1/(1 + e⁻ᵃ);   ∂out/∂a = σ(a)(1 − σ(a)).

        Computed as eᵃ/(1 + eᵃ) when a < 0, so that e⁻ᵃ never overflows.
        """
        ### BEGIN SOLUTION 1.6
        x = self.data
        s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
        out = Value(s, (self,), "sigmoid")

        def _backward() -> None:
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    def relu(self) -> Value:
        """Task 1.6 — rectified linear unit.   out = max(0, a);   ∂out/∂a = 1 if a > 0 else 0."""
        ### BEGIN SOLUTION 1.6
        out = Value(0 if self.data < 0 else self.data, (self,), "ReLU")

        def _backward() -> None:
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out
        ### END SOLUTION

    # -- task 1.8: backpropagation --------------------------------------------------------

    def backward(self) -> None:
        """Task 1.8 — fill in ``grad`` of every Value this one was computed from.

        Seed ∂self/∂self = 1, then run each node's ``_backward`` in reverse topological
        order (task 1.7), so a node passes its gradient on only after every use of it has
        added its share.
        """
        if not isinstance(self, Value):
            raise TypeError(f"backward() needs a Value, got {type(self).__name__}")
        ### BEGIN SOLUTION 1.8
        self.grad = 1.0
        for node in reversed(topological_order(self)):
            node._backward()
        ### END SOLUTION

    # -- given: everything else is built from the tasks above ------------------------------

    def __neg__(self) -> Value:  # -a
        return self * -1

    def __radd__(self, other: float) -> Value:  # other + a
        return self + other

    def __sub__(self, other: Value | float) -> Value:  # a - b
        return self + (-_operand(other, "-"))

    def __rsub__(self, other: float) -> Value:  # other - a
        return _operand(other, "-") + (-self)

    def __rmul__(self, other: float) -> Value:  # other * a
        return self * other

    def __truediv__(self, other: Value | float) -> Value:  # a / b
        return self * _operand(other, "/") ** -1

    def __rtruediv__(self, other: float) -> Value:  # other / a
        return _operand(other, "/") * self**-1


def _operand(other: object, op: str) -> Value | int | float:
    """``other`` if it is a Value, as a plain number if it is a real number, else a clear
    TypeError. (Negating or inverting a plain number before it becomes a Value keeps the
    graph as small as micrograd's: ``a - 2`` is ``a + Value(-2)``.)"""
    if isinstance(other, Value):
        return other
    if isinstance(other, numbers.Real):
        return _number(other)
    raise TypeError(
        f"unsupported operand type for {op}: 'Value' and '{type(other).__name__}'; "
        "a Value combines with other Values and with real numbers (int or float)"
    )


def _as_value(other: object, op: str) -> Value:
    """``other`` as a Value: Values pass through, real numbers are wrapped as leaves."""
    other = _operand(other, op)
    return other if isinstance(other, Value) else Value(other)


def _number(data: object) -> int | float:
    """``data`` as a plain Python int or float (NumPy scalars included), or a clear error."""
    if type(data) is float or type(data) is int:
        return data
    if isinstance(data, numbers.Real):
        return int(data) if isinstance(data, numbers.Integral) else float(data)
    if isinstance(data, Value):
        hint = "; it already is a Value, use it as it is"
    elif hasattr(data, "shape"):
        hint = f" of shape {tuple(data.shape)}; a Value holds one number (tensors: chapter 2)"
    else:
        hint = ""
    raise TypeError(
        f"Value(data) takes a real number (int or float), got {type(data).__name__} {data!r}{hint}"
    )
