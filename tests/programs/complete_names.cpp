// -complete's breakpoint locations: members found by a name without their scope (gdb's
// wild matching), listed with their parameters, and main, whose ELF symbol is unmangled.
struct Stack {
    int items[4];
    int count;
    void push_item(int *value) { items[count++] = *value; }
};

namespace shelf {
int push_count(char **names) { return names != 0; }
}

int main(int argc, char **argv) {
    Stack stack{};
    int value = argc;
    stack.push_item(&value);
    return shelf::push_count(argv) - 1;
}
