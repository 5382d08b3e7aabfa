"""Chapter 1's hidden check programs (the others are the public ``programs.py``'s): the
only part of these checks that runs next to the code under test."""

from __future__ import annotations

from typing import Any, TypedDict


class MlpResult(TypedDict):
    """``mlp``'s observation: the loss, and every parameter's grad in ``mlp``'s order."""

    loss: Any
    grads: list


def _total(terms: list):
    """terms[0] + terms[1] + …, with the Value ``+`` only (no ``sum``, no ``__radd__``)."""
    acc = terms[0]
    for term in terms[1:]:
        acc = acc + term
    return acc


def mlp(sp, xs, labels, w1, b1, w2, b2, activation: str, decay: float) -> MlpResult:
    """A small MLP on Values, as the notebook's networks are written: hidden units
    act(Σ w·x + b), logits Σ w·h + b, the mean softmax cross-entropy over the samples plus
    ``decay`` · Σ w² over the weights; then ``loss.backward()``. Returns the loss and every
    parameter's grad (w1 row by row, b1, w2 row by row, b2)."""
    value = sp.Value
    w1 = [[value(w) for w in row] for row in w1]
    b1 = [value(b) for b in b1]
    w2 = [[value(w) for w in row] for row in w2]
    b2 = [value(b) for b in b2]
    losses = []
    for x, label in zip(xs, labels):
        hidden = []
        for j, b in enumerate(b1):
            z = _total([w1[i][j] * x[i] for i in range(len(x))] + [b])
            hidden.append(getattr(z, activation)())
        logits = [
            _total([w2[j][k] * h for j, h in enumerate(hidden)] + [b]) for k, b in enumerate(b2)
        ]
        log_total = _total([z.exp() for z in logits]).log()
        losses.append(log_total - logits[label])
    loss = _total(losses) / len(losses)
    weights = [w for rows in (w1, w2) for row in rows for w in row]
    loss = loss + decay * _total([w**2 for w in weights])
    loss.backward()
    params = [w for row in w1 for w in row] + b1 + [w for row in w2 for w in row] + b2
    return {"loss": loss.data, "grads": [p.grad for p in params]}
