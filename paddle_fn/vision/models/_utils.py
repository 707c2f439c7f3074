"""Loading pretrained weights for ``paddle.vision.models`` without a network connection, and the helpers Paddle's
model files share (where Paddle keeps them: its own model files import them from here)."""
import os

import paddle_fn as paddle

# Paddle's download cache (paddle.utils.download.WEIGHTS_HOME): a file fetched by Paddle is found here
WEIGHTS_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hapi", "weights"))


def load_pretrained(model, arch, url, pretrained):
    """Load weights into ``model``: ``pretrained`` is True (look for Paddle's cached file of ``url``) or the path
    of a ``.pdparams`` file. paddle_fn never downloads."""
    if isinstance(pretrained, (str, os.PathLike)):
        path = os.fspath(pretrained)
    elif url is None:
        raise ValueError(f"{arch} model do not have a pretrained model now, you should set pretrained=False")
    else:
        path = os.path.join(WEIGHTS_HOME, url.rsplit("/", 1)[-1])
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"{arch}(pretrained=True) needs the weights file {path}; paddle_fn does not download. Fetch {url} "
            f"and put it there, or pass its path as pretrained='/path/to/{os.path.basename(path)}'")
    model.set_state_dict(paddle.load(path))
    return model


def _make_divisible(v, divisor, min_value=None):
    """Round channels to a multiple of `divisor`, never more than 10% below `v` (MobileNet's rule)."""
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v
