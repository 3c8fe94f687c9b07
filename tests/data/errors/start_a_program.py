# expect: 5: name 'subprocess' is not defined: a TE script is not Python, and nothing in it reads or writes files or starts programs
import tvm
from tvm import te
import subprocess
subprocess.run(["touch", "/tmp/loopscope-was-here"])
