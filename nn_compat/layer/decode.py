"""Decoding with recurrent cells (`paddle.nn.decode`): the `Decoder` interface, `BeamSearchDecoder` and
`dynamic_decode`, which runs a decoder step by step until every sequence has finished.

`dynamic_decode` stops as soon as all sequences are finished, a condition that depends on the values computed,
so it runs eagerly (a Python loop over steps, as Paddle's dynamic-graph mode does); each step is ordinary Tensor
code and can be differentiated with the tape.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

import paddle_fn
import paddle_fn.nn.functional as F

__all__ = ["BeamSearchDecoder", "Decoder", "dynamic_decode"]

# The log-probability given to beams that must not be chosen (Paddle's kinf).
_KINF = 1e9


class Decoder:
    """The interface `dynamic_decode` drives: `initialize` gives the first inputs, states and finished flags;
    `step` maps ``(time, inputs, states)`` to ``(outputs, next_states, next_inputs, finished)``; `finalize`
    (optional) post-processes the stacked outputs. A decoder whose `tracks_own_finished` is True keeps its own
    finished flags and lengths (``next_states.lengths``).

    Example:
        >>> import paddle_fn as paddle
        >>> class CountDown(paddle.nn.decode.Decoder):
        ...     def initialize(self, inits):
        ...         return inits, inits, inits <= 0
        ...     def step(self, time, inputs, states, **kwargs):
        ...         nxt = states - 1
        ...         return nxt, nxt, nxt, nxt <= 0
        >>> outputs, states = paddle.nn.dynamic_decode(CountDown(), paddle.to_tensor([2, 3]))
        >>> outputs.numpy()
        array([[ 1,  0, -1],
               [ 2,  1,  0]])
    """

    def initialize(self, inits):
        """Return ``(initial_inputs, initial_states, finished)``."""
        raise NotImplementedError(f"{type(self).__name__}: define initialize(inits)")

    def step(self, time, inputs, states, **kwargs):
        """Return ``(outputs, next_states, next_inputs, finished)`` for step `time`."""
        raise NotImplementedError(f"{type(self).__name__}: define step(time, inputs, states, **kwargs)")

    def finalize(self, outputs, final_states, sequence_lengths):
        """Post-process the time-major stacked outputs; return ``(final_outputs, final_states)``."""
        raise NotImplementedError(f"{type(self).__name__} has no finalize")

    @property
    def tracks_own_finished(self):
        """Whether the decoder keeps its finished flags itself (dynamic_decode then leaves them alone)."""
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over a recurrent cell: at each step every beam's next-token log-probabilities are added to
    its score, the best `beam_size` (beam, token) pairs over all beams are kept, and a beam that produced
    `end_token` only extends with `end_token` at no cost afterwards.

    Args:
        cell (RNNCellBase): the cell; its states are ``[batch_size, ...]`` Tensors.
        start_token (int): the first input id.
        end_token (int): the id that ends a sequence.
        beam_size (int): the number of beams per batch item.
        embedding_fn (callable, optional): maps ids ``[batch_size, beam_size]`` to the cell's inputs.
        output_fn (callable, optional): maps the cell's outputs to logits over the vocabulary.

    Used with `dynamic_decode`, the outputs are the backtracked ids ``[batch_size, time, beam_size]`` (time
    first with ``output_time_major=True``) and the states a `StateWrapper` (cell_states, log_probs, finished,
    lengths), each ``[batch_size, beam_size, ...]``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(0)
        >>> trg_embedder = paddle.nn.Embedding(100, 32)
        >>> output_layer = paddle.nn.Linear(32, 100)
        >>> decoder_cell = paddle.nn.GRUCell(input_size=32, hidden_size=32)
        >>> decoder = paddle.nn.BeamSearchDecoder(decoder_cell, start_token=0, end_token=1, beam_size=4,
        ...                                       embedding_fn=trg_embedder, output_fn=output_layer)
        >>> encoder_output = paddle.ones((4, 8, 32))
        >>> outputs, states = paddle.nn.dynamic_decode(decoder=decoder, inits=decoder_cell.get_initial_states(
        ...     encoder_output), max_step_num=10)
        >>> outputs.shape[0], outputs.shape[2], states.log_probs.shape
        (4, 4, paddle.Size([4, 4]))
    """

    class OutputWrapper(NamedTuple):
        """One step's output: the kept scores, the chosen ids, and the beams they extend."""
        scores: object
        predicted_ids: object
        parent_ids: object

    class StateWrapper(NamedTuple):
        """The search state: the cell's states, the beams' log-probabilities, finished flags and lengths."""
        cell_states: object
        log_probs: object
        finished: object
        lengths: object

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size <= 0:
            raise ValueError(f"BeamSearchDecoder: beam_size must be a positive int, got {beam_size!r}")
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token, self.beam_size = start_token, end_token, beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """Repeat each batch entry `beam_size` times in place: ``[batch_size, ...]`` ->
        ``[batch_size * beam_size, ...]`` (e.g. the encoder output attention reads from).

        Example:
            >>> import paddle_fn as paddle
            >>> x = paddle.to_tensor([[1.0], [2.0]])
            >>> paddle.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy().ravel()
            array([1., 1., 2., 2.], dtype=float32)
        """
        tiled = paddle_fn.tile(x.unsqueeze(1), [1, beam_size] + [1] * (x.ndim - 1))
        return tiled.reshape([x.shape[0] * beam_size, *x.shape[1:]])

    def _expand_to_beam_size(self, x):
        return paddle_fn.tile(x.unsqueeze(1), [1, self.beam_size] + [1] * (x.ndim - 1))

    def _merge_batch_beams(self, x):
        return x.reshape([-1, *x.shape[2:]])

    def _split_batch_beams(self, x):
        return x.reshape([-1, self.beam_size, *x.shape[1:]])

    def _gather(self, x, indices):
        """``x[b, indices[b, k]]`` for x ``[batch_size, n, ...]`` and indices ``[batch_size, beam_size]``."""
        batch, n = x.shape[0], x.shape[1]
        flat = (paddle_fn.arange(batch, dtype=indices.dtype).unsqueeze(1) * n + indices).reshape([-1])
        return paddle_fn.gather(x.reshape([batch * n, *x.shape[2:]]), flat).reshape([batch, self.beam_size,
                                                                                     *x.shape[2:]])

    def initialize(self, initial_cell_states):
        """The start: every beam's input is `start_token`; only the first beam of each batch entry is live
        (log-probability 0, the others -1e9) so the first step does not pick duplicates.

        Args:
            initial_cell_states (Tensor|tuple): the cell's states ``[batch_size, ...]``.

        Returns:
            tuple: ``(initial_inputs, StateWrapper, finished)``.

        Example:
            >>> import paddle_fn as paddle
            >>> decoder = paddle.nn.BeamSearchDecoder(paddle.nn.GRUCell(4, 4), 0, 1, beam_size=3)
            >>> inputs, state, finished = decoder.initialize(paddle.zeros([2, 4]))
            >>> inputs.shape, state.cell_states.shape, state.log_probs.numpy()[0]
            (paddle.Size([2, 3]), paddle.Size([2, 3, 4]), array([ 0.e+00, -1.e+09, -1.e+09], dtype=float32))
        """
        batch = paddle_fn.tree_flatten(initial_cell_states)[0][0].shape[0]
        cell_states = paddle_fn.tree_map(self._expand_to_beam_size, initial_cell_states)
        inputs = paddle_fn.full([batch, self.beam_size], self.start_token, dtype="int64")
        dtype = "float64" if paddle_fn.get_default_dtype() == "float64" else "float32"
        first = np.array([[0.0] + [-_KINF] * (self.beam_size - 1)], dtype=dtype)
        log_probs = paddle_fn.to_tensor(np.tile(first, (batch, 1)))
        finished = paddle_fn.full([batch, self.beam_size], False, dtype="bool")
        lengths = paddle_fn.zeros_like(inputs)
        if self.embedding_fn is not None:
            inputs = self.embedding_fn(inputs)
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        step_log_probs = paddle_fn.log(F.softmax(logits))
        # A finished beam may only emit end_token, at no cost, so its score stays as it was.
        noend = [-_KINF] * vocab
        noend[self.end_token] = 0.0
        done = beam_state.finished.astype(step_log_probs.dtype).unsqueeze(2)
        step_log_probs = done * paddle_fn.to_tensor(noend, dtype=step_log_probs.dtype) + step_log_probs * (1 - done)
        log_probs = step_log_probs + beam_state.log_probs.unsqueeze(2)
        flat = log_probs.reshape([-1, self.beam_size * vocab])
        topk_scores, topk_indices = paddle_fn.topk(flat, k=self.beam_size)
        beam_indices = paddle_fn.floor_divide(topk_indices, paddle_fn.to_tensor(vocab, dtype=topk_indices.dtype))
        token_indices = paddle_fn.remainder(topk_indices, paddle_fn.to_tensor(vocab, dtype=topk_indices.dtype))
        next_log_probs = self._gather(flat.unsqueeze(2), topk_indices).squeeze(2)
        next_cell_states = paddle_fn.tree_map(lambda x: self._gather(x, beam_indices), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices)
        next_lengths = self._gather(beam_state.lengths, beam_indices)
        next_lengths = next_lengths + paddle_fn.logical_not(next_finished).astype(next_lengths.dtype)
        next_finished = paddle_fn.logical_or(next_finished, token_indices == self.end_token)
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        """One search step: run the cell on every beam, keep the best `beam_size` continuations.

        Args:
            time (Tensor): the step number.
            inputs (Tensor): ``[batch_size, beam_size, ...]`` the step's inputs.
            states (StateWrapper): the search state.
            **kwargs: passed to the cell.

        Returns:
            tuple: ``(OutputWrapper, StateWrapper, next_inputs, finished)``.

        Example:
            >>> import paddle_fn as paddle
            >>> cell = paddle.nn.GRUCell(4, 5)
            >>> decoder = paddle.nn.BeamSearchDecoder(cell, 0, 1, beam_size=2,
            ...                                       embedding_fn=paddle.nn.Embedding(5, 4))
            >>> inputs, state, _ = decoder.initialize(paddle.zeros([3, 5]))
            >>> out, state, inputs, finished = decoder.step(paddle.to_tensor(0), inputs, state)
            >>> out.predicted_ids.shape, inputs.shape
            (paddle.Size([3, 2]), paddle.Size([3, 2, 4]))
        """
        inputs = paddle_fn.tree_map(self._merge_batch_beams, inputs)
        cell_states = paddle_fn.tree_map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = paddle_fn.tree_map(self._split_batch_beams, cell_outputs)
        next_cell_states = paddle_fn.tree_map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids.detach()
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn is not None else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Backtrack the chosen ids through their parents (`paddle.nn.functional.gather_tree`).

        Args:
            outputs (OutputWrapper): the stacked step outputs, time first.
            final_states (StateWrapper): the last search state.
            sequence_lengths (Tensor): the lengths (unused by the backtracking).

        Returns:
            tuple: ``(predicted_ids [time, batch_size, beam_size], final_states)``.

        Example:
            >>> import paddle_fn as paddle
            >>> decoder = paddle.nn.BeamSearchDecoder(paddle.nn.GRUCell(4, 4), 0, 1, beam_size=2)
            >>> out = decoder.OutputWrapper(None, paddle.to_tensor([[[3, 4]], [[5, 6]]]),
            ...                             paddle.to_tensor([[[0, 0]], [[1, 0]]]))
            >>> decoder.finalize(out, None, None)[0].numpy()[:, 0]
            array([[4, 3],
                   [5, 6]])
        """
        predicted = F.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return predicted.astype(outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self):
        return True


def _keep_finished(state, new_state, finished):
    """The old state where a sequence had finished, the new one elsewhere."""
    keep = finished.reshape([-1] + [1] * (state.ndim - 1))
    return paddle_fn.where(keep, state, new_state)


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    """Run `decoder` step by step until every sequence is finished (or after step `max_step_num`).

    Args:
        decoder (Decoder): e.g. a `BeamSearchDecoder`.
        inits (object, optional): passed to ``decoder.initialize``.
        max_step_num (int, optional): stop after step number `max_step_num` (so at most max_step_num + 1
            steps, as in Paddle). Default: no limit.
        output_time_major (bool, optional): outputs ``[time, batch_size, ...]`` instead of batch first.
            Default: False.
        impute_finished (bool, optional): keep the states of finished sequences unchanged (for decoders that do
            not track their own finished flags). Default: False.
        is_test (bool, optional): Paddle's static-graph memory option; decoding here is always eager, as in
            Paddle's dynamic-graph mode, where it has no effect either. Default: False.
        return_length (bool, optional): also return the sequence lengths. Default: False.
        **kwargs: passed to ``decoder.step``.

    Returns:
        tuple: ``(final_outputs, final_states)``, plus ``sequence_lengths`` (int64) with `return_length`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(0)
        >>> cell = paddle.nn.GRUCell(8, 8)
        >>> decoder = paddle.nn.BeamSearchDecoder(cell, 0, 1, 3, embedding_fn=paddle.nn.Embedding(10, 8),
        ...                                       output_fn=paddle.nn.Linear(8, 10))
        >>> ids, states, lengths = paddle.nn.dynamic_decode(decoder, paddle.zeros([2, 8]), max_step_num=4,
        ...                                                 return_length=True)
        >>> ids.shape[0], ids.shape[2], lengths.shape, lengths.dtype
        (2, 3, paddle.Size([2, 3]), paddle.int64)
    """
    inputs, states, finished = decoder.initialize(inits)
    sequence_lengths = paddle_fn.zeros(finished.shape, dtype="int64")
    steps, step = [], 0
    while not bool(paddle_fn.all(finished)):
        outputs, next_states, next_inputs, next_finished = decoder.step(
            paddle_fn.to_tensor([step], dtype="int64"), inputs, states, **kwargs)
        if not decoder.tracks_own_finished:
            next_finished = paddle_fn.logical_or(next_finished, finished)
            next_lengths = sequence_lengths + paddle_fn.logical_not(finished).astype("int64")
            if impute_finished:
                next_states = paddle_fn.tree_map(lambda old, new: _keep_finished(old, new, finished), states,
                                                 next_states)
        else:
            if not hasattr(next_states, "lengths"):
                warnings.warn("`next_states` has no `lengths` attribute, the returned `sequence_lengths` would be "
                              "all zeros.", stacklevel=2)
            next_lengths = getattr(next_states, "lengths", sequence_lengths)
        steps.append(outputs)
        inputs, states, finished, sequence_lengths = next_inputs, next_states, next_finished, next_lengths
        step += 1
        if max_step_num is not None and step > max_step_num:
            break
    if not steps:
        raise ValueError("dynamic_decode: every sequence is finished before the first step; nothing to decode")
    final_outputs = paddle_fn.tree_map(lambda *xs: paddle_fn.stack(list(xs), axis=0), *steps)
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, sequence_lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = paddle_fn.tree_map(lambda x: paddle_fn.transpose(x, [1, 0, *range(2, x.ndim)]),
                                           final_outputs)
    return (final_outputs, final_states, sequence_lengths) if return_length else (final_outputs, final_states)
