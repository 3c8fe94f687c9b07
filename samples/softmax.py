# Row-wise softmax: two reductions (max and sum) and two elementwise stages.
import tvm
from tvm import te

N = 1024
M = 1024

A = te.placeholder((N, M), name="A")
k1 = te.reduce_axis((0, M), name="k1")
maxelem = te.compute((N,), lambda i: te.max(A[i, k1], axis=k1), name="maxelem")
expval = te.compute((N, M), lambda i, j: te.exp(A[i, j] - maxelem[i]), name="expval")
k2 = te.reduce_axis((0, M), name="k2")
expsum = te.compute((N,), lambda i: te.sum(expval[i, k2], axis=k2), name="expsum")
softmax = te.compute((N, M), lambda i, j: expval[i, j] / expsum[i], name="softmax")

# variant: stages
# Every stage over the whole matrix: expval is a full N x M temporary.
s = te.create_schedule(softmax.op)

# variant: row fused
# Compute everything a row needs inside the row loop of softmax: the temporaries shrink to one row.
s = te.create_schedule(softmax.op)
i = softmax.op.axis[0]
s[expval].compute_at(s[softmax], i)
s[expsum].compute_at(s[softmax], i)
s[maxelem].compute_at(s[softmax], i)

# variant: row fused parallel
s = te.create_schedule(softmax.op)
i, j = softmax.op.axis
s[expval].compute_at(s[softmax], i)
s[expsum].compute_at(s[softmax], i)
s[maxelem].compute_at(s[softmax], i)
s[softmax].parallel(i)
jo, ji = s[softmax].split(j, factor=16)
s[softmax].vectorize(ji)
