// Registry's key function (its first virtual method) is here: so is its definition in the
// debug info (cpp_split_class.h).
#include "cpp_split_class.h"

Registry::Registry(int size) : size(size), label("reg") {}
Registry::~Registry() {}
int Registry::count() const { return size; }

int touch(Stamp when, const std::string &name) {
    return static_cast<int>(when) + static_cast<int>(name.size());  // @bp:touch
}
