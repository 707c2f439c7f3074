"""paddle_fn: a functional, JAX-style transformable array library with a Paddle-flavoured API."""
from paddle_fn import prims  # noqa: F401
