"""Chapter 4 — the stack-and-counter backward engine: ``loss.backward()`` for any graph.

``from chapters import ch04_backward as sp`` gives the framework as it stands (everything of
chapters 2 and 3) plus the engine. Chapter 2's doors now open: ``Tensor.backward`` calls
``backward`` below, ``sp.autograd.grad`` calls ``grad``, ``sp.autograd.functional`` is
``functional.py``, and ``no_grad`` & co. set chapter 2's grad mode. Files, in the order the
notebook teaches them:

    dependencies.py  count the contributions each vertex waits for   task 4.1
    engine.py        the ready stack and the counters (Kahn)         task 4.2
    accumulate.py    .grad as a running sum                          task 4.3
    seed.py          where backward starts: ∂out/∂out                 task 4.4
    api.py           Tensor.backward and autograd.grad (given)
    grad_mode.py     no_grad, enable_grad, set_grad_enabled          task 4.5
    functional.py    vjp, jvp, jacobian, hessian                     task 4.6
                     (hvp, vhp and strict= are given)
    checking.py      autograd.gradcheck, gradgradcheck               (given)
    trace.py         watching your engine: the trace table, memory  (given, §4, §7)
    newton.py        newton_step: x − H⁻¹∇f                          task 4.7 (v1.1)
    jit.py           jit.trace: trace once, run many (replay)         task 4.8 (v1.1)
"""

from .. import ch03_broadcast as _below
from ..ch03_broadcast import *  # noqa: F403  (the framework so far)
from . import checking as checking  # autograd.gradcheck's seam reaches it by name
from . import functional
from . import jit as jit
from .accumulate import accumulate
from .api import backward, grad
from .dependencies import count_dependencies, parents, vertex
from .engine import backward_pass, hooks_of, keep_grad
from .grad_mode import enable_grad, no_grad, set_grad_enabled
from .newton import newton_step
from .seed import seed

__all__ = [
    *_below.__all__,
    "accumulate",
    "backward",
    "backward_pass",
    "count_dependencies",
    "enable_grad",
    "functional",
    "grad",
    "hooks_of",
    "jit",
    "keep_grad",
    "newton_step",
    "no_grad",
    "parents",
    "seed",
    "set_grad_enabled",
    "vertex",
]
