"""The Linux x86-64 ptrace engine."""
