"""Every docstring example of Paddle 3.3's paddle.distribution runs on paddle_fn and prints Paddle's numbers.

tests/data/paddle_distribution_examples.json holds the examples and what each printed value was under paddle 3.3.1
(recorded by tests/data/gen_paddle_distribution_examples.py). Deterministic values must match; values that
depend on the random seed (marked ``random``) must match in shape and dtype.
"""
import json
import pathlib
import re
import warnings

import numpy as np
import pytest

import paddle_fn

EXAMPLES = json.loads((pathlib.Path(__file__).parent / "data" / "paddle_distribution_examples.json").read_text())


# Steps whose printed values are ill-conditioned, with the tolerance they get and why.
LOOSE = {
    # atanh(tanh(x)) for x up to 6: tanh(6) is 1 - 1.2e-5, so one float32 ulp of tanh (Paddle's differs from
    # numpy's and ours by 1-2 ulp there) moves atanh by 5e-3
    ("paddle.distribution.TanhTransform", "print(tanh.inverse(tanh.forward(x)))"): 1e-3,
    ("paddle.distribution.TanhTransform", "print(tanh.inverse_log_det_jacobian(tanh.forward(x)))"): 1e-3,
}


def _as_paddle_fn(source):
    source = re.sub(r"^import paddle$", "import paddle_fn as paddle", source, flags=re.M)
    return re.sub(r"^from paddle\.", "from paddle_fn.", source, flags=re.M)


def _check(got, want, where, random=False, rtol=2e-5):
    random = want.get("random", random)
    if "items" in want:
        assert isinstance(got, tuple) and len(got) == len(want["items"]), where
        for g, w in zip(got, want["items"]):
            _check(g, w, where, random, rtol)
    elif "values" in want:
        assert isinstance(got, paddle_fn.Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
        assert list(got.shape) == want["shape"], f"{where}: shape {got.shape}, Paddle's {want['shape']}"
        assert got.dtype.name == want["dtype"], f"{where}: dtype {got.dtype.name}, Paddle's {want['dtype']}"
        values = np.asarray(got.numpy(), np.float64).ravel()
        if random:  # a draw (its distribution is tested in test_distribution.py): finite where Paddle's were
            if np.isfinite(want["values"]).all():
                assert np.isfinite(values).all(), f"{where}: non-finite draws {values}"
        else:
            np.testing.assert_allclose(values, want["values"], rtol=rtol,
                                       atol=1e-6, equal_nan=True, err_msg=where)
    elif "shape_value" in want:
        assert [int(d) for d in got] == want["shape_value"], f"{where}: {list(got)}, Paddle's {want['shape_value']}"
    elif "number" in want:
        assert float(got) == pytest.approx(want["number"], rel=2e-5), where
    elif "repr" in want:
        assert repr(got) == want["repr"], where


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"].removeprefix("paddle.distribution.") for e in EXAMPLES])
def test_paddle_docstring_example(example):
    scope = {}
    paddle_fn.seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in example["steps"]:
            source = _as_paddle_fn(step["source"])
            if step["print"] is None:
                exec(source, scope)
            else:
                rtol = LOOSE.get((example["name"], step["source"]), 2e-5)
                _check(eval(_as_paddle_fn(step["print"]), scope), step, f"{example['name']}: {step['source']}",
                       rtol=rtol)


def test_all_examples_recorded():
    # Paddle 3.3 documents 70 example blocks across paddle.distribution's classes, methods and functions
    assert len(EXAMPLES) == 70
