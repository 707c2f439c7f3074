"""LeNet on MNIST with paddle.io.DataLoader and the imperative training loop of Paddle's dygraph guide.

    python examples/lenet_loop.py [--data-dir DIR] [--epochs 2] [--limit N]

Every step is ``loss.backward(); opt.step(); opt.clear_grad()`` on the eager tape. The data handling is that of
``mnist_highlevel.py``: MNIST's idx-ubyte.gz files from ``--data-dir``, else a small synthetic MNIST.
"""
import argparse

import paddle_fn as paddle
from mnist_data import mnist_files
from paddle_fn.vision.models import LeNet
from paddle_fn.vision.transforms import ToTensor

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--data-dir", default=None, help="directory with the MNIST idx-ubyte.gz files")
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--limit", type=int, default=None, help="use only the first N train and test samples")
parser.add_argument("--batch-size", type=int, default=64)
args = parser.parse_args()
files = mnist_files(args.data_dir)

paddle.seed(2023)
train_dataset = paddle.vision.datasets.MNIST(*files["train"], mode="train", transform=ToTensor())
test_dataset = paddle.vision.datasets.MNIST(*files["test"], mode="test", transform=ToTensor())
if args.limit is not None:
    train_dataset = paddle.io.Subset(train_dataset, list(range(min(args.limit, len(train_dataset)))))
    test_dataset = paddle.io.Subset(test_dataset, list(range(min(args.limit, len(test_dataset)))))
train_loader = paddle.io.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True, drop_last=True)
test_loader = paddle.io.DataLoader(test_dataset, batch_size=args.batch_size)

model = LeNet(num_classes=10)
loss_fn = paddle.nn.CrossEntropyLoss()
opt = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())

for epoch in range(args.epochs):
    model.train()
    for batch_id, (x, y) in enumerate(train_loader()):
        logits = model(x)
        loss = loss_fn(logits, y)
        acc = paddle.metric.accuracy(logits, y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if batch_id % 5 == 0:
            print(f"epoch: {epoch}, batch_id: {batch_id}, loss: {float(loss):.4f}, acc: {float(acc):.4f}")

    model.eval()
    correct, seen = 0, 0
    with paddle.no_grad():
        for x, y in test_loader():
            pred = model(x).numpy().argmax(axis=1)
            correct += int((pred == y.numpy().reshape(-1)).sum())
            seen += len(pred)
    print(f"epoch: {epoch}, test accuracy: {correct / seen:.4f} ({correct}/{seen})")
