/* A library whose static inline function is inlined twice and named in no symbol table:
   `break twice` finds it only by searching the library's DWARF (tests of that search:
   built with -gz=zlib, the search of compressed sections). */
static inline int twice(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += i ^ (s >> 1);
    return s;
}
int lib_entry(int v) { return twice(v) + 3 * twice(v + 3); }
