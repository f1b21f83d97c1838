// Methods and operators on values whatis, ptype and sizeof make up (gdb's value_zero):
// a call's class value is not in memory there, where print's is (a stack temporary).
#include <memory>
#include <vector>
struct Item {
    int price;
    int total() const { return price * 2; }
};
int main() {
    std::vector<Item> items{{3}, {5}};
    auto featured = std::make_unique<Item>(Item{9});
    int sum = items[0].total() + featured->total() + items.data()->price;
    for (auto it = items.begin(); it != items.end(); ++it)
        sum += it->price + (*it).price + (int)(it.base() - items.data());
    return sum > 0 ? 0 : 1; /* @bp:here */
}
