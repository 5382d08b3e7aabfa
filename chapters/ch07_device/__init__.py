"""Chapter 7 — devices: a GPU through CuPy, a simulated device, and the whole course.

``from chapters import ch07_device as sp`` gives the framework as it stands (chapters 2–6)
plus devices: ``sp.device("cuda")``, ``sp.cuda.is_available()``, ``tensor.to("cuda")``,
``model.to(device)``, ``sp.set_default_device``, and ``sp.simulated`` (the simulated
device ``"sim"`` and its transfer counter). Files, in the order the notebook teaches them:

    simulated.py       SimArray, simnumpy, counting()  the simulated device     (given)
    backends.py        Backend, register_backend: cpu, cuda (CuPy) and sim;    (given)
                       sp.backends.mps.is_available() is False (no Apple GPU)
    cuda.py            is_available: the lazy, silent, cached probe            task 7.1
    dispatch.py        array_module, device_of: whose array is it?             task 7.2
    transfer.py        move_array: the one place data crosses                  task 7.3
    transfer.py        ToDevice: Tensor.to(device), and its gradient           task 7.4
    same_device.py     check_same_device: two devices in one operation         task 7.5
    dispatch.py        scatter_add on a device                                 task 7.6
    default_device.py  set_default_device                                      (given)
    ops/gather.py      gather, and its gradient: a scatter-add                 task 7.7
    ops/cat.py         cat and stack: the gradient is a split                  task 7.8
    ops/everyday.py    where, clamp, min/argmin, flatten, var/std              (given)
    ops/forms.py       sp.tanh(x), sp.sum(x, dim), …: PyTorch's module-level forms (given)
    accelerator.py     sp.accelerator: is_available, current_accelerator, …    (given)
"""

from .. import ch06_optim as _below
from ..ch06_optim import *  # noqa: F403  (the framework so far)
from . import accelerator, backends, cuda, ops, simulated
from .backends import Backend, register_backend
from .default_device import get_default_device, set_default_device

# chapter 2's seams reach these by name (see its seams.py); array_module and scatter_add
# replace chapter 2's, answering for every device's arrays
from .dispatch import array_module as array_module
from .dispatch import device_of as device_of
from .dispatch import erf as erf
from .dispatch import scatter_add as scatter_add
from .ops import *  # noqa: F403  (the everyday operations: ops/__init__.py lists them)
from .ops import one_hot as one_hot  # F.one_hot's seam (no torch.one_hot: not in __all__)
from .ops import repeat as repeat  # Tensor.repeat's seam (no torch.repeat)
from .ops import setitem as setitem  # x[index] = value's seam
from .same_device import check_same_device as check_same_device
from .transfer import move_array as move_array
from .transfer import to_device as to_device


def _numpy_names() -> None:
    """PyTorch's functions take NumPy's keyword names too (``torch.sum(x, axis=1,
    keepdims=True)``): each everyday operation with a ``dim`` or ``keepdim`` parameter is
    exported wrapped (``shapes.numpy_names``; the Tensor methods have it from their seam)."""
    import inspect

    from ..ch02_tensor.shapes import numpy_names

    for name in ops.__all__:
        function = globals()[name]
        if not inspect.isfunction(function) or name in ("split", "unique"):  # torch's refuse axis=
            continue
        parameters = inspect.signature(function).parameters
        if "dim" in parameters or "keepdim" in parameters:
            globals()[name] = numpy_names(function)


_numpy_names()

__all__ = [
    *_below.__all__,
    "Backend",
    "accelerator",
    "backends",
    "cuda",
    "device_of",
    "get_default_device",
    "register_backend",
    "set_default_device",
    "simulated",
    *ops.__all__,
]

# PyTorch's dtype names that are also Python's builtins: attributes of the package (for
# ``x.to(torch.float)``, ``dtype=torch.int``), kept out of ``__all__`` so that a star import
# never shadows float, int and bool
float, int, bool = float32, int32, bool_  # noqa: F405  (from the star import above)
