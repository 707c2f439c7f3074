"""A variational autoencoder on synthetic binary images, with paddle.distribution.

The encoder maps an image x to a Normal posterior q(z | x) over a 2-D latent; ``q.rsample(key=...)`` draws z
by reparameterization (z = mu + sigma * eps), so the gradient of the loss flows through the draw into the encoder.
The decoder gives Bernoulli logits for the pixels. The loss is the negative ELBO:

    -E_q[log p(x | z)] + KL(q(z | x) || N(0, 1)),

with the KL in closed form (``paddle.distribution.kl_divergence`` of two Normals). The whole step (the ELBO,
its gradient with respect to the parameters, and an Adam update) is one ``paddle.jit`` executable; each step
gets its own key (``random.fold_in(key, step)``), so the draws are fresh per step and the run is reproducible.

Run: python examples/vae.py [--steps 400]  (a few seconds on two cores, most of it the first compile).
"""
import argparse
import math
import time

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution import Normal, kl_divergence

PIXELS, HIDDEN, LATENT = 16, 32, 2


def synthetic_images(n, seed=0):
    """n binary 4x4 images, each one of four stripe patterns (two rows or two columns lit) with 5% of its pixels
    flipped, and the clean patterns they came from."""
    rng = np.random.default_rng(seed)
    patterns = np.zeros((4, 4, 4), np.float32)
    patterns[0, :2], patterns[1, 2:], patterns[2, :, :2], patterns[3, :, 2:] = 1, 1, 1, 1
    clean = patterns[rng.integers(0, 4, n)].reshape(n, PIXELS)
    flips = rng.uniform(size=clean.shape) < 0.05
    return np.where(flips, 1 - clean, clean).astype(np.float32), clean


def init_params(seed=0):
    """Glorot-normal weights, zero biases: encoder 16 -> 32 -> (mu, log sigma) of 2, decoder 2 -> 32 -> 16."""
    rng = np.random.default_rng(seed)

    def dense(m, n):
        return {"w": paddle.to_tensor((rng.normal(size=(m, n)) * math.sqrt(2.0 / (m + n))).astype(np.float32)),
                "b": paddle.zeros([n])}
    return {"enc": dense(PIXELS, HIDDEN), "enc_out": dense(HIDDEN, 2 * LATENT),
            "dec": dense(LATENT, HIDDEN), "dec_out": dense(HIDDEN, PIXELS)}


def apply(layer, x):
    return paddle.matmul(x, layer["w"]) + layer["b"]


def posterior(params, x):
    """q(z | x): a batch of Normals over the latent."""
    out = apply(params["enc_out"], paddle.tanh(apply(params["enc"], x)))
    mu, log_sigma = out[:, :LATENT], out[:, LATENT:]
    return Normal(mu, paddle.exp(log_sigma))


def decode(params, z):
    """Bernoulli logits of the pixels."""
    return apply(params["dec_out"], paddle.tanh(apply(params["dec"], z)))


def negative_elbo(params, x, key):
    q = posterior(params, x)
    z = q.rsample(key=key)  # [batch, LATENT], differentiable in the encoder's parameters
    logits = decode(params, z)
    reconstruction = paddle.nn.functional.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(-1)
    prior = Normal(paddle.zeros([LATENT]), paddle.ones([LATENT]))
    kl = kl_divergence(q, prior).sum(-1)
    return (reconstruction + kl).mean()


def make_train_step(lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8):
    """One jitted Adam step: (params, m, v, t, x, key) -> (params, m, v, loss)."""
    def step(params, m, v, t, x, key):
        loss, grads = paddle.value_and_grad(negative_elbo)(params, x, key)
        m = paddle.tree_map(lambda a, g: beta1 * a + (1 - beta1) * g, m, grads)
        v = paddle.tree_map(lambda a, g: beta2 * a + (1 - beta2) * g * g, v, grads)
        scale = lr * paddle.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        params = paddle.tree_map(lambda p, a, b: p - scale * a / (paddle.sqrt(b) + eps), params, m, v)
        return params, m, v, loss
    return paddle.jit(step)


def train(steps=400, batch=64, seed=0, log_every=50):
    data, _ = synthetic_images(1024, seed)
    params = init_params(seed)
    m = paddle.tree_map(paddle.zeros_like, params)
    v = paddle.tree_map(paddle.zeros_like, params)
    train_step = make_train_step()
    key = random.key(seed)
    rng = np.random.default_rng(seed + 1)
    losses = []
    start = time.time()
    for t in range(1, steps + 1):
        x = paddle.to_tensor(data[rng.integers(0, len(data), batch)])
        params, m, v, loss = train_step(params, m, v, paddle.to_tensor(float(t)), x, random.fold_in(key, t))
        losses.append(float(loss))
        if t % log_every == 0 or t == 1:
            print(f"step {t:4d}  negative ELBO {losses[-1]:.3f}")
    print(f"trained {steps} steps in {time.time() - start:.1f} s")
    return params, losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    params, losses = train(args.steps, seed=args.seed)
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    print(f"mean negative ELBO: first 10 steps {first:.3f}, last 10 steps {last:.3f}")
    # decoding the posterior mean of a noisy image should give back its clean pattern
    noisy, clean = synthetic_images(1000, seed=123)
    logits = decode(params, posterior(params, paddle.to_tensor(noisy)).loc).numpy()
    print(f"denoised pixels: {np.mean((logits > 0) == (clean > 0.5)):.3f} of the clean patterns' pixels")


if __name__ == "__main__":
    main()
