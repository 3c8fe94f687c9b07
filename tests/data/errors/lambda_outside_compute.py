# expect: 4: lambda is only supported as the body of te.compute
import tvm
from tvm import te
f = lambda i: i + 1
