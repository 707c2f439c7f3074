"""A two-layer graph convolution network (Kipf & Welling) on a sparse adjacency matrix, trained under jit.

    .venv/bin/python examples/gcn_sparse.py [--nodes N] [--steps S] [--seed K]

The graph is a synthetic citation-like network: nodes belong to one of 4 classes, an edge joins two nodes of one
class with probability 8 / N and of different classes with probability 0.5 / N, and each node's 32 features are
its class's centroid plus noise strong enough that the features alone classify poorly. The normalized adjacency
D^-1/2 (A + I) D^-1/2 is a `paddle.sparse` CSR Tensor; each layer is ``A_hat @ (H @ W)``, a sparse-dense product.
The whole training step (forward, `paddle.value_and_grad`, an Adam update) is one jitted function of the
parameters, the sparse matrix and the data, so the sparse Tensor passes through `jit` and `grad` as a pytree.
Only 10% of the nodes are labelled; the accuracy is measured on the others, and compared with the same model
trained on a graph without edges (the identity matrix: each node sees its own features only), which shows what the
edges add.
"""
from __future__ import annotations

import argparse

import numpy as np

import paddle_fn as paddle
import paddle_fn.nn.functional as F

CLASSES, FEATURES, HIDDEN = 4, 32, 16


def synthetic_graph(nodes: int, rng):
    """(normalized adjacency as CSR, features, labels, training mask)."""
    labels = rng.integers(0, CLASSES, nodes)
    same = labels[:, None] == labels[None, :]
    prob = np.where(same, 8.0 / nodes, 0.5 / nodes)
    upper = np.triu(rng.random((nodes, nodes)) < prob, 1)
    adjacency = (upper | upper.T | np.eye(nodes, dtype=bool)).astype(np.float32)
    scale = 1.0 / np.sqrt(adjacency.sum(1))
    normalized = adjacency * scale[:, None] * scale[None, :]
    centroids = rng.standard_normal((CLASSES, FEATURES)).astype(np.float32)
    features = centroids[labels] + 2.5 * rng.standard_normal((nodes, FEATURES)).astype(np.float32)
    train = np.zeros(nodes, bool)
    train[rng.permutation(nodes)[: max(nodes // 10, CLASSES)]] = True
    csr = paddle.to_tensor(normalized).to_sparse_csr()
    return csr, paddle.to_tensor(features), paddle.to_tensor(labels), paddle.to_tensor(train)


def init_params(rng):
    def glorot(fan_in, fan_out):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return paddle.to_tensor(rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32))
    return {"w1": glorot(FEATURES, HIDDEN), "b1": paddle.zeros([HIDDEN]),
            "w2": glorot(HIDDEN, CLASSES), "b2": paddle.zeros([CLASSES])}


def gcn(params, adjacency, features):
    hidden = F.relu(paddle.sparse.matmul(adjacency, features @ params["w1"]) + params["b1"])
    return paddle.sparse.matmul(adjacency, hidden @ params["w2"]) + params["b2"]


def masked_loss(params, adjacency, features, labels, mask):
    per_node = F.cross_entropy(gcn(params, adjacency, features), labels, reduction="none").reshape([-1])
    weights = mask.astype("float32")
    return (per_node * weights).sum() / weights.sum()


@paddle.jit
def train_step(params, moments, step, adjacency, features, labels, mask, lr=0.02):
    """One Adam step on the labelled nodes; returns (loss, params, moments)."""
    loss, grads = paddle.value_and_grad(masked_loss)(params, adjacency, features, labels, mask)
    first, second = moments
    first = {k: 0.9 * first[k] + 0.1 * grads[k] for k in params}
    second = {k: 0.999 * second[k] + 0.001 * grads[k] ** 2 for k in params}
    correction = paddle.sqrt(1 - 0.999 ** step) / (1 - 0.9 ** step)
    params = {k: params[k] - lr * correction * first[k] / (paddle.sqrt(second[k]) + 1e-8) for k in params}
    return loss, params, (first, second)


def accuracy(params, adjacency, features, labels, mask):
    predicted = gcn(params, adjacency, features).argmax(axis=-1).numpy()
    keep = mask.numpy()
    return float((predicted[keep] == labels.numpy()[keep]).mean())


def train(params, adjacency, features, labels, mask, steps, report):
    moments = ({k: paddle.zeros_like(v) for k, v in params.items()},
               {k: paddle.zeros_like(v) for k, v in params.items()})
    for step in range(1, steps + 1):
        loss, params, moments = train_step(params, moments, paddle.to_tensor(float(step)), adjacency, features,
                                           labels, mask)
        if report and (step == 1 or step % max(steps // 5, 1) == 0):
            print(f"step {step}: loss {float(loss):.4f}")
    return params


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    adjacency, features, labels, labelled = synthetic_graph(args.nodes, rng)
    print(f"graph: {args.nodes} nodes, {adjacency.nnz()} stored entries "
          f"({adjacency.nnz() / args.nodes ** 2:.2%} dense), {int(labelled.numpy().sum())} labelled")
    start = init_params(rng)
    params = train(start, adjacency, features, labels, labelled, args.steps, report=True)
    print(f"test accuracy: {accuracy(params, adjacency, features, labels, ~labelled):.3f}")
    no_edges = paddle.eye(args.nodes).to_sparse_csr()
    params = train(start, no_edges, features, labels, labelled, args.steps, report=False)
    print(f"test accuracy without the edges: {accuracy(params, no_edges, features, labels, ~labelled):.3f}")


if __name__ == "__main__":
    main()
