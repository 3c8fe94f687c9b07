# expect: 5: conditional expressions
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] if i > 2 else 0.0, name="B")
