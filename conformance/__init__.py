"""Differential checks: the same debugging scenario under gdb and under aliceserver's engine."""
