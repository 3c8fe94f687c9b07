# expect: 5: augmented assignment
import tvm
from tvm import te
M = 4
M += 1
