# 2-D convolution in NCHW layout, with a padded copy of the input as its own stage.
import tvm
from tvm import te

batch = 1
in_channel = 64
in_size = 56
out_channel = 64
kernel = 3
pad = 1

data = te.placeholder((batch, in_channel, in_size, in_size), name="data")
weight = te.placeholder((out_channel, in_channel, kernel, kernel), name="weight")

# Zero padding: a border of `pad` around every image plane.
padded = te.compute(
    (batch, in_channel, in_size + 2 * pad, in_size + 2 * pad),
    lambda n, c, y, x: tvm.tir.if_then_else(
        tvm.tir.all(y >= pad, y < in_size + pad, x >= pad, x < in_size + pad),
        data[n, c, y - pad, x - pad],
        tvm.tir.const(0.0, "float32"),
    ),
    name="padded",
)
rc = te.reduce_axis((0, in_channel), name="rc")
ry = te.reduce_axis((0, kernel), name="ry")
rx = te.reduce_axis((0, kernel), name="rx")
conv = te.compute(
    (batch, out_channel, in_size, in_size),
    lambda n, f, y, x: te.sum(padded[n, rc, y + ry, x + rx] * weight[f, rc, ry, rx], axis=[rc, ry, rx]),
    name="conv",
)

# variant: naive
s = te.create_schedule(conv.op)

# variant: inline padding
# No padded copy: the bounds test moves into the convolution's inner loop.
s = te.create_schedule(conv.op)
s[padded].compute_inline()

# variant: tiled
# Keep the padded copy, vectorize along x and run output channels in parallel.
s = te.create_schedule(conv.op)
n, f, y, x = s[conv].op.axis
rc, ry, rx = s[conv].op.reduce_axis
xo, xi = s[conv].split(x, factor=8)
s[conv].reorder(n, f, y, xo, rc, ry, rx, xi)
s[conv].vectorize(xi)
s[conv].parallel(f)
s[padded].parallel(s[padded].op.axis[1])
