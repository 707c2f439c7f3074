"""Scaled dot-product attention (`paddle.nn.functional.scaled_dot_product_attention`, and
`flash_attn_qkvpacked` over packed query/key/value), as Paddle 3.3.1's "math" backend (its CPU path) computes it,
with Paddle's ``[batch_size, seq_len, num_heads, head_dim]`` layout."""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.tensor.creation import full
from paddle_fn.tensor.linalg import matmul
from paddle_fn.tensor.manipulation import expand, transpose, where
from paddle_fn.tensor.promotion import as_tensor
from paddle_fn.nn.functional.activation import softmax
from paddle_fn.nn.functional.common import dropout

__all__ = ["flash_attn_qkvpacked", "scaled_dot_product_attention"]

# Paddle's CPU causal path adds -1e4 above the diagonal (get_triangle_upper_mask) rather than -inf.
_CAUSAL_FILL = -1e4


def _repeat_heads(x, repeats):
    """``[b, s, h, d]`` -> ``[b, s, h * repeats, d]``, each head repeated `repeats` times in place (GQA)."""
    if repeats == 1:
        return x
    b, s, h, d = x.shape
    return expand(x.unsqueeze(3), [b, s, h, repeats, d]).reshape([b, s, h * repeats, d])


def _math_attention(query, key, value, attn_mask, dropout_p, is_causal, training, scale):
    """(output [b, s, h, d_v], the attention weights after dropout [b, h, s, s_k]) of 4-D query/key/value with
    as many key/value heads as query heads."""
    head_dim = query.shape[-1]
    scale = scale or (head_dim ** -0.5 if head_dim else 1.0)
    q, k, v = (transpose(x, [0, 2, 1, 3]) for x in (query, key, value))
    product = matmul(q * scale, k, transpose_y=True)
    if is_causal:
        rows, cols = product.shape[-2:]
        tri = np.triu(np.full((rows, cols), _CAUSAL_FILL), 1)
        product = product + as_tensor(tri).astype(product.dtype)
    elif attn_mask is not None:
        attn_mask = as_tensor(attn_mask)
        if attn_mask.dtype == dtypes.bool_:
            attn_mask = where(attn_mask, full([], 0.0, dtype=product.dtype),
                              full([], -np.inf, dtype=product.dtype))
        product = product + attn_mask
    weights = softmax(product)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    return transpose(matmul(weights, v), [0, 2, 1, 3]), weights


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, training=True,
                                 backend=None, scale=None, enable_gqa=True, name=None):
    """``softmax(q k^T * scale + attn_mask) v`` per head.

    Args:
        query (Tensor): ``[batch_size, seq_len, num_heads, head_dim]`` (or without the batch axis).
        key (Tensor): ``[batch_size, seq_len_k, num_heads_k, head_dim]``.
        value (Tensor): ``[batch_size, seq_len_k, num_heads_k, head_dim_v]``.
        attn_mask (Tensor, optional): broadcastable to ``[batch_size, num_heads, seq_len, seq_len_k]``; a float
            mask is added to the scores, a bool mask keeps the True positions (False becomes -inf).
        dropout_p (float, optional): dropout on the attention weights when `training`. Default: 0.
        is_causal (bool, optional): position i attends to positions <= i (a -1e4 bias above the diagonal, as
            Paddle's CPU path). Default: False.
        training (bool, optional): apply dropout. Default: True.
        backend (str, optional): None or 'math' (the only backend here).
        scale (float, optional): the score scale. Default: ``1 / sqrt(head_dim)``.
        enable_gqa (bool, optional): allow fewer key/value heads than query heads (grouped-query attention;
            each key/value head serves ``num_heads / num_heads_k`` query heads). Default: True.
        name (str, optional): unused.

    Returns:
        Tensor: ``[batch_size, seq_len, num_heads, head_dim_v]``.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> q = paddle.ones([1, 2, 1, 4])
        >>> v = paddle.to_tensor([[[[1.0, 0, 0, 0]], [[0, 1.0, 0, 0]]]])
        >>> F.scaled_dot_product_attention(q, q, v).numpy()[0, :, 0]
        array([[0.5, 0.5, 0. , 0. ],
               [0.5, 0.5, 0. , 0. ]], dtype=float32)
        >>> F.scaled_dot_product_attention(q, q, v, is_causal=True).numpy()[0, :, 0]   # exp(-64)-small, as Paddle
        array([[1.0000000e+00, 1.6038108e-28, 0.0000000e+00, 0.0000000e+00],
               [5.0000000e-01, 5.0000000e-01, 0.0000000e+00, 0.0000000e+00]],
              dtype=float32)
    """
    if backend not in (None, "math"):
        raise NotImplementedError(f"scaled_dot_product_attention: backend={backend!r} is not available; only the "
                                  "'math' backend (backend=None) is")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: pass either attn_mask or is_causal=True, not both (Paddle's "
                         "CPU path would drop attn_mask); fold the causal mask into attn_mask instead")
    query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)
    batched = query.ndim == 4
    if not batched:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise ShapeError(f"scaled_dot_product_attention: query, key and value must be [batch_size, seq_len, "
                         f"num_heads, head_dim] (or without batch_size), got {query.shape}, {key.shape}, "
                         f"{value.shape}")
    q_heads, k_heads, v_heads = query.shape[2], key.shape[2], value.shape[2]
    if k_heads != v_heads or (q_heads != k_heads and (not enable_gqa or q_heads % k_heads)):
        raise ShapeError(f"scaled_dot_product_attention: key and value must have the same number of heads, and "
                         f"query's ({q_heads}) must equal it or (with enable_gqa) be a multiple of it; got key "
                         f"{k_heads}, value {v_heads}")
    key, value = _repeat_heads(key, q_heads // k_heads), _repeat_heads(value, q_heads // k_heads)
    out, _ = _math_attention(query, key, value, attn_mask, dropout_p, is_causal, training, scale)
    return out if batched else out.squeeze(0)


def flash_attn_qkvpacked(qkv, dropout=0.0, causal=False, return_softmax=False, *, fixed_seed_offset=None,
                         rng_name="", training=True, name=None):
    """Attention over a packed ``qkv`` of shape ``[batch_size, seq_len, num_heads / num_heads_k + 2, num_heads_k,
    head_dim]`` (the query heads grouped per key/value head, then the key, then the value), computed as Paddle's
    CPU path does (its "math" attention: ``softmax(q k^T / sqrt(head_dim))``, then dropout of the weights when
    `training`). Returns ``(out [batch_size, seq_len, num_heads, head_dim], the weights [batch_size, num_heads,
    seq_len, seq_len] or None)``; `return_softmax` asks for the weights. `fixed_seed_offset` and `rng_name`
    (CUDA generator options) are not supported; dropout draws from the global RNG.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> q = paddle.to_tensor([[[[1.0, 0.0]], [[0.0, 1.0]]]])   # [1, 2, 1, 2]
        >>> out, weights = F.flash_attn_qkvpacked(paddle.stack([q, q, q], axis=2), return_softmax=True)
        >>> weights.numpy()[0, 0]
        array([[0.66976154, 0.33023846],
               [0.33023846, 0.66976154]], dtype=float32)
    """
    if fixed_seed_offset is not None or rng_name:
        raise NotImplementedError("flash_attn_qkvpacked: fixed_seed_offset and rng_name select CUDA generator "
                                  "state, which paddle_fn does not have; leave them unset")
    qkv = as_tensor(qkv)
    if qkv.ndim != 5 or qkv.shape[2] < 3:
        raise ShapeError(f"flash_attn_qkvpacked: qkv must be [batch_size, seq_len, num_heads / num_heads_k + 2, "
                         f"num_heads_k, head_dim], got shape {qkv.shape}")
    batch, seq, groups, kv_heads, head_dim = qkv.shape
    query = qkv[:, :, :-2].reshape([batch, seq, (groups - 2) * kv_heads, head_dim])
    key, value = (_repeat_heads(qkv[:, :, i], groups - 2) for i in (-2, -1))
    out, weights = _math_attention(query, key, value, None, dropout, causal, training, None)
    return out, (weights if return_softmax else None)
