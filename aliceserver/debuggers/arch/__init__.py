"""CPU architectures behind one interface (base.Architecture): x86-64 (x86_64.py, SysV
in sysv.py) and AArch64 (aarch64.py, AAPCS64 in aapcs64.py); registry.py picks one by a
program's ELF e_machine or by gdb's name for it."""
