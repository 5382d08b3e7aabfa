"""pytorch/examples' MNIST training script, its network an MLP: the territory of
``mnist/main.py`` there.

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
example's order: a Module whose ``forward`` uses the functional forms (``torch.flatten``,
``F.relu``, ``nn.Dropout``, ``F.log_softmax``), ``F.nll_loss`` for training, a test loop
that sums the loss (``reduction="sum"``) and counts right answers with
``pred.eq(target.view_as(pred)).sum().item()``, ``torch.manual_seed``, the device picked by
``torch.accelerator``, a shuffling training ``DataLoader``, ``optim.Adadelta`` (lr 1.0) and
``StepLR(step_size=1, gamma=0.7)`` stepped after each epoch.

Adapted to run offline and in seconds: the shipped MNIST-5k (4,000 training and 1,000 test
digits, normalised with MNIST's mean 0.1307 and standard deviation 0.3081 as the example's
transform does), an MLP in place of the example's convolutions (chapter 8's), and 2 epochs.

    python -m support.tutorials.mnist_mlp
"""

import torch

from support import datasets

nn = torch.nn
F = torch.nn.functional
optim = torch.optim
StepLR = torch.optim.lr_scheduler.StepLR
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset

EPOCHS = 2
BATCH_SIZE = 64
TEST_BATCH_SIZE = 1000
LOG_INTERVAL = 20

EXACT = {"test_size", "train_batches", "lr_final"}
IN_PLACE = None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, 128)
        self.dropout = nn.Dropout(0.25)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout(x)
        return F.log_softmax(self.fc2(x), dim=1)


def train(model, device, loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % LOG_INTERVAL == 0:
            done = batch_idx * len(data)
            print(f"epoch {epoch} [{done}/{len(loader.dataset)}] loss {loss.item():.6f}")


def test(model, device, loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)  # the most likely digit
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(loader.dataset)
    print(f"test: mean loss {test_loss:.4f}, accuracy {correct}/{len(loader.dataset)}")
    return test_loss, correct / len(loader.dataset)


def digit_sets():
    d = datasets.load("mnist5k")

    def normalised(images):
        return (torch.from_numpy(images).unsqueeze(1) - 0.1307) / 0.3081

    return (
        TensorDataset(normalised(d["x_train"]), torch.from_numpy(d["y_train"])),
        TensorDataset(normalised(d["x_test"]), torch.from_numpy(d["y_test"])),
    )


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    device = (
        torch.accelerator.current_accelerator()
        if torch.accelerator.is_available()
        else torch.device("cpu")
    )
    train_set, test_set = digit_sets()
    train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=TEST_BATCH_SIZE)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    numbers = {}
    for epoch in range(1, EPOCHS + 1):
        train(model, device, train_loader, optimizer, epoch)
        test_loss, accuracy = test(model, device, test_loader)
        scheduler.step()
        numbers[f"test_loss_{epoch}"] = test_loss
        numbers[f"accuracy_{epoch}"] = accuracy
    return {
        "test_size": float(len(test_loader.dataset)),
        "train_batches": float(len(train_loader)),
        "lr_final": float(optimizer.param_groups[0]["lr"]),
        **numbers,
    }


if __name__ == "__main__":
    print(main())
