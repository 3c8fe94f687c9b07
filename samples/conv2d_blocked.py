# 2-D convolution in NCHW layout with the weights in blocks of 16 output channels
# (F/16 x C x KH x KW x 16), as model import arranges a convolution's weights (and as TVM's x86
# conv2d_NCHWc does): the 16 output channels of a block are adjacent, so one vector load brings
# them in and one FMA updates 16 output channels at once. The sums are computed in blocks and
# read back into N x F x H x W.
import tvm
from tvm import te

batch = 1
in_channel = 64
in_size = 56
out_channel = 64
kernel = 3
pad = 1
block = 16

data = te.placeholder((batch, in_channel, in_size, in_size), name="data")
weight = te.placeholder((out_channel // block, in_channel, kernel, kernel, block), name="weight")

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
sums = te.compute(
    (batch, out_channel // block, in_size, in_size, block),
    lambda n, fo, y, x, fi: te.sum(
        padded[n, rc, y + ry, x + rx] * weight[fo, rc, ry, rx, fi], axis=[rc, ry, rx]
    ),
    name="sums",
)
conv = te.compute(
    (batch, out_channel, in_size, in_size),
    lambda n, f, y, x: sums[n, f // block, y, x, f % block],
    name="conv",
)

# variant: naive
s = te.create_schedule(conv.op)

# variant: register tile
# A tile of 8 output columns by 16 output channels (8 vector accumulators) inside each row, the
# padded copy made first, rows in parallel; the sums of a row read back into NCHW at once.
s = te.create_schedule(conv.op)
n, f, y, x = s[conv].op.axis
fo, fi = s[conv].split(f, factor=block)
s[conv].reorder(n, fo, y, x, fi)
row = s[conv].fuse(n, fo, y)
s[conv].parallel(row)
s[sums].compute_at(s[conv], row)
n1, fo1, y1, x1, fi1 = s[sums].op.axis
xo, xi = s[sums].split(x1, factor=8)
s[sums].reorder(n1, fo1, y1, xo, rc, ry, rx, xi, fi1)
s[sums].vectorize(fi1)
s[sums].unroll(xi)
s[padded].parallel(s[padded].op.axis[1])
