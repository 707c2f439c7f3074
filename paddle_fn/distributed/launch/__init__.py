"""``python -m paddle_fn.distributed.launch --nproc_per_node 2 train.py [args]``: run a training script in
several local processes that form one job (Paddle's launcher environment; see ``main``)."""
from paddle_fn.distributed.launch.main import launch, main  # noqa: F401
