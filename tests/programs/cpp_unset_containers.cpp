// Library containers holding garbage, as locals read before their constructors ran (a
// breakpoint at a function's start): a vector whose elements are on the first page, which
// nothing maps; a string of an absurd length; a map whose first node is unmapped. The
// program ends with _exit: no destructor runs over the garbage.
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

static void spoil(void *object, std::size_t offset, unsigned long word) {
    std::memcpy(static_cast<char *>(object) + offset, &word, sizeof word);
}

static int use(const void *p) { return p != nullptr; }

int main() {
    std::vector<int> v{1, 2, 3};
    std::string s = "hello";
    std::map<int, int> m{{1, 2}};
    int marker = 7;
    spoil(&v, 0, 0x10);  // libstdc++'s _M_start, _M_finish, _M_end_of_storage
    spoil(&v, 8, 0x10 + 5 * sizeof(int));
    spoil(&v, 16, 0x10 + 5 * sizeof(int));
    spoil(&s, 0, 0x20);  // _M_p, _M_string_length
    spoil(&s, 8, 0xfffffffffffff000UL);
    spoil(&m, 24, 0x18);  // the header's _M_left (its first node), _M_node_count
    spoil(&m, 40, 3);
    _exit(use(&v) + use(&s) + use(&m) + marker);  // @bp:main
}
