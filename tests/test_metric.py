"""paddle.metric against numpy and closed forms, and Paddle 3.3.1's printed values."""
import numpy as np
import pytest

import paddle_fn as paddle


def test_accuracy_topk_against_numpy():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(50, 7)).astype("float32")
    labels = rng.integers(0, 7, size=(50, 1))
    m = paddle.metric.Accuracy(topk=(1, 3))
    assert m.name() == ["acc_top1", "acc_top3"]
    got = m.update(m.compute(paddle.to_tensor(scores), paddle.to_tensor(labels)))
    ranks = np.argsort(-scores, axis=1)
    want = [float(np.mean([labels[i, 0] in ranks[i, :k] for i in range(50)])) for k in (1, 3)]
    np.testing.assert_allclose(got, want)
    # a second batch: accumulate is the running average over both
    m.update(m.compute(paddle.to_tensor(scores[:10]), paddle.to_tensor(labels[:10])))
    want10 = [float(np.mean([labels[i, 0] in ranks[i, :k] for i in range(10)])) for k in (1, 3)]
    np.testing.assert_allclose(m.accumulate(), [(50 * a + 10 * b) / 60 for a, b in zip(want, want10)])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]


def test_accuracy_label_forms():
    pred = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    m = paddle.metric.Accuracy()
    assert m.name() == ["acc"]
    assert m.update(m.compute(pred, paddle.to_tensor([1, 1, 1]))) == pytest.approx(2 / 3)         # [N]
    onehot = paddle.to_tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])                                # one-hot [N, C]
    assert m.update(m.compute(pred, onehot)) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="needs at least 5 classes"):
        paddle.metric.Accuracy(topk=(5,)).compute(pred, paddle.to_tensor([1, 1, 1]))
    with pytest.raises(ValueError, match="topk"):
        paddle.metric.Accuracy(topk=(0,))


def test_functional_accuracy_values_from_paddle():
    x = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    y = paddle.to_tensor([[1], [1], [1]])
    acc = paddle.metric.accuracy(x, y)
    assert acc.shape == [] and acc.dtype == paddle.float32
    assert float(acc) == pytest.approx(0.66666669)                        # Paddle 3.3.1
    assert float(paddle.metric.accuracy(x, y, k=2)) == 1.0
    correct, total = paddle.to_tensor([0], dtype="int32"), paddle.to_tensor([0], dtype="int32")
    paddle.metric.accuracy(x, paddle.to_tensor([[1], [1], [0]], dtype="int32"), correct=correct, total=total)
    assert int(correct) == 1 and int(total) == 3
    with pytest.raises(ValueError, match=r"label \[N, 1\]"):
        paddle.metric.accuracy(x, paddle.to_tensor([1, 1, 1]))
    with pytest.raises(TypeError, match="int32 or int64"):
        paddle.metric.accuracy(x, paddle.to_tensor([[1.0], [1.0], [1.0]]))


def test_precision_recall_against_numpy():
    rng = np.random.default_rng(1)
    preds = rng.random(200)
    labels = rng.integers(0, 2, size=200)
    p, r = paddle.metric.Precision(), paddle.metric.Recall()
    for lo in (0, 100):
        p.update(preds[lo:lo + 100], labels[lo:lo + 100])
        r.update(paddle.to_tensor(preds[lo:lo + 100].reshape(-1, 1)), paddle.to_tensor(labels[lo:lo + 100]))
    hard = preds >= 0.5
    assert p.accumulate() == pytest.approx(np.sum(hard & (labels == 1)) / np.sum(hard))
    assert r.accumulate() == pytest.approx(np.sum(hard & (labels == 1)) / np.sum(labels == 1))
    assert (p.name(), r.name()) == ("precision", "recall")
    p.reset(); r.reset()
    assert p.accumulate() == 0.0 and r.accumulate() == 0.0
    with pytest.raises(ValueError, match="numpy ndarray or Tensor"):
        p.update([0.5], [1])


def test_auc_equals_rank_statistic():
    rng = np.random.default_rng(2)
    # scores on the bucket grid, so the histogram loses nothing and the AUC is the Mann-Whitney statistic
    n = 4095
    pos = rng.integers(0, n + 1, size=300) / n
    neg = rng.integers(0, n + 1, size=400) / n
    scores = np.concatenate([pos, neg])
    labels = np.concatenate([np.ones(300), np.zeros(400)])
    m = paddle.metric.Auc()
    m.update(np.stack([1 - scores, scores], axis=1), labels)
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    assert m.accumulate() == pytest.approx(greater + 0.5 * ties)
    assert m.name() == "auc"
    m.reset()
    assert m.accumulate() == 0.0
    with pytest.raises(ValueError, match=r"\[N, 2\]"):
        m.update(scores, labels)
    with pytest.raises(NotImplementedError, match="PR"):
        paddle.metric.Auc(curve="PR")
