# expect: 4: never closed
import tvm
from tvm import te
A = te.placeholder((8, 8, name="A")
