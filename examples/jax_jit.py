"""A jitted JAX function called repeatedly (XLA may run it through CUDA graphs, its command
buffers). Exits 0 when the result is right.

    nodescope run -o jax.json -- python3 examples/jax_jit.py
"""
import jax
import jax.numpy as jnp


@jax.jit
def step(x, w):
    for _ in range(4):
        x = jax.nn.gelu(x @ w) + 1.0
    return x


def main(steps=50):
    x = jnp.ones((256, 256), jnp.float32)
    w = jnp.eye(256, dtype=jnp.float32) * 0.5
    y = x
    for _ in range(steps):
        y = step(x, w)
    y.block_until_ready()
    ok = bool(jnp.isfinite(y).all())
    print(f"jax {jax.__version__} on {jax.devices()[0]}: {steps} jitted steps: {'ok' if ok else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
