"""``paddle.amp.GradScaler``: dynamic loss scaling. Like Paddle 3.3.1 it warns and is disabled on CPU."""
import warnings

import numpy as np

import paddle_fn as paddle
from paddle_fn.amp.casting import _on_accelerator


class AmpScaler:
    """Loss scaler (Paddle's rules: a step with inf/nan gradients is skipped; after ``decr_every_n_nan_or_inf``
    such steps the scale is multiplied by ``decr_ratio``; after ``incr_every_n_steps`` good steps by
    ``incr_ratio``).

    Example:
        >>> import warnings
        >>> import paddle_fn as paddle
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
        >>> scaler.is_enable()    # CPU: disabled, as in Paddle
        False
    """

    def __init__(self, enable=True, init_loss_scaling=2.0**15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        if enable and not _on_accelerator():
            warnings.warn("AmpScaler can only be enabled on CUDAPlace, XPUPlace and CustomPlace, current place "
                          f"is Place({paddle.get_device()}), so it makes no effect.")
            enable = False
        self._enable = enable
        if enable:
            if not decr_ratio < 1.0:
                raise ValueError(f"GradScaler: decr_ratio must be < 1.0, got {decr_ratio}")
            if not incr_ratio > 1.0:
                raise ValueError(f"GradScaler: incr_ratio must be > 1.0, got {incr_ratio}")
        self._scale = float(init_loss_scaling) if enable else 1.0
        self._init_loss_scaling = self._scale
        self._incr_ratio, self._decr_ratio = incr_ratio, decr_ratio
        self._incr_every_n_steps, self._decr_every_n_nan_or_inf = incr_every_n_steps, decr_every_n_nan_or_inf
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        self._incr_count = self._decr_count = 0
        self._found_inf = False
        self._unscaled = False

    def scale(self, var):
        """Multiply the loss by the current scale (unchanged when disabled).

        Example:
            >>> import warnings
            >>> import paddle_fn as paddle
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     scaler = paddle.amp.GradScaler()
            >>> float(scaler.scale(paddle.to_tensor(2.0)))
            2.0
        """
        return var * self._scale if self._enable else var

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale and record whether any is inf/nan."""
        if not self._enable or self._unscaled:
            return
        found = False
        for p in optimizer._all_parameters():
            if p.grad is not None:
                g = p.grad / self._scale
                found = found or not bool(np.isfinite(g.numpy()).all())
                p.grad = g
        self._found_inf, self._unscaled = found, True

    def step(self, optimizer):
        """Unscale and step the optimizer, unless a gradient is inf/nan."""
        if not self._enable:
            return optimizer.step()
        self.unscale_(optimizer)
        if not self._found_inf:
            optimizer.step()

    def update(self):
        """Adjust the scale after a step (dynamic loss scaling)."""
        if self._enable and self._use_dynamic_loss_scaling:
            if self._found_inf:
                self._incr_count = 0
                self._decr_count += 1
                if self._decr_count == self._decr_every_n_nan_or_inf:
                    self._scale *= self._decr_ratio
                    self._decr_count = 0
            else:
                self._decr_count = 0
                self._incr_count += 1
                if self._incr_count == self._incr_every_n_steps:
                    self._scale *= self._incr_ratio
                    self._incr_count = 0
        self._found_inf, self._unscaled = False, False

    def minimize(self, optimizer, *args, **kwargs):
        """``step`` then ``update`` (the optimizer's ``minimize`` when disabled)."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        self.step(optimizer)
        self.update()

    def is_enable(self):
        """Whether loss scaling is on."""
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        """Whether the scale is adjusted dynamically."""
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        """The initial loss scale."""
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        """Set the initial (and current) loss scale."""
        self._init_loss_scaling = self._scale = float(new_init_loss_scaling)

    def get_incr_ratio(self):
        """The multiplier after ``incr_every_n_steps`` good steps."""
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        """Set ``incr_ratio`` (> 1)."""
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self):
        """The multiplier after ``decr_every_n_nan_or_inf`` bad steps."""
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        """Set ``decr_ratio`` (< 1)."""
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self):
        """Good steps before the scale grows."""
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        """Set ``incr_every_n_steps``."""
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        """Bad steps before the scale shrinks."""
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        """Set ``decr_every_n_nan_or_inf``."""
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    def state_dict(self):
        """The scaler's state ({} when disabled, as Paddle)."""
        if not self._enable:
            return {}
        return {"scale": np.array([self._scale], "float32"), "incr_ratio": self._incr_ratio,
                "decr_ratio": self._decr_ratio, "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf, "incr_count": self._incr_count,
                "decr_count": self._decr_count, "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict):
        """Restore ``state_dict()``."""
        if not self._enable:
            return
        self._scale = float(np.asarray(state_dict["scale"]).reshape(-1)[0])
        self._incr_ratio, self._decr_ratio = state_dict["incr_ratio"], state_dict["decr_ratio"]
        self._incr_every_n_steps = state_dict["incr_every_n_steps"]
        self._decr_every_n_nan_or_inf = state_dict["decr_every_n_nan_or_inf"]
        self._incr_count, self._decr_count = state_dict["incr_count"], state_dict["decr_count"]
        self._use_dynamic_loss_scaling = state_dict["use_dynamic_loss_scaling"]


class GradScaler(AmpScaler):
    """Paddle's ``GradScaler`` (defaults init_loss_scaling=65536, incr_every_n_steps=2000); see ``AmpScaler``.

    Example:
        >>> import warnings
        >>> import paddle_fn as paddle
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     paddle.amp.GradScaler().state_dict()
        {}
    """

    def __init__(self, enable=True, init_loss_scaling=65536.0, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)
