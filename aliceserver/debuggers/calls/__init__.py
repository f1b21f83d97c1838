"""Calls into the program (gdb's infcall), written once over every live backend: the ABI's
plan of a call (plan.py, sysv.py, aapcs64.py: registers, stack, return trap address) and
the driver that runs it and says how it ended (driver.py), the trap it returns to
(returntrap.py). A backend offers the execution (CallThread): ptrace's in
ptrace/infcall.py, a stub's in remote/calls.py."""
