"""``paddle.distributed.fleet.utils``: `recompute`, Paddle's activation recomputation, on `paddle_fn.checkpoint`."""
from paddle_fn.prims.remat import checkpoint


def recompute(function, *args, preserve_rng_state=True, use_reentrant=True, **kwargs):
    """``function(*args, **kwargs)`` whose intermediate activations are recomputed in the backward pass instead of
    kept (Paddle's ``fleet.utils.recompute``). `function` may be a Layer: its parameters get their gradients.
    Works with ``loss.backward()`` and inside the functional transforms.

    The recomputation replays the program traced in the forward pass, random draws (dropout masks) included, so
    the RNG state is always preserved (``preserve_rng_state`` has nothing to switch off), and ``use_reentrant``
    picks between two implementations of Paddle's that give the same gradients; both are accepted.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.distributed.fleet.utils import recompute
        >>> layer = paddle.nn.Linear(3, 2)
        >>> x = paddle.ones([4, 3])
        >>> recompute(layer, x).sum().backward()
        >>> layer.weight.grad.shape
        [3, 2]
    """
    if not isinstance(preserve_rng_state, bool) or not isinstance(use_reentrant, bool):
        raise TypeError("recompute: preserve_rng_state and use_reentrant must be bools")
    return checkpoint(lambda *a: function(*a, **kwargs))(*args)
