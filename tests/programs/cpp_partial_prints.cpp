// Values gdb prints in part: a library container read from unreadable memory inside a
// struct (the struct's print stops at the container's first element, with the error), and
// strings whose length counts a NUL at their end (gdb shows one NUL fewer).
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

struct Wrapped {
    int before;
    std::vector<int> items;
    int after;
};

struct Outer {
    Wrapped inner;
    int tail;
};

static int use(const void *p) { return p != nullptr; }

int main() {
    // items' start and end point at the first page, which nothing maps: 5 elements.
    alignas(Outer) unsigned char raw[sizeof(Outer)];
    std::memset(raw, 0, sizeof raw);
    unsigned long begin = 0x10, end = 0x10 + 5 * sizeof(int);
    std::memcpy(raw + offsetof(Wrapped, items), &begin, sizeof begin);
    std::memcpy(raw + offsetof(Wrapped, items) + 8, &end, sizeof end);
    std::memcpy(raw + offsetof(Wrapped, items) + 16, &end, sizeof end);
    int tail = 7;
    std::memcpy(raw + offsetof(Outer, tail), &tail, sizeof tail);
    auto *outer = reinterpret_cast<Outer *>(raw);
    Wrapped *wrapped = &outer->inner;
    std::vector<Wrapped> several(1);
    std::string one_nul = "trail";
    one_nul.push_back('\0');
    std::string two_nuls = "ab";
    two_nuls.append(2, '\0');
    std::string inner_nul("a\0b", 3);
    return use(outer) + use(wrapped) + use(&several) + use(&one_nul) + use(&two_nuls) + use(&inner_nul);  // @bp:main
}
