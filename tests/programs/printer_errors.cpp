// Values whose project printers fail in each of gdb's ways: the printer's construction
// (its lookup), to_string, children() and a later child raise.
struct Ctor { int a; };
struct BadString { int b; };
struct BadChildren { int c; };
struct BadNext { int d; };
struct Holder {
    Ctor ctor;
    BadString bad_string;
    int plain;
};

static int use(const void *p) { return p != nullptr; }

int main() {
    Ctor ctor{1};
    BadString bad_string{2};
    BadChildren bad_children{3};
    BadNext bad_next{4};
    Holder holder{{5}, {6}, 7};
    int sum = use(&ctor) + use(&bad_string) + use(&bad_children) + use(&bad_next) + use(&holder);
    return sum > 0 ? 0 : 1; /* @bp:main */
}
