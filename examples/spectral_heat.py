"""A spectral solver for the 2-D heat equation on a periodic square, differentiated, vmapped and jitted.

    u_t = nu (u_xx + u_yy)  on [0, 2 pi)^2, periodic.

In Fourier space each mode decays on its own, û(k, t) = û(k, 0) exp(-nu |k|^2 t), so one step is rfft2, a
multiply and irfft2. The program

1. advances a field made of two Fourier modes and compares it with the exact solution;
2. recovers an unknown diffusivity nu from the final field by gradient descent: the loss differentiates through
   rfft2, the complex multiply and irfft2 (the transpose of an FFT is an FFT), and the whole step is one jit;
3. advances a batch of initial fields at once with vmap.

Run: python examples/spectral_heat.py [--n 128] [--fit-steps 40]  (a few seconds, most of it compiling).
"""
import argparse
import math

import numpy as np

import paddle_fn as paddle


def wavenumbers(n):
    """|k|^2 on the rfft2 grid of an n x n periodic field of period 2 pi."""
    ky = paddle.fft.fftfreq(n, d=1.0 / n, dtype="float64").reshape([n, 1])
    kx = paddle.fft.rfftfreq(n, d=1.0 / n, dtype="float64").reshape([1, n // 2 + 1])
    return ky ** 2 + kx ** 2


def advance(u, nu, t, k2):
    """The exact solution operator: u(t) from u(0) through Fourier space."""
    n = u.shape[-1]
    return paddle.fft.irfft2(paddle.fft.rfft2(u) * paddle.exp(-nu * k2 * t), s=[n, n])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=128)
    parser.add_argument("--fit-steps", type=int, default=40)
    args = parser.parse_args()
    n, t = args.n, 0.5
    grid = np.arange(n) * 2 * math.pi / n
    x, y = np.meshgrid(grid, grid, indexing="xy")
    k2 = wavenumbers(n)

    # 1. two modes, |k|^2 = 1 + 4 = 5 and 9 + 1 = 10, against the exact decay
    nu_true = 0.3
    u0 = paddle.to_tensor(np.sin(x) * np.cos(2 * y) + 0.5 * np.cos(3 * x + y))
    exact = np.exp(-5 * nu_true * t) * np.sin(x) * np.cos(2 * y) + 0.5 * np.exp(-10 * nu_true * t) * np.cos(3 * x + y)
    solve = paddle.jit(advance)
    u1 = solve(u0, paddle.to_tensor(nu_true, dtype="float64"), t, k2)
    print(f"max error against the exact solution: {np.abs(u1.numpy() - exact).max():.1e}")

    # 2. recover nu from the final field: Gauss-Newton on the squared misfit, every derivative through the FFTs
    def misfit(nu):
        return paddle.mean((advance(u0, nu, t, k2) - u1) ** 2)

    @paddle.jit
    def newton_step(nu):
        g = paddle.grad(misfit)(nu)
        h = paddle.grad(paddle.grad(misfit))(nu)
        return nu - g / h

    nu = paddle.to_tensor(0.05, dtype="float64")
    for _ in range(args.fit_steps):
        nu = newton_step(nu)
    print(f"recovered diffusivity: {float(nu):.6f} (true {nu_true})")

    # 3. a batch of initial fields, each advanced by the same operator
    rng = np.random.default_rng(0)
    batch = paddle.to_tensor(rng.standard_normal((4, n, n)))
    many = paddle.jit(paddle.vmap(lambda u: advance(u, nu, t, k2)))(batch)
    one = advance(batch[2], nu, t, k2)
    print(f"vmap batch shape {many.shape}, largest difference from one at a time: "
          f"{np.abs(many.numpy()[2] - one.numpy()).max():.1e}")
    energy = paddle.sum(batch ** 2, axis=[1, 2]) / paddle.sum(many ** 2, axis=[1, 2])
    print(f"energy decay factors: {np.round(energy.numpy(), 2)}")


if __name__ == "__main__":
    main()
