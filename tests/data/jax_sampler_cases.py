"""The draws tests/test_random_samplers_jax.py compares with jax.random: one definition, written against the
signatures paddle_fn.random shares with jax.random, used by gen_jax_sampler_draws.py (with jax.random and
jnp.asarray) and by the test (with paddle_fn.random and paddle.to_tensor). Imports nothing."""
N = 300
GAMMA_A = [0.3, 0.5, 1.0, 2.0, 5.0, 40.0] * 50


def cases(r, arr):
    """name -> draw(key, dtype name) for the samplers module `r` and the array constructor ``arr(values, dtype)``."""
    return {
        "uniform": lambda k, dt: r.uniform(k, (N,), dt),
        "normal": lambda k, dt: r.normal(k, (N,), dt),
        "truncated_normal": lambda k, dt: r.truncated_normal(k, -1.0, 2.0, (N,), dt),
        "bernoulli": lambda k, dt: r.bernoulli(k, arr(0.3, dt), (N,)),
        "exponential": lambda k, dt: r.exponential(k, (N,), dt),
        "laplace": lambda k, dt: r.laplace(k, (N,), dt),
        "logistic": lambda k, dt: r.logistic(k, (N,), dt),
        "gumbel": lambda k, dt: r.gumbel(k, (N,), dt),
        "cauchy": lambda k, dt: r.cauchy(k, (N,), dt),
        "gamma": lambda k, dt: r.gamma(k, arr(GAMMA_A, dt), dtype=dt),
        "loggamma": lambda k, dt: r.loggamma(k, arr([0.01, 0.5, 3.0] * 100, dt), dtype=dt),
        "beta": lambda k, dt: r.beta(k, 2.0, 5.0, (N,), dt),
        "dirichlet": lambda k, dt: r.dirichlet(k, arr([1.0, 2.0, 3.0], dt), (100,), dt),
        "poisson": lambda k, dt: r.poisson(k, arr([0.5, 3.0, 12.0, 50.0, 0.0] * 60, dt), dtype="int32"),
        "binomial": lambda k, dt: r.binomial(k, arr([5.0, 10.0, 20.0, 50.0, 200.0, 1000.0] * 50, dt),
                                             arr([0.3, 0.8, 0.5, 0.4, 0.9, 0.5] * 50, dt)),
        "chisquare": lambda k, dt: r.chisquare(k, arr([0.5, 1.0, 3.0, 10.0] * 75, dt), dtype=dt),
        "f": lambda k, dt: r.f(k, 3.0, 5.0, (N,), dt),
        "t": lambda k, dt: r.t(k, 3.0, (N,), dt),
        "pareto": lambda k, dt: r.pareto(k, 2.0, (N,), dt),
        "weibull_min": lambda k, dt: r.weibull_min(k, 1.5, 2.0, (N,), dt),
        "rayleigh": lambda k, dt: r.rayleigh(k, arr(1.5, dt), (N,), dt),
        "wald": lambda k, dt: r.wald(k, arr(1.5, dt), (N,), dt),
        "lognormal": lambda k, dt: r.lognormal(k, arr(0.5, dt), (N,), dt),
        "triangular": lambda k, dt: r.triangular(k, 0.0, 0.3, 1.0, (N,), dt),
        "geometric": lambda k, dt: r.geometric(k, arr(0.3, dt), (N,), "int32"),
        "rademacher": lambda k, dt: r.rademacher(k, (N,), "int32"),
        "maxwell": lambda k, dt: r.maxwell(k, (N,), dt),
        "double_sided_maxwell": lambda k, dt: r.double_sided_maxwell(k, 0.5, 2.0, (N,), dt),
        "generalized_normal": lambda k, dt: r.generalized_normal(k, 1.5, (N,), dt),
        "generalized_normal_2": lambda k, dt: r.generalized_normal(k, 2.0, (N,), dt),
        "ball": lambda k, dt: r.ball(k, 3, 2, (100,), dt),
        "multivariate_normal": lambda k, dt: r.multivariate_normal(
            k, arr([1.0, 2.0], dt), arr([[2.0, 0.5], [0.5, 1.0]], dt), (150,), dt),
        "orthogonal": lambda k, dt: r.orthogonal(k, 4, (5,), dt),
    }


EXP_ARGS = {"float32": [-104.0, -87.8, -87.5, -1e-3, 0.0, 1e-7, 0.5, 1.0, 10.0, 88.7, 88.8, 89.0],
            "float64": [-746.0, -745.1, -708.4, -1e-3, 0.0, 1e-17, 0.5, 1.0, 10.0, 709.7, 709.8, 710.0]}
