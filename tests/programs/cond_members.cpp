// Methods of three classes with one name (gdb.base/condbreak-multi-context.exp): a
// condition names a member only some of them have; gdb disables the others' locations.
struct Base {
    int b = 20;
    void func() {}
};

struct A : Base {
    int a = 10;
    void func() {}
};

struct C : Base {
    int c = 30;
    void func() {}
};

int main() {
    Base bobj;
    A aobj;
    C cobj;
    aobj.func();
    bobj.func();
    cobj.func();
    return 0;
}
