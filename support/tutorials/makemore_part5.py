"""A WaveNet-like hierarchy that fuses characters two by two: the territory of Karpathy's
makemore, part 5 (after van den Oord et al. 2016).

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
lecture's order:

1. a longer context (``BLOCK = 8`` characters) and a model assembled from layers in an
   ``nn.Sequential``: ``nn.Embedding`` for the characters, ``nn.Linear`` (no bias before a
   batch norm) and ``nn.Tanh``;
2. ``FlattenConsecutive(n)``, a layer of its own: (B, T, C) viewed as
   ``x.view(B, T // n, C * n)``, so each position holds n neighbouring characters, with the
   middle dimension squeezed away once it is 1 — three of them make a tree of depth three
   over the 8 characters;
3. ``BatchNorm1d`` written by hand as a Module, for 2-D input (statistics over dim 0) and for
   the 3-D input the hierarchy gives it (statistics over dims (0, 1): one mean per channel,
   not one per position), running statistics updated under ``torch.no_grad()``;
4. the layers' output shapes for a small batch, the parameter count, the last layer scaled
   down under ``torch.no_grad()``; training with minibatches from ``torch.randint`` and
   ``p.data += -lr * p.grad``; ``model.eval()`` for the train and dev losses; names
   sampled with ``F.softmax`` and ``torch.multinomial``.

Adapted to run offline and in seconds: the course's 5,163 US-census first names
(``support.datasets.load_names``; the lecture has 32,033), narrower layers and a few
hundred steps. Shapes, the parameter count and the batch norm on a fixed 3-D float64 input
do not depend on the seed (``EXACT``); everything drawn does.

    python -m support.tutorials.makemore_part5
"""

import random

import torch

from support import datasets

nn = torch.nn
F = torch.nn.functional

BLOCK = 8
EMBED = 10
HIDDEN = 48
BATCH = 32
STEPS = 400
SAMPLES = 10

EXACT = {
    "train_rows",
    "dev_rows",
    "parameters",
    "embedding_0",
    "embedding_1",
    "embedding_2",
    "flatten_1_0",
    "flatten_1_1",
    "flatten_1_2",
    "batchnorm_1_0",
    "batchnorm_1_1",
    "batchnorm_1_2",
    "flatten_3_0",
    "flatten_3_1",
    "logits_0",
    "logits_1",
    "bn3d_out",
    "bn3d_running_var",
    "bn3d_grad_x",
}
IN_PLACE = None


class FlattenConsecutive(nn.Module):
    """(B, T, C) -> (B, T // n, C * n): n consecutive positions side by side; (B, C * n)
    when that leaves one position."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        return x


class BatchNorm1d(nn.Module):
    """Batch norm over the batch (2-D input) or over the batch and the positions (3-D)."""

    def __init__(self, dim, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))
        self.register_buffer("running_mean", torch.zeros(dim))
        self.register_buffer("running_var", torch.ones(dim))

    def forward(self, x):
        if self.training:
            dims = 0 if x.ndim == 2 else (0, 1)
            xmean = x.mean(dims, keepdim=True)
            xvar = x.var(dims, keepdim=True)
        else:
            xmean, xvar = self.running_mean, self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                m = self.momentum
                self.running_mean = (1 - m) * self.running_mean + m * xmean.view(-1)
                self.running_var = (1 - m) * self.running_var + m * xvar.view(-1)
        return out


def build_dataset(words, stoi):
    X, Y = [], []
    for w in words:
        context = [0] * BLOCK
        for ch in w + ".":
            X.append(context)
            Y.append(stoi[ch])
            context = [*context[1:], stoi[ch]]
    return torch.tensor(X), torch.tensor(Y)


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    words = datasets.load_names()
    letters = sorted(set("".join(words)))
    stoi = {ch: i + 1 for i, ch in enumerate(letters)}
    stoi["."] = 0
    itos = {i: ch for ch, i in stoi.items()}
    random.Random(42).shuffle(words)
    n1 = int(0.9 * len(words))
    Xtr, Ytr = build_dataset(words[:n1], stoi)
    Xdev, Ydev = build_dataset(words[n1:], stoi)
    numbers = {"train_rows": float(Xtr.shape[0]), "dev_rows": float(Xdev.shape[0])}

    # batch norm over a fixed 3-D input: statistics per channel over (batch, position)
    bn = BatchNorm1d(3).double()
    x = (torch.arange(24, dtype=torch.float64).view(2, 4, 3) - 7.5) ** 2 / 10
    x.requires_grad = True
    out = bn(x)
    (out * torch.linspace(-1.0, 1.0, 24, dtype=torch.float64).view(2, 4, 3)).sum().backward()
    numbers["bn3d_out"] = out.abs().sum().item()
    numbers["bn3d_running_var"] = bn.running_var.sum().item()
    numbers["bn3d_grad_x"] = x.grad.abs().sum().item()

    # the hierarchy: 8 characters -> 4 pairs -> 2 quadruples -> 1
    model = nn.Sequential(
        nn.Embedding(27, EMBED),
        FlattenConsecutive(2), nn.Linear(EMBED * 2, HIDDEN, bias=False),
        BatchNorm1d(HIDDEN), nn.Tanh(),
        FlattenConsecutive(2), nn.Linear(HIDDEN * 2, HIDDEN, bias=False),
        BatchNorm1d(HIDDEN), nn.Tanh(),
        FlattenConsecutive(2), nn.Linear(HIDDEN * 2, HIDDEN, bias=False),
        BatchNorm1d(HIDDEN), nn.Tanh(),
        nn.Linear(HIDDEN, 27),
    )  # fmt: skip
    with torch.no_grad():
        model[-1].weight *= 0.1  # a less confident first guess
    parameters = list(model.parameters())
    numbers["parameters"] = float(sum(p.nelement() for p in parameters))

    x = Xtr[:4]
    shapes = []
    for layer in model:
        x = layer(x)
        shapes.append(x.shape)
        print(f"{layer.__class__.__name__:>18}: {tuple(x.shape)}")
    for name, at in [("embedding", 0), ("flatten_1", 1), ("batchnorm_1", 3)]:
        for k, size in enumerate(shapes[at]):
            numbers[f"{name}_{k}"] = float(size)
    for name, at in [("flatten_3", 9), ("logits", 13)]:
        for k, size in enumerate(shapes[at]):
            numbers[f"{name}_{k}"] = float(size)

    g = torch.Generator().manual_seed(2147483647 + seed)
    losses = []
    for i in range(STEPS):
        ix = torch.randint(0, Xtr.shape[0], (BATCH,), generator=g)
        logits = model(Xtr[ix])
        loss = F.cross_entropy(logits, Ytr[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < STEPS * 3 // 4 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        losses.append(loss.item())
    numbers["first_loss"] = losses[0]
    numbers["last_batch_loss"] = sum(losses[-50:]) / 50

    model.eval()
    with torch.no_grad():
        numbers["train_loss"] = F.cross_entropy(model(Xtr), Ytr).item()
        numbers["dev_loss"] = F.cross_entropy(model(Xdev), Ydev).item()
        names = []
        for _ in range(SAMPLES):
            out = []
            context = [0] * BLOCK
            while True:
                probs = F.softmax(model(torch.tensor([context])), dim=1)
                ix = torch.multinomial(probs, num_samples=1, generator=g).item()
                context = [*context[1:], ix]
                if ix == 0:
                    break
                out.append(itos[ix])
            names.append("".join(out))
    numbers["sample_length"] = sum(len(s) for s in names) / SAMPLES
    print(f"loss: train {numbers['train_loss']:.4f}, dev {numbers['dev_loss']:.4f}")
    print("samples:", " ".join(names))
    return numbers


if __name__ == "__main__":
    print(main())
