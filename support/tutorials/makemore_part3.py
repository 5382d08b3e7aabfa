"""Initialisation, batch normalisation and the statistics that show a network's health: the
territory of Karpathy's makemore, part 3.

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
lecture's order:

1. the loss at initialisation: what a uniform guess gives (``-log(1/27)``), and the read-out
   layer scaled down (``* 0.01``, bias ``* 0``) so the first loss is near it;
2. tanh saturation: the share of hidden units with ``h.abs() > 0.97``, and the first
   layer scaled as Kaiming et al. suggest for tanh, ``(5/3) / fan_in**0.5``;
3. batch normalisation written by hand: the pre-activations standardised with
   ``mean(0, keepdim=True)`` and ``std(0, keepdim=True)``, a learned gain and bias, and
   running statistics for inference updated under ``torch.no_grad()``, then used to
   evaluate the dev set;
4. the same network as layers written as classes that mirror ``torch.nn`` — ``Linear``,
   ``BatchNorm1d``, ``Tanh``, each with ``__call__`` and ``parameters()`` — six of them
   deep, each layer's output kept with ``retain_grad()``; during training, the update-to-data
   ratio of every weight, ``((lr * p.grad).std() / p.data.std()).log10()``; after it, each
   tanh layer's mean, ``.std()`` and saturation, and the gradients' statistics.

Adapted to run offline and in seconds: the course's 5,163 US-census first names
(``support.datasets.load_names``; the lecture has 32,033), narrower layers, a few hundred
steps. Shapes, the parameter counts, the uniform loss and a batch-norm forward and backward
on a fixed float64 input do not depend on the seed (``EXACT``); everything drawn does.

    python -m support.tutorials.makemore_part3
"""

import random

import torch

from support import datasets

nn = torch.nn
F = torch.nn.functional

BLOCK = 3
EMBED = 10
HIDDEN = 64
BATCH = 32
STEPS = 400  # for each of the two networks
LEARNING_RATE = 0.1

EXACT = {
    "train_rows",
    "dev_rows",
    "uniform_loss",
    "manual_parameters",
    "layers_parameters",
    "bn_fixed_out",
    "bn_fixed_grad_x",
    "bn_fixed_grad_gain",
}
IN_PLACE = None


def build_dataset(words, stoi):
    """(X, Y): each character with the BLOCK characters before it."""
    X, Y = [], []
    for w in words:
        context = [0] * BLOCK
        for ch in w + ".":
            X.append(context)
            Y.append(stoi[ch])
            context = [*context[1:], stoi[ch]]
    return torch.tensor(X), torch.tensor(Y)


def batchnorm(x, gain, bias, eps=1e-5):
    """The training-time batch norm: each column standardised over the batch, then scaled
    and shifted. Returns the result and the batch's mean and standard deviation."""
    mean = x.mean(0, keepdim=True)
    std = x.std(0, keepdim=True)
    return gain * (x - mean) / (std + eps) + bias, mean, std


# ---- layers written as classes, the way torch.nn's are used ----


class Linear:
    def __init__(self, fan_in, fan_out, g, bias=True):
        self.weight = torch.randn((fan_in, fan_out), generator=g) / fan_in**0.5
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out = self.out + self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        if self.training:
            xmean = x.mean(0, keepdim=True)
            xvar = x.var(0, keepdim=True)  # the unbiased variance, as torch.nn's
        else:
            xmean, xvar = self.running_mean, self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                m = self.momentum
                self.running_mean = (1 - m) * self.running_mean + m * xmean
                self.running_var = (1 - m) * self.running_var + m * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    words = datasets.load_names()
    letters = sorted(set("".join(words)))
    stoi = {ch: i + 1 for i, ch in enumerate(letters)}
    stoi["."] = 0
    random.Random(42).shuffle(words)
    n1 = int(0.9 * len(words))
    Xtr, Ytr = build_dataset(words[:n1], stoi)
    Xdev, Ydev = build_dataset(words[n1:], stoi)
    numbers = {"train_rows": float(Xtr.shape[0]), "dev_rows": float(Xdev.shape[0])}

    # 1. what the first loss should be: every character equally likely
    numbers["uniform_loss"] = -torch.tensor(1 / 27.0).log().item()

    # batch norm on a fixed input, forward and backward, in float64
    x = torch.linspace(-2.0, 3.0, 12, dtype=torch.float64).view(4, 3) ** 2
    x.requires_grad = True
    gain = torch.tensor([[1.0, 2.0, 0.5]], dtype=torch.float64, requires_grad=True)
    out, _, _ = batchnorm(x, gain, torch.zeros((1, 3), dtype=torch.float64))
    weights = torch.arange(12, dtype=torch.float64).view(4, 3)
    (out * weights).sum().backward()
    numbers["bn_fixed_out"] = out.abs().sum().item()
    numbers["bn_fixed_grad_x"] = x.grad.abs().sum().item()
    numbers["bn_fixed_grad_gain"] = gain.grad.sum().item()

    # 2.-3. the network by hand: scaled initialisation, batch norm with running statistics
    g = torch.Generator().manual_seed(2147483647 + seed)
    fan_in = BLOCK * EMBED
    C = torch.randn((27, EMBED), generator=g)
    W1 = torch.randn((fan_in, HIDDEN), generator=g) * (5 / 3) / fan_in**0.5
    b1 = torch.randn(HIDDEN, generator=g) * 0.01  # cancelled by the batch norm's mean
    W2 = torch.randn((HIDDEN, 27), generator=g) * 0.01
    b2 = torch.randn(27, generator=g) * 0
    bngain = torch.ones((1, HIDDEN))
    bnbias = torch.zeros((1, HIDDEN))
    bnmean_running = torch.zeros((1, HIDDEN))
    bnstd_running = torch.ones((1, HIDDEN))
    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    numbers["manual_parameters"] = float(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True

    for i in range(STEPS):
        ix = torch.randint(0, Xtr.shape[0], (BATCH,), generator=g)
        emb = C[Xtr[ix]]
        hpreact = emb.view(emb.shape[0], -1) @ W1 + b1
        hpreact, bnmeani, bnstdi = batchnorm(hpreact, bngain, bnbias)
        with torch.no_grad():
            bnmean_running = 0.99 * bnmean_running + 0.01 * bnmeani
            bnstd_running = 0.99 * bnstd_running + 0.01 * bnstdi
        h = torch.tanh(hpreact)
        loss = F.cross_entropy(h @ W2 + b2, Ytr[ix])
        if i == 0:
            numbers["manual_first_loss"] = loss.item()
            numbers["manual_first_saturated"] = (h.abs() > 0.97).float().mean().item()
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = LEARNING_RATE if i < STEPS * 3 // 4 else LEARNING_RATE / 10
        for p in parameters:
            p.data += -lr * p.grad

    with torch.no_grad():
        emb = C[Xdev]
        hpreact = emb.view(emb.shape[0], -1) @ W1 + b1
        hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
        logits = torch.tanh(hpreact) @ W2 + b2
        numbers["manual_dev_loss"] = F.cross_entropy(logits, Ydev).item()
    print(
        f"by hand: first loss {numbers['manual_first_loss']:.4f} (uniform: "
        f"{numbers['uniform_loss']:.4f}), dev loss {numbers['manual_dev_loss']:.4f}"
    )

    # 4. the same ideas as layers; statistics of activations, gradients and updates
    C = torch.randn((27, EMBED), generator=g)
    layers = [Linear(fan_in, HIDDEN, g, bias=False), BatchNorm1d(HIDDEN), Tanh()]
    for _ in range(3):
        layers += [Linear(HIDDEN, HIDDEN, g, bias=False), BatchNorm1d(HIDDEN), Tanh()]
    layers += [Linear(HIDDEN, 27, g, bias=False), BatchNorm1d(27)]
    with torch.no_grad():
        layers[-1].gamma *= 0.1  # a less confident last layer
        for layer in layers[:-1]:
            if isinstance(layer, Linear):
                layer.weight *= 5 / 3  # the gain for tanh
    parameters = [C] + [p for layer in layers for p in layer.parameters()]
    numbers["layers_parameters"] = float(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True

    ud, losses = [], []
    for i in range(STEPS):
        ix = torch.randint(0, Xtr.shape[0], (BATCH,), generator=g)
        emb = C[Xtr[ix]]
        x = emb.view(emb.shape[0], -1)
        for layer in layers:
            x = layer(x)
        loss = F.cross_entropy(x, Ytr[ix])
        for layer in layers:
            layer.out.retain_grad()
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = LEARNING_RATE if i < STEPS * 3 // 4 else LEARNING_RATE / 10
        for p in parameters:
            p.data += -lr * p.grad
        with torch.no_grad():
            ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters])
        losses.append(loss.item())
    numbers["layers_first_loss"] = losses[0]
    numbers["layers_last_batch_loss"] = sum(losses[-50:]) / 50

    tanhs = [layer for layer in layers if isinstance(layer, Tanh)]
    for k, layer in enumerate(tanhs):
        t = layer.out
        saturated = (t.abs() > 0.97).float().mean().item()
        print(
            f"tanh {k}: mean {t.mean().item():+.2f}, std {t.std().item():.2f}, "
            f"saturated {saturated * 100:.1f}%, grad std {t.grad.std().item():.2e}"
        )
    numbers["tanh_std"] = sum(layer.out.std().item() for layer in tanhs) / len(tanhs)
    numbers["tanh_saturated"] = sum(
        (layer.out.abs() > 0.97).float().mean().item() for layer in tanhs
    ) / len(tanhs)
    numbers["tanh_grad_std_log10"] = sum(
        layer.out.grad.std().log10().item() for layer in tanhs
    ) / len(tanhs)
    weights = [i for i, p in enumerate(parameters) if p.ndim == 2]
    numbers["update_ratio_log10"] = sum(ud[-1][i] for i in weights) / len(weights)

    for layer in layers:
        if isinstance(layer, BatchNorm1d):
            layer.training = False
    with torch.no_grad():
        emb = C[Xdev]
        x = emb.view(emb.shape[0], -1)
        for layer in layers:
            x = layer(x)
        numbers["layers_dev_loss"] = F.cross_entropy(x, Ydev).item()
    print(
        f"layers: dev loss {numbers['layers_dev_loss']:.4f}, "
        f"log10 update/data {numbers['update_ratio_log10']:.2f}"
    )
    return numbers


if __name__ == "__main__":
    print(main())
