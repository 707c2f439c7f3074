"""NAdam, RAdam, Rprop and ASGD (Paddle 3.3): twelve steps on a small problem land where paddlepaddle 3.3.1 lands (its
values recorded below, float64 on CPU), the state_dict has Paddle's names and shapes, a checkpoint round-trips,
and the pure forms run under jit."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.nn_compat.optimizer.asgd import asgd
from paddle_fn.nn_compat.optimizer.nadam import nadam

W0 = [[0.5, -1.2, 2.0], [0.3, 0.0, -0.7]]
TARGET = [[1.0, 1.0, -1.0], [0.0, 2.0, 0.5]]
CASES = {
    "NAdam": dict(learning_rate=0.1),
    "NAdam_wd": dict(learning_rate=0.1, weight_decay=0.1, momentum_decay=0.01, beta1=0.8),
    "RAdam": dict(learning_rate=0.1),
    "RAdam_wd": dict(learning_rate=0.05, weight_decay=0.01, beta2=0.9),
    "Rprop": dict(learning_rate=0.1),
    "Rprop_etas": dict(learning_rate=0.2, learning_rate_range=(0.05, 0.3), etas=(0.3, 1.5)),
    "ASGD": dict(learning_rate=0.1, batch_num=3),
    "ASGD_wd": dict(learning_rate=0.05, batch_num=2, weight_decay=0.1),
}
# paddlepaddle 3.3.1, float64, the parameters after the 12 steps of _train
PADDLE = {
    "NAdam": [[-0.5515179433548487, -0.7230803011317745, 1.04244207415264],
              [-0.7843218425504598, 0.7288947417644732, -0.15471016052408576]],
    "NAdam_wd": [[-0.748191113005285, -0.6931376104653729, 0.9286557679415154],
                 [-0.8685157789107859, 0.7821392702566815, -0.13761371933260566]],
    "RAdam": [[0.441317466803889, 0.05838853318931789, -1.0782847698766773],
              [-0.17567369695202908, 1.9144195162747326, 0.6585170381274135]],
    "RAdam_wd": [[0.35975721899277524, -0.41539852168326735, 0.031868972269024354],
                 [-0.09678891846571237, 1.3447330921853557, 0.22419913786269355]],
    "Rprop": [[-0.6979341055999998, -1.1328621055999997, -1.9580502241279993],
              [-1.1309363199999998, 0.8735526399999999, -0.37487308799999997]],
    "Rprop_etas": [[-1.5875000000000001, -1.1275, -1.5000000000000002],
                   [-1.0693750000000002, 1.03325, -0.23749999999999996]],
    "ASGD": [[-0.6585771985959973, -0.482035910899391, -1.6427488804242587],
             [-0.9008145552475183, 1.0026120256812407, -0.2246777220120082]],
    "ASGD_wd": [[-0.1899438588568866, -0.598212303781553, -1.019284250461037],
                [-0.5839537013601127, 1.060532535645927, -0.09579821297004379]],
}


def _train(opt, w, dtype, steps):
    scale = paddle.to_tensor(np.arange(1, 7).reshape(2, 3) / 3.0, dtype=dtype)
    target = paddle.to_tensor(TARGET, dtype=dtype)
    for step in range(steps):
        loss = ((w - target) ** 2 * scale).sum() + (w ** 4).sum() * 0.1 + (w * step).sum() * 0.3
        loss.backward()
        opt.step()
        opt.clear_grad()


def _make(case, dtype="float64"):
    w = paddle.create_parameter([2, 3], dtype, default_initializer=paddle.nn.initializer.Assign(np.array(W0)))
    return w, getattr(paddle.optimizer, case.split("_")[0])(parameters=[w], **CASES[case])


@pytest.mark.parametrize("case", sorted(CASES))
def test_twelve_steps_land_where_paddle_lands(case):
    w, opt = _make(case)
    _train(opt, w, "float64", 12)
    np.testing.assert_allclose(w.numpy(), PADDLE[case], rtol=1e-13, atol=1e-15)


def test_state_dict_names_shapes_and_round_trip():
    w, opt = _make("ASGD")
    _train(opt, w, "float64", 2)
    state = opt.state_dict()
    name = w.name
    assert {k: v.shape for k, v in state.items()} == {f"{name}_d_0": [2, 3], f"{name}_y_0": [3, 2, 3],
                                                      f"{name}_m_0": [1]}
    assert state[f"{name}_m_0"].dtype == paddle.int64 and state[f"{name}_m_0"].tolist() == [2]
    for case, accumulators in (("NAdam", ["momentum_decay_pow", "beta2_pow", "mu_product", "moment1", "moment2"]),
                               ("RAdam", ["beta1_pow", "beta2_pow", "rho", "moment1", "moment2"]),
                               ("Rprop", ["prevs", "learning_rates"])):
        w, opt = _make(case)
        _train(opt, w, "float64", 5)
        state = opt.state_dict()
        assert [k[len(w.name) + 1:-2] for k in state] == accumulators
        w2, opt2 = _make(case)
        w2.set_value(w)
        opt2.set_state_dict({k.replace(w.name, w2.name): v for k, v in state.items()})
        _train(opt2, w2, "float64", 3)  # first: state_dict() hands out the live accumulators, as Paddle's does
        _train(opt, w, "float64", 3)
        np.testing.assert_array_equal(w2.numpy(), w.numpy())


def test_pure_forms_under_jit_and_arguments():
    opt = nadam(learning_rate=0.05)
    params = {"w": paddle.to_tensor(np.array(W0))}

    def step(p, s, g):
        return opt.update(g, s, p)

    grads = {"w": paddle.to_tensor(np.array(TARGET))}
    eager, state = step(params, opt.init(params), grads)
    jitted, jstate = paddle.jit(step)(params, opt.init(params), grads)
    np.testing.assert_allclose(jitted["w"].numpy(), eager["w"].numpy(), rtol=1e-14)
    sag = asgd(learning_rate=0.1, batch_num=2)
    w = paddle.to_tensor([1.0])
    state = sag.init(w)
    for g in ([1.0], [3.0], [5.0]):
        w, state = paddle.jit(sag.update)(paddle.to_tensor(g), state, w)
    np.testing.assert_allclose(w.numpy(), [0.3], rtol=1e-6)
    with pytest.raises(ValueError, match=r"Invalid beta1: 1.0, expect 0. <= beta1 < 1.0."):
        paddle.optimizer.NAdam(beta1=1.0, parameters=[paddle.nn.Parameter(paddle.ones([1]))])
    with pytest.raises(ValueError, match="learning_rate_range"):
        paddle.optimizer.Rprop(learning_rate=100.0, parameters=[paddle.nn.Parameter(paddle.ones([1]))])
    with pytest.raises(ValueError, match="batch_num should be greater than 0"):
        paddle.optimizer.ASGD(batch_num=0, parameters=[paddle.nn.Parameter(paddle.ones([1]))])
