"""Chapter 1 — scalar autograd: ``Value``, the chain rule, and backpropagation.

``from chapters import ch01_value as sp`` gives ``sp.Value``, ``sp.central_difference``,
``sp.topological_order`` and the tiny ``sp.nn`` (Neuron, Layer, MLP) of micrograd.
"""

from . import nn
from .graph import topological_order
from .numerical import central_difference
from .value import Value

__all__ = ["Value", "central_difference", "nn", "topological_order"]
