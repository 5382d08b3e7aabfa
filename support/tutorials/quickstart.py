"""A first image classifier, end to end: the territory of PyTorch's "Learn the Basics"
Quickstart.

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
tutorial's order: a dataset and its ``DataLoader`` (one batch's shapes), the device picked
by ``torch.accelerator``, a Module of ``nn.Flatten`` and an ``nn.Sequential`` of
``Linear``/``ReLU``, ``nn.CrossEntropyLoss`` and ``torch.optim.SGD``, a training loop and a
test loop (accuracy by ``(pred.argmax(1) == y).type(torch.float).sum().item()``), the
weights saved as a ``state_dict`` and loaded into a fresh model, and one prediction named by
``classes[pred[0].argmax(0)]``.

Adapted to run offline and in seconds: the images are the shipped MNIST-5k digits (28×28
grey levels in [0, 1], as torchvision's ``ToTensor`` gives), not FashionMNIST, and it trains
for 3 epochs of 4,000 images (189 steps, the tutorial's 5 epochs of 60,000 are 4,690), so
the learning rate is 0.05 instead of 1e-3, for the loss to go somewhere in that time.

    python -m support.tutorials.quickstart
"""

import tempfile
from pathlib import Path

import torch

from support import datasets

nn = torch.nn
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset

EPOCHS = 3
BATCH_SIZE = 64
LEARNING_RATE = 5e-2  # the tutorial's 1e-3 is for 25 times as many steps
CLASSES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]

EXACT = {
    "batch_n",
    "batch_c",
    "batch_h",
    "batch_w",
    "label_batch",
    "train_size",
    "test_batches",
    "parameters",
    "reload_difference",
}
IN_PLACE = None


def image_sets():
    """The digits as two datasets of (image (1, 28, 28) float32, label int64)."""
    d = datasets.load("mnist5k")
    train = TensorDataset(
        torch.from_numpy(d["x_train"]).unsqueeze(1), torch.from_numpy(d["y_train"])
    )
    test = TensorDataset(torch.from_numpy(d["x_test"]).unsqueeze(1), torch.from_numpy(d["y_test"]))
    return train, test


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


def train_epoch(loader, model, loss_fn, optimizer, device):
    model.train()
    for number, (images, labels) in enumerate(loader):
        images, labels = images.to(device), labels.to(device)
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if number % 20 == 0:
            print(f"  batch {number:3d}: loss {loss.item():.4f}")


def evaluate(loader, model, loss_fn, device):
    """The mean loss over the batches and the fraction of images classified right."""
    model.eval()
    total_loss, right = 0.0, 0.0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            pred = model(images)
            total_loss += loss_fn(pred, labels).item()
            right += (pred.argmax(1) == labels).type(torch.float).sum().item()
    return total_loss / len(loader), right / len(loader.dataset)


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    train_data, test_data = image_sets()
    train_loader = DataLoader(train_data, batch_size=BATCH_SIZE)
    test_loader = DataLoader(test_data, batch_size=BATCH_SIZE)
    for images, labels in test_loader:
        print(f"one batch: images {tuple(images.shape)} {images.dtype}, labels {labels.shape}")
        break

    device = (
        torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    )
    print(f"training on {device}")
    model = NeuralNetwork().to(device)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)

    numbers = {}
    for epoch in range(EPOCHS):
        print(f"epoch {epoch + 1}")
        train_epoch(train_loader, model, loss_fn, optimizer, device)
        test_loss, accuracy = evaluate(test_loader, model, loss_fn, device)
        print(f"  test: accuracy {accuracy:.1%}, mean loss {test_loss:.4f}")
        numbers[f"test_loss_{epoch + 1}"] = test_loss
        numbers[f"accuracy_{epoch + 1}"] = accuracy

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.pth"
        torch.save(model.state_dict(), path)
        reloaded = NeuralNetwork().to(device)
        reloaded.load_state_dict(torch.load(path, weights_only=True))

    reloaded.eval()
    image, label = test_data[0][0], test_data[0][1]
    with torch.no_grad():
        image = image.to(device)
        pred = reloaded(image)
        predicted, actual = CLASSES[pred[0].argmax(0)], CLASSES[label]
        difference = (pred - model(image)).abs().max().item()
    print(f'predicted "{predicted}", actual "{actual}"')
    return {
        "batch_n": float(images.shape[0]),
        "batch_c": float(images.shape[1]),
        "batch_h": float(images.shape[2]),
        "batch_w": float(images.shape[3]),
        "label_batch": float(labels.shape[0]),
        "train_size": float(len(train_loader.dataset)),
        "test_batches": float(len(test_loader)),
        "parameters": float(sum(p.numel() for p in model.parameters())),
        "reload_difference": difference,
        **numbers,
        "predicted": float(CLASSES.index(predicted)),
    }


if __name__ == "__main__":
    print(main())
