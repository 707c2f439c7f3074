"""JAX's pseudorandom numbers tutorial, ported: explicit keys, split, and the same draws as JAX for the same key."""
import paddle_fn as paddle
from paddle_fn import random


def cells(reduced: bool = True) -> dict:
    key = random.key(42)
    out = {"key": key, "normal_1": random.normal(key, ()), "normal_again": random.normal(key, ())}
    key, subkey = random.split(key)
    out["split"] = paddle.stack([key, subkey])
    out["normal_subkey"] = random.normal(subkey, ())
    out["uniform_3"] = random.uniform(random.key(0), (3,))
    out["split_3"] = random.split(random.key(0), 3)
    out["randint"] = random.randint(random.key(1), (5,), 0, 10)
    out["permutation"] = random.permutation(random.key(2), 6)
    out["fold_in"] = random.fold_in(random.key(0), 7)
    return out


if __name__ == "__main__":
    from common import show
    show("random_tutorial", cells(reduced=True))  # the form record_jax.py recorded
