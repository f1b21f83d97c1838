"""`python -m aliceserver --adapter dap` as one script path.

DebugClient (@vscode/debugadapter-testsupport) spawns `runtime executable` with no further
arguments, the way VS Code runs an extension's adapter; this file is that executable.
"""

import runpy
import sys

sys.argv = ["aliceserver", "--adapter", "dap", *sys.argv[1:]]
runpy.run_module("aliceserver", run_name="__main__", alter_sys=True)
