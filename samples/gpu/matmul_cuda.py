# The GPU matmul ladder of TVM's tutorials: each variant one step further, from one thread per
# element to shared-memory tiles, register blocking with virtual threads and an unrolled inner
# loop (TVM's apps/topi_recipe/gemm/cuda_gemm_square.py). C = A^T B with A stored k-major, as
# there, so that the threads of a warp read consecutive elements of both operands.
# On an NVIDIA GPU (through loopscope-runner) every variant runs there, checked and timed;
# without one, every variant is checked on the CPU and not timed.
import tvm
from tvm import te

N = 2048
A = te.placeholder((N, N), name="A")
B = te.placeholder((N, N), name="B")
k = te.reduce_axis((0, N), name="k")
C = te.compute((N, N), lambda y, x: te.sum(A[k, y] * B[k, x], axis=k), name="C")

# variant: bind
# One thread per element of C: rows of blocks on blockIdx.y, 256 threads along a row.
s = te.create_schedule(C.op)
y, x = s[C].op.axis
bx, tx = s[C].split(x, factor=256)
s[C].bind(y, te.thread_axis("blockIdx.y"))
s[C].bind(bx, te.thread_axis("blockIdx.x"))
s[C].bind(tx, te.thread_axis("threadIdx.x"))

# variant: 2-D blocks
# 16x16 threads per block, a 16x16 tile of C: neighbouring threads share rows of A and columns of B.
s = te.create_schedule(C.op)
y, x = s[C].op.axis
by, ty = s[C].split(y, factor=16)
bx, tx = s[C].split(x, factor=16)
s[C].reorder(by, bx, ty, tx)
s[C].bind(by, te.thread_axis("blockIdx.y"))
s[C].bind(bx, te.thread_axis("blockIdx.x"))
s[C].bind(ty, te.thread_axis("threadIdx.y"))
s[C].bind(tx, te.thread_axis("threadIdx.x"))

# variant: shared tiles
# The block's threads fetch 16x16 tiles of A and B into shared memory together, then compute from them.
s = te.create_schedule(C.op)
AA = s.cache_read(A, "shared", [C])
BB = s.cache_read(B, "shared", [C])
ty = te.thread_axis("threadIdx.y")
tx = te.thread_axis("threadIdx.x")
y, x = s[C].op.axis
(k,) = s[C].op.reduce_axis
by, yi = s[C].split(y, factor=16)
bx, xi = s[C].split(x, factor=16)
ko, ki = s[C].split(k, factor=16)
s[C].reorder(by, bx, yi, xi, ko, ki)
s[C].bind(by, te.thread_axis("blockIdx.y"))
s[C].bind(bx, te.thread_axis("blockIdx.x"))
s[C].bind(yi, ty)
s[C].bind(xi, tx)
s[AA].compute_at(s[C], ko)
s[BB].compute_at(s[C], ko)
# TVM binds only loops that start at zero: a tile's axes start where the tile does, so each is
# split into 16 parts first and the parts are bound.
r, c = s[AA].op.axis
ty_a, _ = s[AA].split(r, nparts=16)
tx_a, _ = s[AA].split(c, nparts=16)
s[AA].bind(ty_a, ty)
s[AA].bind(tx_a, tx)
r, c = s[BB].op.axis
ty_b, _ = s[BB].split(r, nparts=16)
tx_b, _ = s[BB].split(c, nparts=16)
s[BB].bind(ty_b, ty)
s[BB].bind(tx_b, tx)

# variant: register blocks
# A 64x64 tile of C per block of 8x8 threads, 2x2 virtual threads: each thread accumulates 8x8
# elements in registers (C.local) from rows of the shared tiles copied into registers too.
s = te.create_schedule(C.op)
AA = s.cache_read(A, "shared", [C])
BB = s.cache_read(B, "shared", [C])
AL = s.cache_read(AA, "local", [C])
BL = s.cache_read(BB, "local", [C])
CC = s.cache_write(C, "local")
scale = 8
num_thread = 8
block_factor = scale * num_thread
block_x = te.thread_axis("blockIdx.x")
thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
block_y = te.thread_axis("blockIdx.y")
thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
thread_xz = te.thread_axis((0, 2), "vthread", name="vx")
thread_yz = te.thread_axis((0, 2), "vthread", name="vy")
by, yi = s[C].split(C.op.axis[0], factor=block_factor)
bx, xi = s[C].split(C.op.axis[1], factor=block_factor)
s[C].bind(by, block_y)
s[C].bind(bx, block_x)
s[C].reorder(by, bx, yi, xi)
tyz, yi = s[C].split(yi, nparts=2)
ty, yi = s[C].split(yi, nparts=num_thread)
txz, xi = s[C].split(xi, nparts=2)
tx, xi = s[C].split(xi, nparts=num_thread)
s[C].bind(tyz, thread_yz)
s[C].bind(txz, thread_xz)
s[C].bind(ty, thread_y)
s[C].bind(tx, thread_x)
s[C].reorder(tyz, txz, ty, tx, yi, xi)
s[CC].compute_at(s[C], tx)
yo, xo = CC.op.axis
ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=8)
kt, ki = s[CC].split(ki, factor=1)
s[CC].reorder(ko, kt, ki, yo, xo)
s[AA].compute_at(s[CC], ko)
s[BB].compute_at(s[CC], ko)
s[AL].compute_at(s[CC], kt)
s[BL].compute_at(s[CC], kt)
# The block's threads fetch the tiles together, four consecutive elements at a time.
ty, xi = s[AA].split(s[AA].op.axis[0], nparts=num_thread)
_, xi = s[AA].split(s[AA].op.axis[1], factor=num_thread * 4)
tx, xi = s[AA].split(xi, nparts=num_thread)
s[AA].bind(ty, thread_y)
s[AA].bind(tx, thread_x)
s[AA].vectorize(xi)
ty, xi = s[BB].split(s[BB].op.axis[0], nparts=num_thread)
_, xi = s[BB].split(s[BB].op.axis[1], factor=num_thread * 4)
tx, xi = s[BB].split(xi, nparts=num_thread)
s[BB].bind(ty, thread_y)
s[BB].bind(tx, thread_x)
s[BB].vectorize(xi)

# variant: unrolled
# As above, with the k loop of the register block unrolled: the tutorial's fastest step.
s = te.create_schedule(C.op)
AA = s.cache_read(A, "shared", [C])
BB = s.cache_read(B, "shared", [C])
AL = s.cache_read(AA, "local", [C])
BL = s.cache_read(BB, "local", [C])
CC = s.cache_write(C, "local")
scale = 8
num_thread = 8
block_factor = scale * num_thread
block_x = te.thread_axis("blockIdx.x")
thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
block_y = te.thread_axis("blockIdx.y")
thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
thread_xz = te.thread_axis((0, 2), "vthread", name="vx")
thread_yz = te.thread_axis((0, 2), "vthread", name="vy")
by, yi = s[C].split(C.op.axis[0], factor=block_factor)
bx, xi = s[C].split(C.op.axis[1], factor=block_factor)
s[C].bind(by, block_y)
s[C].bind(bx, block_x)
s[C].reorder(by, bx, yi, xi)
tyz, yi = s[C].split(yi, nparts=2)
ty, yi = s[C].split(yi, nparts=num_thread)
txz, xi = s[C].split(xi, nparts=2)
tx, xi = s[C].split(xi, nparts=num_thread)
s[C].bind(tyz, thread_yz)
s[C].bind(txz, thread_xz)
s[C].bind(ty, thread_y)
s[C].bind(tx, thread_x)
s[C].reorder(tyz, txz, ty, tx, yi, xi)
s[CC].compute_at(s[C], tx)
yo, xo = CC.op.axis
ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=8)
kt, ki = s[CC].split(ki, factor=1)
s[CC].reorder(ko, kt, ki, yo, xo)
s[AA].compute_at(s[CC], ko)
s[BB].compute_at(s[CC], ko)
s[CC].unroll(kt)
s[AL].compute_at(s[CC], kt)
s[BL].compute_at(s[CC], kt)
# The block's threads fetch the tiles together, four consecutive elements at a time.
ty, xi = s[AA].split(s[AA].op.axis[0], nparts=num_thread)
_, xi = s[AA].split(s[AA].op.axis[1], factor=num_thread * 4)
tx, xi = s[AA].split(xi, nparts=num_thread)
s[AA].bind(ty, thread_y)
s[AA].bind(tx, thread_x)
s[AA].vectorize(xi)
ty, xi = s[BB].split(s[BB].op.axis[0], nparts=num_thread)
_, xi = s[BB].split(s[BB].op.axis[1], factor=num_thread * 4)
tx, xi = s[BB].split(xi, nparts=num_thread)
s[BB].bind(ty, thread_y)
s[BB].bind(tx, thread_x)
s[BB].vectorize(xi)

f = tvm.build(s, [A, B, C], target="cuda")
