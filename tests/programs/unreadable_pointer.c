/* A pointer member read through a null pointer: the pointer itself cannot be read
   (tests/integration/test_unreadable_pointer.py). */
struct leaf { unsigned long m3; };
union node { struct { int a; struct leaf *inner; }; struct leaf *direct; };
struct holder { int tag; union node *link; };

struct holder g_holder = { 7, 0 };

int main(void) {
  return g_holder.tag; /* @bp:main */
}
