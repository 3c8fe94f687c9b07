# Row-wise softmax on a GPU: the two reductions of each row (its maximum, then the sum of the
# exponentials) done by a block's threads together, as TVM's CUDA softmax schedule does
# (tvm_thread_allreduce: warp shuffles, then the warps' results through shared memory).
# On an NVIDIA GPU (through loopscope-runner) every variant runs there, checked and timed;
# without one, every variant is checked on the CPU and not timed.
import tvm
from tvm import te

N = 4096
M = 1024
num_thread = 128

A = te.placeholder((N, M), name="A")
k1 = te.reduce_axis((0, M), name="k1")
maxelem = te.compute((N,), lambda i: te.max(A[i, k1], axis=k1), name="maxelem")
expval = te.compute((N, M), lambda i, j: te.exp(A[i, j] - maxelem[i]), name="expval")
k2 = te.reduce_axis((0, M), name="k2")
expsum = te.compute((N,), lambda i: te.sum(expval[i, k2], axis=k2), name="expsum")
softmax = te.compute((N, M), lambda i, j: expval[i, j] / expsum[i], name="softmax")

# variant: kernels
# Three kernels, one block per row in each: the maximum, the sum of the exponentials, the quotient.
s = te.create_schedule(softmax.op)
s[expval].compute_inline()
ko, ki = s[maxelem].split(maxelem.op.reduce_axis[0], factor=num_thread)
s[maxelem].bind(maxelem.op.axis[0], te.thread_axis("blockIdx.x"))
s[maxelem].bind(ki, te.thread_axis("threadIdx.x"))
ko, ki = s[expsum].split(expsum.op.reduce_axis[0], factor=num_thread)
s[expsum].bind(expsum.op.axis[0], te.thread_axis("blockIdx.x"))
s[expsum].bind(ki, te.thread_axis("threadIdx.x"))
i, j = softmax.op.axis
jo, ji = s[softmax].split(j, factor=num_thread)
s[softmax].bind(i, te.thread_axis("blockIdx.x"))
s[softmax].bind(ji, te.thread_axis("threadIdx.x"))

# variant: one kernel
# Everything a row needs computed in its block: the row's maximum and sum stay in shared memory.
s = te.create_schedule(softmax.op)
s[expval].compute_inline()
tx = te.thread_axis("threadIdx.x")
i, j = softmax.op.axis
jo, ji = s[softmax].split(j, factor=num_thread)
s[softmax].bind(i, te.thread_axis("blockIdx.x"))
s[softmax].bind(ji, tx)
s[maxelem].compute_at(s[softmax], i)
ko, ki = s[maxelem].split(maxelem.op.reduce_axis[0], factor=num_thread)
s[maxelem].bind(ki, tx)
s[expsum].compute_at(s[softmax], i)
ko, ki = s[expsum].split(expsum.op.reduce_axis[0], factor=num_thread)
s[expsum].bind(ki, tx)

f = tvm.build(s, [A, softmax], target="cuda")
