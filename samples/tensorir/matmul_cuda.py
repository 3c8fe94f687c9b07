# The GPU matmul ladder in today's TVM (0.24-0.26 spelling): the steps of samples/gpu/
# matmul_cuda.py, each TE schedule written as the tir.Schedule calls that make its loop nest
# (shared-memory tiles with cache_read and compute_at, threads and virtual threads with bind,
# cooperative fetching), made by `loopscope-cli convert samples/gpu/matmul_cuda.py`.
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
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
y_loop, x_loop, k_loop = sch.get_loops(b_C)
x_outer, x_inner = sch.split(x_loop, factors=[None, 256])
sch.bind(y_loop, "blockIdx.y")
sch.bind(x_outer, "blockIdx.x")
sch.bind(x_inner, "threadIdx.x")
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_loop)

# variant: 2-D blocks
# 16x16 threads per block, a 16x16 tile of C: neighbouring threads share rows of A and columns of B.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
y_loop, x_loop, k_loop = sch.get_loops(b_C)
y_outer, y_inner = sch.split(y_loop, factors=[None, 16])
x_outer, x_inner = sch.split(x_loop, factors=[None, 16])
sch.reorder(x_outer, y_inner)
sch.bind(y_outer, "blockIdx.y")
sch.bind(x_outer, "blockIdx.x")
sch.bind(y_inner, "threadIdx.y")
sch.bind(x_inner, "threadIdx.x")
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_loop)

# variant: shared tiles
# The block's threads fetch 16x16 tiles of A and B into shared memory together, then compute from them.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
b_A_shared = sch.cache_read(b_C, 0, "shared")
b_B_shared = sch.cache_read(b_C, 1, "shared")
y_loop, x_loop, k_loop = sch.get_loops(b_C)
y_outer, y_inner = sch.split(y_loop, factors=[None, 16])
x_outer, x_inner = sch.split(x_loop, factors=[None, 16])
k_outer, k_inner = sch.split(k_loop, factors=[None, 16])
sch.reorder(x_outer, y_inner)
sch.bind(y_outer, "blockIdx.y")
sch.bind(x_outer, "blockIdx.x")
sch.bind(y_inner, "threadIdx.y")
sch.bind(x_inner, "threadIdx.x")
sch.compute_at(b_A_shared, k_outer, preserve_unit_loops=True)
*_, ax0, ax1 = sch.get_loops(b_A_shared)
ax0_outer, ax0_inner = sch.split(ax0, factors=[16, None])
ax1_outer, ax1_inner = sch.split(ax1, factors=[16, None])
sch.bind(ax0_outer, "threadIdx.y")
sch.bind(ax1_outer, "threadIdx.x")
sch.compute_at(b_B_shared, k_outer, preserve_unit_loops=True)
*_, ax0_loop, ax1_loop = sch.get_loops(b_B_shared)
ax0_outer_loop, ax0_inner_loop = sch.split(ax0_loop, factors=[16, None])
ax1_outer_loop, ax1_inner_loop = sch.split(ax1_loop, factors=[16, None])
sch.bind(ax0_outer_loop, "threadIdx.y")
sch.bind(ax1_outer_loop, "threadIdx.x")
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_outer)
ty = te.thread_axis("threadIdx.y")
tx = te.thread_axis("threadIdx.x")
# TVM binds only loops that start at zero: a tile's axes start where the tile does, so each is
# split into 16 parts first and the parts are bound.

# variant: register blocks
# A 64x64 tile of C per block of 8x8 threads, 2x2 virtual threads: each thread accumulates 8x8
# elements in registers (C.local) from rows of the shared tiles copied into registers too.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
b_A_shared = sch.cache_read(b_C, 0, "shared")
b_B_shared = sch.cache_read(b_C, 1, "shared")
b_A_shared_local = sch.cache_read(b_C, 0, "local")
b_B_shared_local = sch.cache_read(b_C, 1, "local")
b_C_local = sch.cache_write(b_C, 0, "local")
y_loop, x_loop = sch.get_loops(b_C_local)
y_outer, y_inner = sch.split(y_loop, factors=[None, 64])
x_outer, x_inner = sch.split(x_loop, factors=[None, 64])
sch.bind(y_outer, "blockIdx.y")
sch.bind(x_outer, "blockIdx.x")
sch.reorder(x_outer, y_inner)
y_inner_outer, y_inner_inner = sch.split(y_inner, factors=[2, None])
y_inner_inner_outer, y_inner_inner_inner = sch.split(y_inner_inner, factors=[8, None])
x_inner_outer, x_inner_inner = sch.split(x_inner, factors=[2, None])
x_inner_inner_outer, x_inner_inner_inner = sch.split(x_inner_inner, factors=[8, None])
sch.bind(y_inner_outer, "vthread.x")
sch.bind(x_inner_outer, "vthread.y")
sch.bind(y_inner_inner_outer, "threadIdx.y")
sch.bind(x_inner_inner_outer, "threadIdx.x")
sch.reorder(x_inner_outer, y_inner_inner_outer, x_inner_inner_outer, y_inner_inner_inner)
sch.compute_at(b_C, x_inner_inner_outer, preserve_unit_loops=True)
*_, y_c, x_c, k_loop = sch.get_loops(b_C)
k_outer, k_inner = sch.split(k_loop, factors=[None, 8])
k_inner_outer, k_inner_inner = sch.split(k_inner, factors=[None, 1])
sch.reorder(k_outer, k_inner_outer, k_inner_inner, y_c, x_c)
sch.compute_at(b_A_shared_local, k_inner_outer, preserve_unit_loops=True)
sch.compute_at(b_A_shared, k_outer, preserve_unit_loops=True)
*_, ax0, ax1 = sch.get_loops(b_A_shared)
ax0_outer, ax0_inner = sch.split(ax0, factors=[8, None])
ax1_outer, ax1_inner = sch.split(ax1, factors=[None, 32])
ax1_inner_outer, ax1_inner_inner = sch.split(ax1_inner, factors=[8, None])
sch.bind(ax0_outer, "threadIdx.y")
sch.bind(ax1_inner_outer, "threadIdx.x")
sch.vectorize(ax1_inner_inner)
sch.compute_at(b_B_shared_local, k_inner_outer, preserve_unit_loops=True)
sch.compute_at(b_B_shared, k_outer, preserve_unit_loops=True)
*_, ax0_loop, ax1_loop = sch.get_loops(b_B_shared)
ax0_outer_loop, ax0_inner_loop = sch.split(ax0_loop, factors=[8, None])
ax1_outer_loop, ax1_inner_loop = sch.split(ax1_loop, factors=[None, 32])
ax1_inner_outer_loop, ax1_inner_inner_loop = sch.split(ax1_inner_loop, factors=[8, None])
sch.bind(ax0_outer_loop, "threadIdx.y")
sch.bind(ax1_inner_outer_loop, "threadIdx.x")
sch.vectorize(ax1_inner_inner_loop)
# C.local's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_outer)
scale = 8
num_thread = 8
block_factor = scale * num_thread
block_x = te.thread_axis("blockIdx.x")
thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
block_y = te.thread_axis("blockIdx.y")
thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
thread_xz = te.thread_axis((0, 2), "vthread", name="vx")
thread_yz = te.thread_axis((0, 2), "vthread", name="vy")
# The block's threads fetch the tiles together, four consecutive elements at a time.

# variant: unrolled
# As above, with the k loop of the register block unrolled: the tutorial's fastest step.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
b_A_shared = sch.cache_read(b_C, 0, "shared")
b_B_shared = sch.cache_read(b_C, 1, "shared")
b_A_shared_local = sch.cache_read(b_C, 0, "local")
b_B_shared_local = sch.cache_read(b_C, 1, "local")
b_C_local = sch.cache_write(b_C, 0, "local")
y_loop, x_loop = sch.get_loops(b_C_local)
y_outer, y_inner = sch.split(y_loop, factors=[None, 64])
x_outer, x_inner = sch.split(x_loop, factors=[None, 64])
sch.bind(y_outer, "blockIdx.y")
sch.bind(x_outer, "blockIdx.x")
sch.reorder(x_outer, y_inner)
y_inner_outer, y_inner_inner = sch.split(y_inner, factors=[2, None])
y_inner_inner_outer, y_inner_inner_inner = sch.split(y_inner_inner, factors=[8, None])
x_inner_outer, x_inner_inner = sch.split(x_inner, factors=[2, None])
x_inner_inner_outer, x_inner_inner_inner = sch.split(x_inner_inner, factors=[8, None])
sch.bind(y_inner_outer, "vthread.x")
sch.bind(x_inner_outer, "vthread.y")
sch.bind(y_inner_inner_outer, "threadIdx.y")
sch.bind(x_inner_inner_outer, "threadIdx.x")
sch.reorder(x_inner_outer, y_inner_inner_outer, x_inner_inner_outer, y_inner_inner_inner)
sch.compute_at(b_C, x_inner_inner_outer, preserve_unit_loops=True)
*_, y_c, x_c, k_loop = sch.get_loops(b_C)
k_outer, k_inner = sch.split(k_loop, factors=[None, 8])
k_inner_outer, k_inner_inner = sch.split(k_inner, factors=[None, 1])
sch.reorder(k_outer, k_inner_outer, k_inner_inner, y_c, x_c)
sch.unroll(k_inner_outer)
sch.compute_at(b_A_shared_local, k_inner_outer, preserve_unit_loops=True)
sch.compute_at(b_A_shared, k_outer, preserve_unit_loops=True)
*_, ax0, ax1 = sch.get_loops(b_A_shared)
ax0_outer, ax0_inner = sch.split(ax0, factors=[8, None])
ax1_outer, ax1_inner = sch.split(ax1, factors=[None, 32])
ax1_inner_outer, ax1_inner_inner = sch.split(ax1_inner, factors=[8, None])
sch.bind(ax0_outer, "threadIdx.y")
sch.bind(ax1_inner_outer, "threadIdx.x")
sch.vectorize(ax1_inner_inner)
sch.compute_at(b_B_shared_local, k_inner_outer, preserve_unit_loops=True)
sch.compute_at(b_B_shared, k_outer, preserve_unit_loops=True)
*_, ax0_loop, ax1_loop = sch.get_loops(b_B_shared)
ax0_outer_loop, ax0_inner_loop = sch.split(ax0_loop, factors=[8, None])
ax1_outer_loop, ax1_inner_loop = sch.split(ax1_loop, factors=[None, 32])
ax1_inner_outer_loop, ax1_inner_inner_loop = sch.split(ax1_inner_loop, factors=[8, None])
sch.bind(ax0_outer_loop, "threadIdx.y")
sch.bind(ax1_inner_outer_loop, "threadIdx.x")
sch.vectorize(ax1_inner_inner_loop)
# C.local's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_outer)
f = tvm.tirx.build(sch.mod, target="cuda")
scale = 8
num_thread = 8
block_factor = scale * num_thread
block_x = te.thread_axis("blockIdx.x")
thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
block_y = te.thread_axis("blockIdx.y")
thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
thread_xz = te.thread_axis((0, 2), "vthread", name="vx")
thread_yz = te.thread_axis((0, 2), "vthread", name="vy")
# The block's threads fetch the tiles together, four consecutive elements at a time.

