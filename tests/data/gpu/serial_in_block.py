# Each block runs all 256 elements of its row in one thread: a warning, not an error.
import tvm
from tvm import te

A = te.placeholder((64, 256), name="A")
B = te.compute((64, 256), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
f = tvm.build(s, [A, B], target="cuda")
