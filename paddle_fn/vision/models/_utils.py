"""Loading pretrained weights for ``paddle.vision.models`` without a network connection."""
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
