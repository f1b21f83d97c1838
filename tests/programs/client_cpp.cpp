// Library values in the editors and agent front ends (Emacs gdb-mi, Vim termdebug, the
// CLI): small std containers shown through libstdc++'s printers, and one too big to list.
#include <map>
#include <memory>
#include <string>
#include <vector>

int main() {
    std::vector<int> numbers{1, 2, 3};
    std::map<std::string, int> ages{{"ann", 31}, {"bob", 42}};
    std::string name = "hello";
    std::unique_ptr<int> owned = std::make_unique<int>(7);
    std::vector<int> big(100000);
    for (int i = 0; i < 100000; ++i)
        big[i] = i;
    int count = static_cast<int>(numbers.size() + ages.size() + name.size()); /* @bp:ready */
    return count + *owned + big[99999] > 0 ? 0 : 1; /* @bp:end */
}
