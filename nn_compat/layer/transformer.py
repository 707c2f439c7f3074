"""Attention and Transformer layers (`paddle.nn.layer.transformer`): `MultiHeadAttention` with its incremental
decoding caches, `TransformerEncoderLayer` / `TransformerEncoder`, `TransformerDecoderLayer` /
`TransformerDecoder` and `Transformer`.

Attention masks follow Paddle: a float mask is added to the attention scores; a bool or integer mask is
converted to ``(mask - 1) * 1e9``, so True / 1 keeps a position and False / 0 hides it. The mask broadcasts to
``[batch_size, num_heads, query_len, key_len]``.
"""
from __future__ import annotations

import collections
import copy

import numpy as np

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.common import Dropout, Linear
from paddle_fn.nn_compat.layer.container import LayerList
from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.nn_compat.layer.norm import LayerNorm
from paddle_fn.base.param_attr import ParamAttr

__all__ = ["MultiHeadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerEncoderLayer"]


def _convert_param_attr_to_list(param_attr, n):
    """One attr per sub-block: a list/tuple gives them one by one (True: default, False: none); a single attr is
    copied n times, a named one gets ``_0``, ``_1``... suffixes so the names stay unique."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise ValueError(f"length of param_attr should be {n} when it is a list/tuple, got {len(param_attr)}")
        return [ParamAttr._to_attr(None) if a is True else (False if a is False else ParamAttr._to_attr(a))
                for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) for _ in range(n)] if param_attr else [False] * n
    attr = ParamAttr._to_attr(param_attr)
    attrs = []
    for i in range(n):
        attr_i = copy.deepcopy(attr)
        if attr is not None and attr.name:
            attr_i.name = f"{attr_i.name}_{i}"
        attrs.append(attr_i)
    return attrs


def _convert_attention_mask(attn_mask, dtype):
    """A bool/int mask becomes an additive float mask, ``(mask - 1) * 1e9``; a float mask is cast to `dtype`."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    if attn_mask.dtype == paddle_fn.bool or "int" in str(attn_mask.dtype):
        return (attn_mask.astype(dtype) - 1.0) * 1e9
    return attn_mask.astype(dtype)


def _check_positive(cls, **sizes):
    for what, n in sizes.items():
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise ValueError(f"{cls}: expected {what} to be greater than 0, but received {n!r}")


class MultiHeadAttention(Layer):
    """Multi-head attention: ``softmax(q k^T / sqrt(head_dim) + attn_mask) v`` per head over projected query,
    key and value, then an output projection.

    Args:
        embed_dim (int): the query's (and output's) feature size.
        num_heads (int): the number of heads; must divide embed_dim.
        dropout (float, optional): dropout on the attention weights (training only). Default: 0.
        kdim (int, optional): the key's feature size. Default: embed_dim.
        vdim (int, optional): the value's feature size. Default: embed_dim.
        need_weights (bool, optional): also return the attention weights. Default: False.
        weight_attr (ParamAttr, optional): the projections' weight attributes.
        bias_attr (ParamAttr|bool, optional): the projections' bias attributes; False: no biases.

    Forward: ``mha(query, key=None, value=None, attn_mask=None, cache=None)`` with query ``[batch_size,
    query_len, embed_dim]`` (key and value default to query). It returns the output, or a tuple ``(output,
    weights?, cache?)`` when `need_weights` is set or a cache is given. A `Cache` (from
    ``gen_cache(key)``) gains this step's keys and values (incremental decoding); a `StaticCache` (from
    ``gen_cache(key, value, type=MultiHeadAttention.StaticCache)``) holds precomputed keys and values.

    Example:
        >>> import paddle_fn as paddle
        >>> mha = paddle.nn.MultiHeadAttention(8, 2)
        >>> query = paddle.rand([2, 4, 8])
        >>> mask = paddle.rand([2, 2, 4, 4])
        >>> mha(query, query, query, mask).shape
        paddle.Size([2, 4, 8])
        >>> out, cache = mha(query[:, :1], cache=mha.gen_cache(query))
        >>> cache.k.shape  # [batch_size, num_heads, steps so far, head_dim]
        paddle.Size([2, 2, 1, 4])
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False,
                 weight_attr=None, bias_attr=None):
        super().__init__()
        _check_positive("MultiHeadAttention", embed_dim=embed_dim, num_heads=num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim must be divisible by num_heads, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads}")
        self.embed_dim, self.num_heads, self.dropout, self.need_weights = embed_dim, num_heads, dropout, need_weights
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self.head_dim = embed_dim // num_heads
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        """``[batch, len, embed_dim]`` -> ``[batch, num_heads, len, head_dim]``."""
        return paddle_fn.transpose(paddle_fn.reshape(x, [0, 0, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Project `key` and `value` and split them into heads: two ``[batch_size, num_heads, len, head_dim]``
        Tensors.

        Example:
            >>> import paddle_fn as paddle
            >>> k, v = paddle.nn.MultiHeadAttention(8, 2).compute_kv(paddle.rand([3, 5, 8]), paddle.rand([3, 5, 8]))
            >>> k.shape
            paddle.Size([3, 2, 5, 4])
        """
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002 - Paddle's argument name
        """Build a cache. ``type=MultiHeadAttention.StaticCache``: the projected `key`/`value` (for attention
        over a fixed memory); ``type=Cache`` with no value: an empty cache ``[batch_size, num_heads, 0,
        head_dim]`` that each call extends; with `value`: ``Cache(key, value)`` as given.

        Example:
            >>> import paddle_fn as paddle
            >>> mha = paddle.nn.MultiHeadAttention(8, 2)
            >>> mha.gen_cache(paddle.rand([3, 5, 8])).k.shape
            paddle.Size([3, 2, 0, 4])
            >>> mha.gen_cache(paddle.rand([3, 5, 8]), paddle.rand([3, 5, 8]), type=mha.StaticCache).v.shape
            paddle.Size([3, 2, 5, 4])
        """
        if type == MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            empty = paddle_fn.zeros([key.shape[0], self.num_heads, 0, self.head_dim], dtype=key.dtype)
            return self.Cache(empty, empty)
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        for what, x, size in (("query", query, self.embed_dim), ("key", key, self.kdim), ("value", value, self.vdim)):
            if x.ndim != 3 or x.shape[-1] != size:
                raise ValueError(f"MultiHeadAttention: {what} must be [batch_size, length, {size}], got {x.shape}")
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k, v = paddle_fn.concat([cache.k, k], axis=2), paddle_fn.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        product = paddle_fn.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        out = paddle_fn.transpose(paddle_fn.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(paddle_fn.reshape(out, [0, 0, self.embed_dim]))
        outs = [out] + ([weights] if self.need_weights else []) + ([cache] if cache is not None else [])
        return out if len(outs) == 1 else tuple(outs)


def _activation(name):
    fn = getattr(F, name, None)
    if not callable(fn):
        raise ValueError(f"Unknown activation '{name}': pass the name of a paddle.nn.functional activation "
                         "('relu', 'gelu', ...)")
    return fn


class TransformerEncoderLayer(Layer):
    """One encoder layer: self-attention then a feed-forward block (linear1, activation, linear2), each with a
    residual connection and LayerNorm, after the block (post-norm) or, with `normalize_before`, before it.

    Args:
        d_model (int): the feature size of inputs and outputs.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the feed-forward block's hidden size.
        dropout (float, optional): dropout after each block. Default: 0.1.
        activation (str, optional): the feed-forward activation (a `paddle.nn.functional` name). Default: 'relu'.
        attn_dropout (float, optional): dropout on attention weights. Default: `dropout`.
        act_dropout (float, optional): dropout after the activation. Default: `dropout`.
        normalize_before (bool, optional): pre-norm instead of post-norm. Default: False.
        weight_attr (ParamAttr|list, optional): weight attributes; a list of 2 gives the attention's and the
            feed-forward's separately.
        bias_attr (ParamAttr|bool|list, optional): bias attributes, likewise.
        layer_norm_eps (float, optional): the LayerNorms' epsilon. Default: 1e-5.

    Forward: ``layer(src, src_mask=None, cache=None)``; with a cache (``gen_cache(src)``) it returns
    ``(output, new_cache)``.

    Example:
        >>> import paddle_fn as paddle
        >>> layer = paddle.nn.TransformerEncoderLayer(128, 2, 512)
        >>> layer(paddle.rand([2, 4, 128]), paddle.rand([2, 2, 4, 4])).shape
        paddle.Size([2, 4, 128])
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        _check_positive("TransformerEncoderLayer", d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 2)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, incremental_cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, incremental_cache)

    def gen_cache(self, src):
        """An empty incremental `MultiHeadAttention.Cache` for the self-attention.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.TransformerEncoderLayer(8, 2, 16).gen_cache(paddle.rand([3, 1, 8])).k.shape
            paddle.Size([3, 2, 0, 4])
        """
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """A stack of `num_layers` encoder layers: the first is `encoder_layer`, the others are new layers built with
    its configuration (their own parameters); then the optional `norm`.

    Args:
        encoder_layer (TransformerEncoderLayer): the first layer, whose arguments configure the others.
        num_layers (int): the number of layers.
        norm (LayerNorm, optional): applied to the last layer's output.

    Example:
        >>> import paddle_fn as paddle
        >>> encoder = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(128, 2, 512), 2)
        >>> encoder(paddle.rand([2, 4, 128]), paddle.rand([2, 2, 4, 4])).shape
        paddle.Size([2, 4, 128])
        >>> len(encoder.layers), encoder.layers[0] is not encoder.layers[1]
        (2, True)
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        _check_positive("TransformerEncoder", num_layers=num_layers)
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output, new_caches = src, []
        for i, mod in enumerate(self.layers):
            if cache is None:
                output = mod(output, src_mask=src_mask)
            else:
                output, new_cache = mod(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        """One empty incremental cache per layer.

        Example:
            >>> import paddle_fn as paddle
            >>> enc = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(8, 2, 16), 3)
            >>> len(enc.gen_cache(paddle.rand([1, 1, 8])))
            3
        """
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """One decoder layer: masked self-attention, cross-attention over the encoder's `memory`, then the
    feed-forward block; each with a residual connection and LayerNorm (post-norm, or pre-norm with
    `normalize_before`).

    Args:
        d_model (int): the feature size.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the feed-forward block's hidden size.
        dropout (float, optional): Default: 0.1.
        activation (str, optional): Default: 'relu'.
        attn_dropout (float, optional): Default: `dropout`.
        act_dropout (float, optional): Default: `dropout`.
        normalize_before (bool, optional): Default: False.
        weight_attr (ParamAttr|list, optional): a list of 3 gives self-attention, cross-attention and
            feed-forward attributes separately.
        bias_attr (ParamAttr|bool|list, optional): likewise.
        layer_norm_eps (float, optional): Default: 1e-5.

    Forward: ``layer(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``; with a cache (``gen_cache(
    memory)``: an incremental `Cache` and a `StaticCache` of the memory) it returns ``(output, new_cache)``.

    Example:
        >>> import paddle_fn as paddle
        >>> layer = paddle.nn.TransformerDecoderLayer(128, 2, 512)
        >>> layer(paddle.rand([2, 4, 128]), paddle.rand([2, 6, 128]), paddle.rand([2, 2, 4, 4]),
        ...       paddle.rand([2, 2, 4, 6])).shape
        paddle.Size([2, 4, 128])
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        _check_positive("TransformerDecoderLayer", d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 3)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[1],
                                             bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        """``(Cache, StaticCache)``: an empty incremental cache for the self-attention and the projected memory
        for the cross-attention.

        Example:
            >>> import paddle_fn as paddle
            >>> inc, static = paddle.nn.TransformerDecoderLayer(8, 2, 16).gen_cache(paddle.rand([3, 5, 8]))
            >>> inc.k.shape, static.k.shape
            (paddle.Size([3, 2, 0, 4]), paddle.Size([3, 2, 5, 4]))
        """
        return (self.self_attn.gen_cache(memory, type=self.self_attn.Cache),
                self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache))


class TransformerDecoder(Layer):
    """A stack of `num_layers` decoder layers (the first is `decoder_layer`, the others new ones with its
    configuration), then the optional `norm`.

    Args:
        decoder_layer (TransformerDecoderLayer): the first layer.
        num_layers (int): the number of layers.
        norm (LayerNorm, optional): applied to the output.

    Example:
        >>> import paddle_fn as paddle
        >>> decoder = paddle.nn.TransformerDecoder(paddle.nn.TransformerDecoderLayer(128, 2, 512), 2)
        >>> decoder(paddle.rand([2, 4, 128]), paddle.rand([2, 6, 128])).shape
        paddle.Size([2, 4, 128])
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        _check_positive("TransformerDecoder", num_layers=num_layers)
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        output, new_caches = tgt, []
        for i, mod in enumerate(self.layers):
            if cache is None:
                output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                output, new_cache = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        """One ``(Cache, StaticCache)`` per layer; with `do_zip`, a pair of tuples (all Caches, all
        StaticCaches) instead.

        Example:
            >>> import paddle_fn as paddle
            >>> dec = paddle.nn.TransformerDecoder(paddle.nn.TransformerDecoderLayer(8, 2, 16), 2)
            >>> len(dec.gen_cache(paddle.rand([1, 3, 8]))), len(dec.gen_cache(paddle.rand([1, 3, 8]), do_zip=True)[0])
            (2, 2)
        """
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attrs(attr, what):
    """Paddle's rule for Transformer's weight_attr / bias_attr lists: 1 entry for all, 2 (attention,
    feed-forward) or 3 (self-attention, cross-attention, feed-forward)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return attr, [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], attr
    raise ValueError(f"length of {what} should be 1 or 2 or 3 when it is a list/tuple, got {len(attr)}")


class Transformer(Layer):
    """The encoder-decoder Transformer of "Attention Is All You Need": a `TransformerEncoder` (with a final
    LayerNorm) over `src` and a `TransformerDecoder` (with a final LayerNorm) over `tgt` attending to the
    encoder's output.

    Args:
        d_model (int, optional): Default: 512.
        nhead (int, optional): Default: 8.
        num_encoder_layers (int, optional): Default: 6.
        num_decoder_layers (int, optional): Default: 6.
        dim_feedforward (int, optional): Default: 2048.
        dropout (float, optional): Default: 0.1.
        activation (str, optional): Default: 'relu'.
        attn_dropout (float, optional): Default: `dropout`.
        act_dropout (float, optional): Default: `dropout`.
        normalize_before (bool, optional): Default: False.
        weight_attr (ParamAttr|list, optional): one attr, or a list of 1, 2 or 3 (see the layers).
        bias_attr (ParamAttr|bool|list, optional): likewise.
        custom_encoder (Layer, optional): used instead of the built encoder.
        custom_decoder (Layer, optional): used instead of the built decoder.

    Forward: ``model(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None)``.

    Example:
        >>> import paddle_fn as paddle
        >>> model = paddle.nn.Transformer(128, 2, 2, 2, 512)
        >>> src, tgt = paddle.rand([2, 4, 128]), paddle.rand([2, 6, 128])
        >>> model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(6)).shape
        paddle.Size([2, 6, 128])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        _check_positive("Transformer", d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        encoder_bias_attr, decoder_bias_attr = _split_attrs(bias_attr, "bias_attr")
        encoder_weight_attr, decoder_weight_attr = _split_attrs(weight_attr, "weight_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, encoder_weight_attr, encoder_bias_attr)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, decoder_weight_attr, decoder_bias_attr)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """A ``[length, length]`` float mask, -inf above the diagonal and 0 elsewhere, so position i attends to
        positions <= i.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(3).numpy()
            array([[  0., -inf, -inf],
                   [  0.,   0., -inf],
                   [  0.,   0.,   0.]], dtype=float32)
        """
        length = int(length)
        return paddle_fn.to_tensor(np.triu(np.full([length, length], -np.inf), 1),
                                   dtype=paddle_fn.get_default_dtype())
