// Types for the type-name index tests (tests/unit/symbols/test_typenames.py): namespaces,
// nested classes and typedefs, templates, an anonymous namespace, a forward declaration.
#include <map>
#include <string>
#include <vector>

namespace outer {
namespace inner {
struct Leaf {
    int value;
    struct Nested {
        long depth;
    };
    typedef unsigned long size_type;
    enum Colour { RED, GREEN };
};
}  // namespace inner

template <typename T, int N>
struct Box {
    T items[N];
    typedef T value_type;
};
}  // namespace outer

namespace {
struct Hidden {
    char tag;
};
}  // namespace

struct Declared;  // defined below, after a use through a pointer
struct User {
    Declared *later;
};
struct Declared {
    double weight;
};

int main() {
    outer::inner::Leaf leaf{1};
    outer::inner::Leaf::Nested nested{2};
    outer::inner::Leaf::size_type size = 3;
    outer::inner::Leaf::Colour colour = outer::inner::Leaf::GREEN;
    outer::Box<const char *, 2> box{{"a", "b"}};
    outer::Box<unsigned long, 1> ubox{{4}};
    Hidden hidden{'h'};
    Declared declared{1.5};
    User user{&declared};
    std::vector<int> numbers{1, 2};
    std::map<std::string, int> table{{"k", 1}};
    return leaf.value + int(nested.depth) + int(size) + colour + int(ubox.items[0]) + hidden.tag +
           int(user.later->weight) + numbers[0] + table["k"] + (box.items[0][0] == 'a'); /* @bp:end */
}
