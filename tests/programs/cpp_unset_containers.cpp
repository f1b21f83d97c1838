// Library containers holding garbage, as locals read before their constructors ran (a
// breakpoint at a function's start): a vector whose elements are on the first page, which
// nothing maps; a string of an absurd length and one whose text is unmapped; a map, a list
// and a hash map whose first node is unmapped; a shared_ptr whose counts are; a pointer to a
// virtual method all ones. The program ends with _exit: no destructor runs over the garbage.
#include <unistd.h>

#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

struct Shape {
    virtual int sides() { return 0; }
};

static void spoil(void *object, std::size_t offset, unsigned long word) {
    std::memcpy(static_cast<char *>(object) + offset, &word, sizeof word);
}

static int use(const void *p) { return p != nullptr; }

int main() {
    std::vector<int> v{1, 2, 3};
    std::string s = "hello";
    std::map<int, int> m{{1, 2}};
    std::string text = "hi";
    std::list<int> l{1};
    std::unordered_map<int, int> um{{1, 1}};
    std::shared_ptr<int> sp = std::make_shared<int>(1);
    int (Shape::*method)() = &Shape::sides;
    int marker = 7;
    spoil(&v, 0, 0x10);  // libstdc++'s _M_start, _M_finish, _M_end_of_storage
    spoil(&v, 8, 0x10 + 5 * sizeof(int));
    spoil(&v, 16, 0x10 + 5 * sizeof(int));
    spoil(&s, 0, 0x20);  // _M_p, _M_string_length
    spoil(&s, 8, 0xfffffffffffff000UL);
    spoil(&m, 24, 0x18);  // the header's _M_left (its first node), _M_node_count
    spoil(&m, 40, 3);
    spoil(&text, 0, 0x60);  // _M_p (its length stays 2)
    spoil(&l, 0, 0x40);  // the header's _M_next (the first node)
    spoil(&um, 16, 0x48);  // _M_before_begin._M_nxt (the first node), _M_element_count
    spoil(&um, 24, 2);
    spoil(&sp, 8, 0x50);  // _M_refcount._M_pi
    spoil(&method, 0, ~0UL);  // virtual (the low bit), at table offset -2
    _exit(use(&v) + use(&s) + use(&m) + use(&text) + use(&l) + use(&um) + use(&sp) + use(&method) + marker);  // @bp:main
}
