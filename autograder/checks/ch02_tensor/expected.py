"""What chapter 2's verdicts require of a case, declared once: the ``expected`` of its cases
(parent-side, like the verdicts; the programs' observations are the TypedDicts of
``programs.py``). A requirement and an observation may share a word ("from the inputs"), never
a key."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["EngineExpected", "ErrorExpected", "OpExpected", "SecondOrderExpected"]


@dataclass(frozen=True)
class OpExpected:
    """What one case of ``programs.op`` requires: the output (a Tensor that requires grad,
    of ``dtype``) and each Tensor input's gradient, in the inputs' order."""

    out: np.ndarray
    grads: list[np.ndarray]
    dtype: str  # of the output and of every gradient
    names: list[str]  # of the Tensor inputs: a, b
    held: list[np.ndarray]  # what each input Tensor must hold, bit for bit
    needs_inputs: bool  # each local gradient must depend on the op's inputs in the graph
    broadcast: bool  # a local gradient may have a shape its input broadcasts to
    local_only: bool  # the local backward alone is judged (no Node.backward)


@dataclass(frozen=True)
class ErrorExpected:
    """An error case's requirement: an error whose message names each of ``naming``, of
    type ``type`` where given."""

    naming: list[str]
    type: str = ""
    why: str = ""  # why an error is due here: named where none was raised


@dataclass(frozen=True)
class SecondOrderExpected:
    """What reaches g (J·h) and each input (a second derivative) in ``programs.second_order``."""

    to_grad_output: np.ndarray
    to_inputs: list[np.ndarray]
    names: list[str]


@dataclass(frozen=True)
class EngineExpected:
    """Task 2.11: the gradients of the loss for w1 and w2."""

    grad_w1: np.ndarray
    grad_w2: np.ndarray
