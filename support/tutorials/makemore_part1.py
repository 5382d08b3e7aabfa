"""A character-level bigram model of first names, counted and then learned: the territory of
Karpathy's makemore, part 1.

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
lecture's order:

1. counting: a 27×27 ``int32`` table filled by item assignment, ``N[ix1, ix2] += 1``, one
   bigram at a time ("." marks the start and the end of a name);
2. the counts as probabilities: ``P = (N + 1).float()`` (add-one smoothing), then each row
   divided by its sum with ``P /= P.sum(1, keepdims=True)`` — the in-place form, which
   broadcasts the (27, 1) column over the rows; ``P = P / P.sum(1, keepdims=True)`` is the
   same here;
3. sampling names from it with ``torch.multinomial(p, num_samples=1, replacement=True,
   generator=g)`` and a ``torch.Generator().manual_seed(...)``;
4. the quality of the model as the average negative log-likelihood of the training bigrams
   (a loop over a few names, then all of them at once by indexing ``P[xs, ys]``);
5. the same model learned instead of counted: inputs ``F.one_hot(xs, num_classes=27)
   .float()``, one weight matrix ``W = torch.randn((27, 27), generator=g,
   requires_grad=True)``, a softmax written by hand (``exp``, then each row over its sum),
   the negative log-likelihood plus ``0.01 * (W**2).mean()`` as regularisation, and plain
   gradient descent, ``W.data += -lr * W.grad``; then names sampled from the net.

Adapted to run offline and in seconds: the names are the course's 5,163 US-census first
names (``support.datasets.load_names``), fewer than the lecture's 32,033, and the net trains
for 40 steps. The counts, the smoothed model and its loss do not depend on the seed
(``EXACT``); the sampled names and the net do.

    python -m support.tutorials.makemore_part1
"""

import itertools

import torch

from support import datasets

nn = torch.nn
F = torch.nn.functional

STEPS = 40
LEARNING_RATE = 50.0
REGULARISATION = 0.01
SAMPLES = 20

EXACT = {
    "names",
    "bigrams",
    "count_total",
    "count_start_a",
    "count_n_end",
    "count_max",
    "row_sum",
    "first_names_nll",
    "bigram_nll",
}
IN_PLACE = None


def vocabulary(words):
    """Character <-> index: "." is 0, the letters 1..26 in order."""
    letters = sorted(set("".join(words)))
    stoi = {ch: i + 1 for i, ch in enumerate(letters)}
    stoi["."] = 0
    itos = {i: ch for ch, i in stoi.items()}
    return stoi, itos


def bigrams(word):
    """The pairs of neighbouring characters in ``.word.``."""
    chs = [".", *word, "."]
    return itertools.pairwise(chs)


def sample(next_probs, itos, g, count):
    """``count`` names drawn one character at a time; ``next_probs(ix)`` is the (27,)
    distribution of the character after index ``ix``. Returns the names."""
    names = []
    for _ in range(count):
        out = []
        ix = 0
        while True:
            p = next_probs(ix)
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            if ix == 0:
                break
            out.append(itos[ix])
        names.append("".join(out))
    return names


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    words = datasets.load_names()
    stoi, itos = vocabulary(words)

    # 1. counts, one item assignment per bigram
    N = torch.zeros((27, 27), dtype=torch.int32)
    for w in words:
        for ch1, ch2 in bigrams(w):
            N[stoi[ch1], stoi[ch2]] += 1
    print(f"{len(words)} names; most frequent first letter: {itos[N[0].argmax().item()]}")

    # 2. smoothed counts, each row normalised in place
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)

    # 3. sampling from the counts
    g = torch.Generator().manual_seed(2147483647 + seed)
    counted = sample(lambda ix: P[ix], itos, g, SAMPLES)
    print("from the counts:", " ".join(counted[:5]))

    # 4. the average negative log-likelihood: a few names by a loop, then all at once
    log_likelihood = 0.0
    n = 0
    for w in words[:3]:
        for ch1, ch2 in bigrams(w):
            prob = P[stoi[ch1], stoi[ch2]]
            log_likelihood += torch.log(prob)
            n += 1
    first_names_nll = (-log_likelihood / n).item()

    xs, ys = [], []
    for w in words:
        for ch1, ch2 in bigrams(w):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    num = xs.nelement()
    bigram_nll = -P[xs, ys].log().mean().item()
    print(f"{num} bigrams, average negative log-likelihood {bigram_nll:.4f}")

    # 5. the same model as a one-layer net trained by gradient descent
    W = torch.randn((27, 27), generator=g, requires_grad=True)
    xenc = F.one_hot(xs, num_classes=27).float()
    for k in range(STEPS):
        logits = xenc @ W  # log-counts
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + REGULARISATION * (W**2).mean()
        if k == 0:
            first_loss = loss.item()
        W.grad = None
        loss.backward()
        W.data += -LEARNING_RATE * W.grad
    print(f"the net after {STEPS} steps: loss {loss.item():.4f}")

    def from_the_net(ix):
        xenc = F.one_hot(torch.tensor([ix]), num_classes=27).float()
        counts = (xenc @ W).exp()
        return (counts / counts.sum(1, keepdims=True))[0]

    learned = sample(from_the_net, itos, g, SAMPLES)
    print("from the net:", " ".join(learned[:5]))

    return {
        "names": float(len(words)),
        "bigrams": float(num),
        "count_total": float(N.sum().item()),
        "count_start_a": float(N[0, stoi["a"]].item()),
        "count_n_end": float(N[stoi["n"], 0].item()),
        "count_max": float(N.max().item()),
        "row_sum": P[stoi["q"]].sum().item(),
        "first_names_nll": first_names_nll,
        "bigram_nll": bigram_nll,
        "counted_sample_length": sum(len(s) for s in counted) / SAMPLES,
        "net_first_loss": first_loss,
        "net_last_loss": loss.item(),
        "net_weight_std": W.std().item(),
        "net_sample_length": sum(len(s) for s in learned) / SAMPLES,
    }


if __name__ == "__main__":
    print(main())
