"""integer_pow multiplies out (binary exponentiation, XLA's and JAX's order of products) eagerly as its lowering
does, so ``x ** 3`` has the same bits eagerly and compiled (numpy's power rounds once and differs)."""
import numpy as np

import paddle_fn as paddle
from paddle_fn.prims import elementwise as el


def test_eager_and_compiled_integer_powers_have_the_same_bits():
    x = paddle.to_tensor(np.random.default_rng(0).uniform(0.5, 3.0, 5000).astype(np.float32))
    for y in (3, 5, 7, -3):
        eager = el.integer_pow(x, y=y).numpy()
        np.testing.assert_array_equal(eager, paddle.jit(lambda v: el.integer_pow(v, y=y))(x).numpy(), err_msg=str(y))
    cube = (x.numpy() * x.numpy()) * x.numpy()
    np.testing.assert_array_equal(el.integer_pow(x, y=3).numpy(), cube)
    assert (np.power(x.numpy(), np.float32(3)) != cube).any()  # what the eager power gave before
    np.testing.assert_array_equal(el.integer_pow(paddle.to_tensor([2, 3]), y=0).numpy(), [1, 1])
