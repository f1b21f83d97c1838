// gdb's `print static-members`, `print max-depth` and `print union` over classes, bases,
// references, unions and library values through their printers.
#include <map>
#include <string>
#include <vector>
struct Item {
    std::string name;
    int price;
    static int count;
    static const int limit = 7;
};
int Item::count = 3;
struct Inner {
    int deep[2];
    Item item;
};
struct Base {
    int b;
};
union Tag {
    int i;
    float f;
};
struct Holder : Base {
    Tag tag;
    Inner inner;
    std::vector<Item> items;
    std::map<int, Inner> byid;
};
int main() {
    Holder h{};
    h.items.push_back({"apple", 3});
    h.byid[1] = Inner{{1, 2}, {"pear", 5}};
    Holder &ref = h;
    return ref.items.size() == 1 ? 0 : 1; /* @bp:here */
}
