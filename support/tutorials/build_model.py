"""A network's parts, one at a time: the territory of PyTorch's "Build the Neural Network".

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
tutorial's order: the device picked by ``torch.accelerator``, a Module of ``nn.Flatten`` and
a ``Sequential`` of ``Linear``/``ReLU`` moved there and printed, class probabilities of a
random image by ``nn.Softmax(dim=1)``; then the layers taken apart on a minibatch of three
random images (``torch.rand``): ``nn.Flatten``, ``nn.Linear(in_features=...,
out_features=...)``, ``nn.ReLU``, an ``nn.Sequential`` of those, ``nn.Softmax``; and the
parameters listed with ``named_parameters()``.

    python -m support.tutorials.build_model
"""

import torch

nn = torch.nn

EXACT = {
    "logits_rows",
    "logits_columns",
    "flat_columns",
    "hidden_columns",
    "relu_negatives",
    "probability_row_sum",
    "named_parameters",
    "parameters",
    "first_weight_rows",
    "first_weight_columns",
}
IN_PLACE = None


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
        x = self.flatten(x)
        return self.linear_relu_stack(x)


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    device = (
        torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    )
    print(f"using {device}")

    model = NeuralNetwork().to(device)
    print(model)

    image = torch.rand(1, 28, 28, device=device)
    logits = model(image)
    probabilities = nn.Softmax(dim=1)(logits)
    predicted = probabilities.argmax(1)
    print(f"predicted class: {predicted}")

    # the layers one by one, on three random images
    images = torch.rand(3, 28, 28)
    flatten = nn.Flatten()
    flat = flatten(images)  # (3, 784)
    layer1 = nn.Linear(in_features=28 * 28, out_features=20)
    hidden = layer1(flat)  # (3, 20)
    before = hidden
    hidden = nn.ReLU()(hidden)
    print(f"before ReLU: {before}\n\nafter ReLU: {hidden}")
    stack = nn.Sequential(flatten, layer1, nn.ReLU(), nn.Linear(20, 10))
    scores = stack(images)
    softmax = nn.Softmax(dim=1)
    stack_probabilities = softmax(scores)

    named = list(model.named_parameters())
    for name, param in named:
        print(f"layer {name} | size {param.size()} | first values {param[:2]}")

    return {
        "logits_rows": float(logits.shape[0]),
        "logits_columns": float(logits.shape[1]),
        "flat_columns": float(flat.shape[1]),
        "hidden_columns": float(hidden.shape[1]),
        "relu_negatives": float((hidden < 0).sum().item()),
        "probability_row_sum": stack_probabilities.sum(dim=1).mean().item(),
        "named_parameters": float(len(named)),
        "parameters": float(sum(param.numel() for _, param in named)),
        "first_weight_rows": float(named[0][1].size()[0]),
        "first_weight_columns": float(named[0][1].size(1)),
        "predicted": float(predicted.item()),
        "top_probability": probabilities.max().item(),
        "relu_zeros": float((hidden == 0).sum().item()),
        "stack_top_probability": stack_probabilities.max().item(),
    }


if __name__ == "__main__":
    print(main())
