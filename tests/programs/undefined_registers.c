/* Registers an outer frame lost: the callee's CFI marks them undefined (gdb's <not saved>). */
volatile int sink;

__attribute__((noinline)) void innermost(void)
{
    __asm__ volatile(".cfi_undefined rax\n\t.cfi_undefined rbx\n\t.cfi_undefined rdx" ::: "memory");
    sink++; /* @bp:innermost */
}

__attribute__((noinline)) void middle(void)
{
    innermost();
    sink++;
}

int main(void)
{
    middle();
    return sink == 2 ? 0 : 1;
}
