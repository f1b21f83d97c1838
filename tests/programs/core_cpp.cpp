/* A C++ crash whose frame holds library types (std::vector, std::string) for the core tests:
 * their values come through libstdc++'s pretty printers, as gdb shows them. */
#include <string>
#include <vector>

__attribute__((noinline)) int crash(const std::vector<int> &numbers, const std::string &name) {
    volatile int *wild = (volatile int *)0x10;
    return *wild + (int)numbers.size() + (int)name.size(); /* @bp:crash */
}

int main() {
    std::vector<int> numbers{3, 1, 4, 1, 5};
    std::string name = "core-file printers";
    std::vector<std::string> words{"alpha", "beta"};
    return crash(numbers, name) + (int)words.size();
}
