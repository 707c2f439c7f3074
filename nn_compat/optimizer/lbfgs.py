"""``paddle.optimizer.LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search, driven by a closure
that recomputes the loss and its gradients, as Paddle 3.3's (and PyTorch's) LBFGS. The search directions come from
the last `history_size` pairs of parameter and gradient changes (the two-loop recursion); the line search brackets
a step that satisfies the strong Wolfe conditions and refines it by cubic interpolation.
"""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["LBFGS"]

# the strong Wolfe conditions' constants (sufficient decrease, curvature) and the line search's evaluation budget
_C1, _C2, _MAX_LINE_SEARCH = 1e-4, 0.9, 25


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser, clamped to `bounds` (default: between x1 and x2), of the cubic through (x1, f1) and
    (x2, f2) with slopes g1 and g2; the bounds' midpoint when the cubic has no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    discriminant = d1 * d1 - g1 * g2
    if discriminant < 0:
        return (low + high) / 2
    d2 = math.sqrt(discriminant)
    if x1 <= x2:
        position = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        position = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(position, low), high)


def _dot(a, b):
    return float((a * b).sum())


def _strong_wolfe(evaluate, step, direction, loss, grad, slope, tolerance_change):
    """A step along `direction` satisfying the strong Wolfe conditions: (loss, grad, step, evaluations)."""
    direction_norm = float(direction.abs().max())
    new_loss, new_grad = evaluate(step, direction)
    evaluations, new_slope = 1, _dot(new_grad, direction)
    prev_step, prev_loss, prev_grad, prev_slope = 0.0, loss, grad, slope
    done, iterations = False, 0
    bracket = None
    while iterations < _MAX_LINE_SEARCH:
        if new_loss > loss + _C1 * step * slope or (iterations > 1 and new_loss >= prev_loss):
            bracket = [[prev_step, prev_loss, prev_grad, prev_slope], [step, new_loss, new_grad, new_slope]]
            break
        if abs(new_slope) <= -_C2 * slope:
            bracket, done = [[step, new_loss, new_grad, new_slope]], True
            break
        if new_slope >= 0:
            bracket = [[prev_step, prev_loss, prev_grad, prev_slope], [step, new_loss, new_grad, new_slope]]
            break
        # extrapolate: a cubic step between 1.01 and 10 times the current one
        lower, upper = step + 0.01 * (step - prev_step), step * 10
        prev_step, prev_loss, prev_grad, prev_slope, step = (
            step, new_loss, new_grad, new_slope,
            _cubic_minimum(prev_step, prev_loss, prev_slope, step, new_loss, new_slope, bounds=(lower, upper)))
        new_loss, new_grad = evaluate(step, direction)
        evaluations += 1
        new_slope = _dot(new_grad, direction)
        iterations += 1
    if iterations == _MAX_LINE_SEARCH:
        bracket = [[0.0, loss, grad, slope], [step, new_loss, new_grad, new_slope]]
    # zoom: shrink the bracket until a point satisfies both conditions
    stuck = False
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    while not done and iterations < _MAX_LINE_SEARCH:
        ends = [bracket[0][0], bracket[1][0]]
        if abs(ends[1] - ends[0]) * direction_norm < tolerance_change:
            break
        step = _cubic_minimum(bracket[0][0], bracket[0][1], bracket[0][3], bracket[1][0], bracket[1][1],
                              bracket[1][3])
        margin = 0.1 * (max(ends) - min(ends))
        if min(max(ends) - step, step - min(ends)) < margin:
            # too close to an end: move away from it, the second time in a row or when outside the bracket
            if stuck or step >= max(ends) or step <= min(ends):
                step = max(ends) - margin if abs(step - max(ends)) < abs(step - min(ends)) else min(ends) + margin
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        new_loss, new_grad = evaluate(step, direction)
        evaluations += 1
        new_slope = _dot(new_grad, direction)
        iterations += 1
        if new_loss > loss + _C1 * step * slope or new_loss >= bracket[low][1]:
            bracket[high] = [step, new_loss, new_grad, new_slope]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(new_slope) <= -_C2 * slope:
                done = True
            elif new_slope * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = list(bracket[low])
            bracket[low] = [step, new_loss, new_grad, new_slope]
    step, new_loss, new_grad, _ = bracket[low]
    return new_loss, new_grad, step, evaluations


class LBFGS(Optimizer):
    r"""L-BFGS (``paddle.optimizer.LBFGS``): each ``step(closure)`` runs up to `max_iter` quasi-Newton iterations,
    calling `closure` (which clears the gradients, computes the loss, calls ``backward()`` and returns the loss)
    whenever it needs the loss and gradients at new parameters.

    Args:
        learning_rate (float, optional): the step along each search direction (the line search's first trial).
            Default: 1.0.
        max_iter (int, optional): iterations per ``step``. Default: 20.
        max_eval (int, optional): closure evaluations per ``step``. Default: ``max_iter * 5 // 4``.
        tolerance_grad (float, optional): stop when the largest gradient entry is this small. Default: 1e-7.
        tolerance_change (float, optional): stop when a step or the loss changes less. Default: 1e-9.
        history_size (int, optional): the number of correction pairs kept. Default: 100.
        line_search_fn (str, optional): None (fixed steps) or 'strong_wolfe'.
        parameters (list|tuple): the Parameters.
        weight_decay (float|L1Decay|L2Decay, optional): accepted for Paddle's signature; Paddle's LBFGS does not
            apply it (the closure's loss is what it minimises), and neither does this one.
        grad_clip (ClipGradBase, optional): accepted for Paddle's signature and, as in Paddle, not applied.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([3.0, -2.0]))
        >>> opt = paddle.optimizer.LBFGS(parameters=[w], line_search_fn='strong_wolfe')
        >>> def closure():
        ...     opt.clear_grad()
        ...     loss = ((w - paddle.to_tensor([1.0, 2.0])) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> _ = opt.step(closure)
        >>> w.numpy().round(4)
        array([1., 2.], dtype=float32)
    """

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        self.learning_rate, self.max_iter = float(learning_rate), int(max_iter)
        self.max_eval = max_iter * 5 // 4 if max_eval is None else int(max_eval)
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size, self.line_search_fn = int(history_size), line_search_fn
        self.state = {"func_evals": 0, "n_iter": 0}
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        self.type = "lbfgs"
        self._params = [p for g in self._groups() for p in g["params"]]

    def _flat_grad(self):
        return paddle.concat([(p.grad if p.grad is not None else paddle.zeros_like(p)).reshape([-1])
                              for p in self._params])

    def _move(self, step, direction):
        """Add ``step * direction`` (flattened) to the parameters."""
        offset = 0
        with paddle.no_grad():
            for p in self._params:
                size = int(math.prod(p.shape))
                p.set_value(p + direction[offset:offset + size].reshape(p.shape) * step)
                offset += size

    def _evaluate_at(self, closure, origin):
        def evaluate(step, direction):
            self._move(step, direction)
            loss = float(closure())
            grad = self._flat_grad()
            with paddle.no_grad():
                for p, value in zip(self._params, origin):
                    p.set_value(value)
            return loss, grad
        return evaluate

    def step(self, closure):
        """Run the iterations of one L-BFGS step; returns the closure's first loss (at the starting parameters).

        Example:
            >>> import paddle_fn as paddle
            >>> w = paddle.nn.Parameter(paddle.to_tensor([0.0]))
            >>> opt = paddle.optimizer.LBFGS(parameters=[w])
            >>> def closure():
            ...     opt.clear_grad()
            ...     loss = ((w - 3.0) ** 2).sum()
            ...     loss.backward()
            ...     return loss
            >>> opt.step(closure).item()
            9.0
        """
        state = self.state
        first_loss = closure()
        loss = float(first_loss)
        evaluations = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if float(grad.abs().max()) <= self.tolerance_grad:
            return first_loss
        direction, step = state.get("d"), state.get("alpha")
        old_y, old_s, rho = state.get("old_yk", []), state.get("old_sk", []), state.get("ro", [])
        h_diag, prev_grad, prev_loss = state.get("H_diag", 1.0), state.get("prev_flat_grad"), state.get("prev_loss")
        iterations = 0
        while iterations < self.max_iter:
            iterations += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                direction, old_y, old_s, rho, h_diag = -grad, [], [], [], 1.0
            else:
                y, s = grad - prev_grad, direction * step
                ys = _dot(y, s)
                if ys > 1e-10:  # keep the pair only when the curvature condition holds
                    if len(old_y) == self.history_size:
                        del old_y[0], old_s[0], rho[0]
                    old_y.append(y)
                    old_s.append(s)
                    rho.append(1.0 / ys)
                    h_diag = ys / _dot(y, y)
                # the two-loop recursion: direction = -H grad
                q, alphas = -grad, [0.0] * len(old_y)
                for i in range(len(old_y) - 1, -1, -1):
                    alphas[i] = _dot(old_s[i], q) * rho[i]
                    q = q - old_y[i] * alphas[i]
                direction = q * h_diag
                for i in range(len(old_y)):
                    beta = _dot(old_y[i], direction) * rho[i]
                    direction = direction + old_s[i] * (alphas[i] - beta)
            prev_grad, prev_loss = grad, loss
            step = (min(1.0, 1.0 / float(grad.abs().sum())) if state["n_iter"] == 1 else 1.0) * self.learning_rate
            slope = _dot(grad, direction)
            if slope > -self.tolerance_change:
                break
            searched = 0
            if self.line_search_fn == "strong_wolfe":
                origin = [p.detach().clone() for p in self._params]  # kept while the parameters move
                loss, grad, step, searched = _strong_wolfe(self._evaluate_at(closure, origin), step, direction,
                                                           loss, grad, slope, self.tolerance_change)
                self._move(step, direction)
            else:
                self._move(step, direction)
                if iterations != self.max_iter:
                    loss, searched = float(closure()), 1
                    grad = self._flat_grad()
            evaluations += searched
            state["func_evals"] += searched
            if (iterations == self.max_iter or evaluations >= self.max_eval
                    or float(grad.abs().max()) <= self.tolerance_grad
                    or float((direction * step).abs().max()) <= self.tolerance_change
                    or abs(loss - prev_loss) < self.tolerance_change):
                break
        state.update(d=direction, alpha=step, old_yk=old_y, old_sk=old_s, ro=rho, H_diag=h_diag,
                     prev_flat_grad=prev_grad, prev_loss=prev_loss)
        return first_loss
