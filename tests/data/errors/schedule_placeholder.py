# expect: 5: is a placeholder
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
s = te.create_schedule(A.op)
