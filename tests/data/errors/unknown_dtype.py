# expect: 4: unknown dtype 'float31'
import tvm
from tvm import te
A = te.placeholder((8,), name="A", dtype="float31")
