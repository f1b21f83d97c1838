"""Jump patches: a breakpoint or trace point that costs no stop when it need not stop.

An int3 trap stops the program at every hit, about 8 us each, even when its condition is
false or its ignore count not reached. A jump patch replaces the instructions at the site
(at least 5 bytes of whole instructions) by a `jmp rel32` to a trampoline in the program,
which judges the condition there and stops only when it must. The parts:

- area.py: a patch area per module. Code: private anonymous memory mapped read+execute
  within a jmp rel32 of the module, written by the engine through /proc/PID/mem. Data: a
  memfd mapped shared in the program and in the server (shared_memory.py; the server's
  own memfd when the program may not make one), so the server reads hit counters and ring
  buffers without stopping anything. Made by system calls the engine runs in the stopped
  program (inject.py), registers put back exactly.
- sites.py: plan_site, the span a patch displaces, or a Refusal the user can read (a
  branch lands inside the span, jump tables, a call returning inside it, the span leaves
  the function, an instruction that cannot be relocated).
- relocate.py: the displaced instructions re-encoded to run in the trampoline
  (RIP-relative displacements, rel8 branches widened, calls retargeted), or Unrelocatable.
- codegen.py, trampoline.py: the condition as machine code and the trampoline around it.
- install.py: the PatchTable writing and removing the jump (all threads stopped, none
  inside the span), masking it from memory reads, and stripping it from fork children.

The trampoline's contract: the patch jumps to it with every register of the program
intact. It moves rsp below the red zone (lea rsp,[rsp-128]), saves rflags and the 16
general registers in the layout trampoline.py's SavedRegisters defines, runs the
condition; when true it increments the patch's hit counter (lock inc, in the data area)
and compares it with the ignore count. To stop it executes an int3 at a known address
(stop_trap): the engine puts back the program's registers from the saved block and shows
the thread stopped at the site, and resumes it later at displaced_entry. When the compiled
condition cannot decide, a second int3 (judge_trap) hands it to the general evaluator.
Otherwise it restores registers, flags and rsp, runs the displaced instructions
(displaced_entry) and jumps back to the end of the span. A fault in the condition code (a
SIGSEGV with the pc in the code area) is reported with gdb's "Error in testing condition
for breakpoint N:", the patch removed, and the thread put back at the site, stopped.
"""
