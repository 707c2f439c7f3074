"""The MNIST program of Paddle's API overview (high-level API: paddle.Model), unchanged but for the import line.

    python examples/mnist_highlevel.py [--data-dir DIR] [--epochs 5] [--limit N]

``--data-dir`` holds MNIST's four idx-ubyte.gz files (as Paddle downloads them); without them a small synthetic
MNIST in the same format is written to a temporary directory. ``--limit`` trains and evaluates on the first N
samples only.
"""
import argparse

import paddle_fn as paddle
from mnist_data import mnist_files

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--data-dir", default=None, help="directory with the MNIST idx-ubyte.gz files")
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--limit", type=int, default=None, help="use only the first N train and test samples")
args = parser.parse_args()
files = mnist_files(args.data_dir)


def limited(dataset):
    if args.limit is None:
        return dataset
    return paddle.io.Subset(dataset, list(range(min(args.limit, len(dataset)))))


# ---- the manual's program (only the dataset paths, the epoch count and the limit come from the command line) ----
normalize = paddle.vision.transforms.Normalize(mean=[0.0], std=[256.])
train_dataset = paddle.vision.datasets.MNIST(*files["train"], mode='train', transform=normalize)
val_dataset = paddle.vision.datasets.MNIST(*files["test"], mode='test', transform=normalize)
train_dataset, val_dataset = limited(train_dataset), limited(val_dataset)

mnist = paddle.nn.Sequential(
    paddle.nn.Flatten(),
    paddle.nn.Linear(784, 1024),
    paddle.nn.ReLU(),
    paddle.nn.Linear(1024, 512),
    paddle.nn.ReLU(),
    paddle.nn.Linear(512, 10)
)
model = paddle.Model(mnist)

model.prepare(paddle.optimizer.Adam(parameters=model.parameters()),
              paddle.nn.CrossEntropyLoss(),
              paddle.metric.Accuracy())

model.fit(train_dataset, val_dataset, epochs=args.epochs, batch_size=32, verbose=1)
