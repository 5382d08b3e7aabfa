"""A multilayer perceptron over a window of characters: the territory of Karpathy's
makemore, part 2 (after Bengio et al. 2003).

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
lecture's order:

1. the dataset: every character of every name with the ``BLOCK`` characters before it as
   its context (padded with "."), as integer tensors ``X`` (N, BLOCK) and ``Y`` (N,);
   names shuffled once and split 80/10/10 into train, dev and test sets;
2. a lookup table ``C`` of ``EMBED``-dimensional character embeddings, indexed by a whole
   tensor of contexts at once (``C[X]``, shape (N, BLOCK, EMBED)), flattened with
   ``emb.view(-1, BLOCK * EMBED)`` for a ``torch.tanh`` hidden layer and a linear read-out;
   the parameters drawn with ``torch.randn(..., generator=g)`` and counted with
   ``nelement()``;
3. the loss by ``F.cross_entropy(logits, Y)`` rather than by hand;
4. minibatches: 32 rows picked by ``torch.randint(0, n, (32,), generator=g)`` at each step,
   and the update by hand, ``p.data += -lr * p.grad`` after ``p.grad = None`` and
   ``loss.backward()``;
5. a learning-rate search: ``lre = torch.linspace(-3, 0, steps)``, ``lrs = 10**lre``, one
   step at each rate in turn, loss recorded against the exponent (the lowest smoothed loss
   picks a rate);
6. training with the rate found reasonable, then ten times smaller; the losses of the
   train, dev and test sets under ``torch.no_grad()``; names sampled from the model with
   ``F.softmax`` and ``torch.multinomial``.

Adapted to run offline and in seconds: the course's 5,163 US-census first names
(``support.datasets.load_names``; the lecture has 32,033), a smaller hidden layer and a few
thousand steps. The split and the tensors' shapes do not depend on the seed (``EXACT``; the
names are shuffled with a fixed ``random.Random(42)``); everything trained does.

    python -m support.tutorials.makemore_part2
"""

import random

import torch

from support import datasets

nn = torch.nn
F = torch.nn.functional

BLOCK = 3  # characters of context
EMBED = 10  # dimensions of a character's embedding
HIDDEN = 100
BATCH = 32
SEARCH_STEPS = 300
TRAIN_STEPS = 3000
SAMPLES = 20

EXACT = {
    "train_rows",
    "dev_rows",
    "test_rows",
    "context",
    "emb_dim0",
    "emb_dim1",
    "emb_dim2",
    "parameters",
    "first_target",
}
IN_PLACE = None


def build_dataset(words, stoi):
    """(X, Y): for each character of each name (and the "." after it), the BLOCK characters
    before it and the character itself."""
    X, Y = [], []
    for w in words:
        context = [0] * BLOCK
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = [*context[1:], ix]
    return torch.tensor(X), torch.tensor(Y)


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    words = datasets.load_names()
    letters = sorted(set("".join(words)))
    stoi = {ch: i + 1 for i, ch in enumerate(letters)}
    stoi["."] = 0
    itos = {i: ch for ch, i in stoi.items()}

    # 1. the three sets
    random.Random(42).shuffle(words)
    n1, n2 = int(0.8 * len(words)), int(0.9 * len(words))
    Xtr, Ytr = build_dataset(words[:n1], stoi)
    Xdev, Ydev = build_dataset(words[n1:n2], stoi)
    Xte, Yte = build_dataset(words[n2:], stoi)
    print(f"train {tuple(Xtr.shape)}, dev {tuple(Xdev.shape)}, test {tuple(Xte.shape)}")

    # 2. the parameters
    g = torch.Generator().manual_seed(2147483647 + seed)

    def fresh():
        C = torch.randn((27, EMBED), generator=g)
        W1 = torch.randn((BLOCK * EMBED, HIDDEN), generator=g)
        b1 = torch.randn(HIDDEN, generator=g)
        W2 = torch.randn((HIDDEN, 27), generator=g)
        b2 = torch.randn(27, generator=g)
        parameters = [C, W1, b1, W2, b2]
        for p in parameters:
            p.requires_grad = True
        return parameters

    parameters = fresh()
    C = parameters[0]
    n_parameters = sum(p.nelement() for p in parameters)
    emb_shape = C[Xtr].shape  # every context's embeddings at once
    print(f"{n_parameters} parameters; C[Xtr] has shape {tuple(emb_shape)}")

    def step(parameters, lr):
        C, W1, b1, W2, b2 = parameters
        ix = torch.randint(0, Xtr.shape[0], (BATCH,), generator=g)
        emb = C[Xtr[ix]]  # (BATCH, BLOCK, EMBED)
        h = torch.tanh(emb.view(-1, BLOCK * EMBED) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Ytr[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        for p in parameters:
            p.data += -lr * p.grad
        return loss.item()

    # 5. the learning-rate search, on a model of its own
    lre = torch.linspace(-3, 0, SEARCH_STEPS)
    lrs = 10**lre
    search = fresh()
    lri, lossi = [], []
    for i in range(SEARCH_STEPS):
        lossi.append(step(search, lrs[i]))  # a 0-d tensor as the rate
        lri.append(lre[i].item())
    window = 25  # the losses are noisy: compare averages over neighbouring rates
    smoothed = [sum(lossi[i : i + window]) / window for i in range(SEARCH_STEPS - window)]
    best = min(range(len(smoothed)), key=smoothed.__getitem__)
    best_exponent = lri[best + window // 2]
    print(f"lowest smoothed loss at 10**{best_exponent:.2f}")

    # 6. training, then evaluation of the three sets
    losses = []
    for i in range(TRAIN_STEPS):
        lr = 0.1 if i < TRAIN_STEPS * 2 // 3 else 0.01
        losses.append(step(parameters, lr))

    C, W1, b1, W2, b2 = parameters

    def split_loss(X, Y):
        with torch.no_grad():
            emb = C[X]
            h = torch.tanh(emb.view(-1, BLOCK * EMBED) @ W1 + b1)
            return F.cross_entropy(h @ W2 + b2, Y).item()

    train_loss, dev_loss, test_loss = (
        split_loss(Xtr, Ytr),
        split_loss(Xdev, Ydev),
        split_loss(Xte, Yte),
    )
    print(f"loss: train {train_loss:.4f}, dev {dev_loss:.4f}, test {test_loss:.4f}")

    names = []
    for _ in range(SAMPLES):
        out = []
        context = [0] * BLOCK
        while True:
            emb = C[torch.tensor([context])]  # (1, BLOCK, EMBED)
            h = torch.tanh(emb.view(1, -1) @ W1 + b1)
            probs = F.softmax(h @ W2 + b2, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = [*context[1:], ix]
            if ix == 0:
                break
            out.append(itos[ix])
        names.append("".join(out))
    print("samples:", " ".join(names[:8]))

    return {
        "train_rows": float(Xtr.shape[0]),
        "dev_rows": float(Xdev.shape[0]),
        "test_rows": float(Xte.shape[0]),
        "context": float(Xtr.shape[1]),
        "emb_dim0": float(emb_shape[0]),
        "emb_dim1": float(emb_shape[1]),
        "emb_dim2": float(emb_shape[2]),
        "parameters": float(n_parameters),
        "first_target": float(Ytr[0].item()),
        "search_first_loss": lossi[0],
        "search_best_exponent": best_exponent,
        "first_loss": losses[0],
        "last_batch_loss": sum(losses[-100:]) / 100,
        "train_loss": train_loss,
        "dev_loss": dev_loss,
        "test_loss": test_loss,
        "sample_length": sum(len(s) for s in names) / SAMPLES,
    }


if __name__ == "__main__":
    print(main())
