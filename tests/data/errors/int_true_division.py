# expect: 5: ambiguous
import tvm
from tvm import te
A = te.placeholder((8,), name="A", dtype="int32")
B = te.compute((4,), lambda i: A[i / 2], name="B")
