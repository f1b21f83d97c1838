/* A local of main written through a pointer in a callee: a watchpoint on it is read in
   main's frame wherever it traps (gdb's watchpoint_frame). The pointer is a global, so
   that no stack address shows in the callee's frame line. */
int global = 0;
int *target;

int func(void) {
    (*target)++; /* @bp:write */
    global++;
    return 0;
}

int main(void) {
    int q = 0; /* @bp:main */
    target = &q;
    func();
    func();
    return 0;
}
