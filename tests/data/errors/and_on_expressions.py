# expect: 5: tvm.tir.all
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: tvm.tir.if_then_else(i > 1 and i < 6, A[i], 0.0), name="B")
