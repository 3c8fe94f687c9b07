# expect: 4: expected
import tvm
from tvm import te
M = 4 +
