# 2-D convolution with the data in blocks of 16 channels from layer to layer (NCHW16c, as a
# model's convolutions run: model import keeps the blocks between layers, as TVM's
# conv2d_NCHWc chains and oneDNN's blocked formats do). Input N x C/16 x H x W x 16, weights
# F/16 x C x KH x KW x 16, output N x F/16 x H' x W' x 16: no layout change anywhere. The input
# channels are two reduce axes, the blocks and the channels inside one, so every read is at
# plain axes. ResNet-18's 3x3 convolution of 64 channels at 56x56.
import tvm
from tvm import te

batch = 1
in_channel = 64
in_size = 56
out_channel = 64
kernel = 3
pad = 1
block = 16

data = te.placeholder((batch, in_channel // block, in_size, in_size, block), name="data")
weight = te.placeholder((out_channel // block, in_channel, kernel, kernel, block), name="weight")

padded = te.compute(
    (batch, in_channel // block, in_size + 2 * pad, in_size + 2 * pad, block),
    lambda n, co, y, x, ci: tvm.tir.if_then_else(
        tvm.tir.all(y >= pad, y < in_size + pad, x >= pad, x < in_size + pad),
        data[n, co, y - pad, x - pad, ci],
        tvm.tir.const(0.0, "float32"),
    ),
    name="padded",
)
rco = te.reduce_axis((0, in_channel // block), name="rco")
rci = te.reduce_axis((0, block), name="rci")
ry = te.reduce_axis((0, kernel), name="ry")
rx = te.reduce_axis((0, kernel), name="rx")
conv = te.compute(
    (batch, out_channel // block, in_size, in_size, block),
    lambda n, fo, y, x, fi: te.sum(
        padded[n, rco, y + ry, x + rx, rci] * weight[fo, rco * block + rci, ry, rx, fi],
        axis=[rco, rci, ry, rx],
    ),
    name="conv",
)

# variant: naive
s = te.create_schedule(conv.op)

# variant: register tile
# Each row of output pixels in parallel; inside it, tiles of 4 pixels by 16 output channels (8
# vector accumulators with AVX2, 4 with AVX-512) summed in a local cache over the whole
# reduction, so that the sums stay in registers; the padded copy made first.
s = te.create_schedule(conv.op)
local = s.cache_write(conv, "local")
n, fo, y, x, fi = s[conv].op.axis
row = s[conv].fuse(n, fo, y)
s[conv].parallel(row)
xo, xi = s[conv].split(x, factor=4)
s[conv].vectorize(fi)
s[local].compute_at(s[conv], xo)
n1, fo1, y1, x1, fi1 = s[local].op.axis
s[local].reorder(n1, fo1, y1, rco, ry, rx, rci, x1, fi1)
s[local].vectorize(fi1)
s[local].unroll(x1)
s[padded].parallel(s[padded].op.axis[1])
