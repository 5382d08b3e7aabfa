"""A PyTorch training script that runs unchanged on the last chapter's package.

Everything below is written for PyTorch. Change one line, ``import torch`` into::

    import chapters.ch07_device as torch

and the same code trains with your framework (the course repository's
``test_pytorch_swap.py`` does exactly that, and compares the two step by step). It uses a
model with two branches, module-level operations (``torch.flatten``, ``torch.clamp``,
``torch.tanh``, ``torch.where``, ``torch.cat``, ``torch.log_softmax``, ``torch.stack``,
``torch.exp``), ``TensorDataset`` and ``DataLoader``, SGD with momentum and a ``StepLR``
schedule, a loss written by hand with ``gather``, ``torch.no_grad()`` evaluation, and a
checkpoint saved with ``torch.save`` and resumed with ``torch.load`` into fresh objects.

For the two runs to be comparable, the script fixes what PyTorch would otherwise draw at
random: the initial weights come from one NumPy file (``write_initial_weights``) through
``load_state_dict``, the batch order is one NumPy permutation (no shuffling in the loader),
there is no dropout, and everything is float64.

    python -m support.pytorch_script            (PyTorch: prints each epoch and the accuracy)
    python -m support.pytorch_script cuda       (on a GPU; "sim" once the import is swapped)
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from support import datasets

nn = torch.nn
F = torch.nn.functional
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset


class Net(nn.Module):
    """Two branches over the flattened 8×8 image, concatenated, then a linear read-out."""

    def __init__(self):
        super().__init__()
        self.smooth = nn.Linear(64, 32)
        self.sharp = nn.Linear(64, 32)
        self.out = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)  # (N, 8, 8) -> (N, 64)
        x = torch.clamp(x, -3.0, 3.0)  # standardised pixels, outliers clipped
        a = torch.tanh(self.smooth(x))
        z = self.sharp(x)
        b = torch.where(z > 0, z, 0.1 * z)  # a leaky ReLU
        return self.out(torch.cat([a, b], dim=1))


def nll(logits, y):
    """Cross-entropy by hand: minus the log-probability of each right class (gather picks
    it from its row), averaged over the batch."""
    log_probs = torch.log_softmax(logits, dim=1)
    return -log_probs.gather(1, y.unsqueeze(1)).squeeze(1).mean()


def write_initial_weights(path, seed=0):
    """Net's parameters drawn with NumPy as PyTorch's Linear draws them (uniform in
    ±1/sqrt(fan_in)), saved as one .npz file keyed like Net's state_dict."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, (fan_out, fan_in) in [("smooth", (32, 64)), ("sharp", (32, 64)), ("out", (10, 64))]:
        bound = 1 / np.sqrt(fan_in)
        weights[f"{name}.weight"] = rng.uniform(-bound, bound, (fan_out, fan_in))
        weights[f"{name}.bias"] = rng.uniform(-bound, bound, fan_out)
    np.savez(path, **weights)


def load_digits(seed=0):
    """The 8×8 digits as tensors: images standardised per pixel with the training set's
    mean and standard deviation, the training set in one fixed random order."""
    d = datasets.load("digits")
    order = np.random.default_rng(seed).permutation(len(d["y_train"]))
    x_train = torch.from_numpy(d["x_train"][order]).to(torch.float64)
    x_test = torch.from_numpy(d["x_test"]).to(torch.float64)
    mean, std = x_train.mean(0), x_train.std(0) + 0.01  # some pixels are always blank
    y_train = torch.from_numpy(d["y_train"][order]).long()
    y_test = torch.from_numpy(d["y_test"]).long()
    return (x_train - mean) / std, y_train, (x_test - mean) / std, y_test


def make_training(device):
    """A fresh model, optimizer and schedule (the learning rate halves every 2 epochs)."""
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    return model, optimizer, scheduler


def evaluate(model, x, y):
    """The test set's cross-entropy (a tensor) and accuracy (a float)."""
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        pred = logits.argmax(dim=1)
        accuracy = (pred == y).float().mean().item()
    model.train()
    return loss, accuracy


def run(weights_path, checkpoint_path, epochs=4, resume_after=2, device="cpu", verbose=False):
    """Train Net for ``epochs`` epochs from the weights in ``weights_path``; after epoch
    ``resume_after`` (None: never) save a checkpoint, throw everything away, and go on from
    the checkpoint in fresh objects. Returns each step's loss and the test accuracy."""
    default_dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        x_train, y_train, x_test, y_test = load_digits()
        loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=False)

        model, optimizer, scheduler = make_training("cpu")
        with np.load(weights_path) as initial:
            model.load_state_dict({name: torch.from_numpy(initial[name]) for name in initial})
        model.to(device)

        losses = []
        for epoch in range(epochs):
            batch_losses = []
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = nll(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
                batch_losses.append(loss.detach())
            scheduler.step()

            if epoch + 1 == resume_after:
                checkpoint = {
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                }
                torch.save(checkpoint, checkpoint_path)
                del model, optimizer, scheduler, checkpoint
                model, optimizer, scheduler = make_training(device)
                checkpoint = torch.load(checkpoint_path, map_location=device, weights_only=True)
                model.load_state_dict(checkpoint["model"])
                optimizer.load_state_dict(checkpoint["optimizer"])
                scheduler.load_state_dict(checkpoint["scheduler"])

            if verbose:
                train_loss = torch.stack(batch_losses).mean()
                test_loss, accuracy = evaluate(model, x_test.to(device), y_test.to(device))
                print(
                    f"epoch {epoch + 1}: train loss {train_loss.item():.4f}, "
                    f"test loss {test_loss.item():.4f} (perplexity "
                    f"{torch.exp(test_loss).item():.3f}), "
                    f"accuracy {accuracy:.1%}"
                )
        _, accuracy = evaluate(model, x_test.to(device), y_test.to(device))
        return losses, accuracy
    finally:
        torch.set_default_dtype(default_dtype)


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"  # e.g. cuda, or sim with Sparrow
    with tempfile.TemporaryDirectory() as folder:
        weights = Path(folder) / "initial.npz"
        write_initial_weights(weights)
        losses, accuracy = run(weights, Path(folder) / "checkpoint.pt", device=device, verbose=True)
    print(f"{len(losses)} steps, first loss {losses[0]:.6f}, last {losses[-1]:.6f}")
    print(f"test accuracy {accuracy:.1%}")
