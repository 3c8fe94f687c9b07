# expect: 4: expected ')' to close
import tvm
from tvm import te
A = te.placeholder((8, 8, name="A")
