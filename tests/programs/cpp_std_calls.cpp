// Calls a user makes on standard-library objects and const-overloaded methods: `*opt`
// (std::optional's operator* comes as `const&`, `&`, `&&` and `const&&`, only `&` emitted
// here), a const object's and a non-const object's `get()`, and a std::map keyed by
// std::string asked with a literal (`m["a"]`, `m.at("a")`: gdb binds the literal to the
// `key_type&&` and `const key_type&` parameters without converting it). A step into
// std::shared_ptr's operator-> (a frame of a class template whose arguments hold a cast
// value, `(__gnu_cxx::_Lock_policy)2`) and its finish.
#include <map>
#include <memory>
#include <optional>
#include <string>

struct Item {
    int weight;
};

static std::shared_ptr<Item> held = std::make_shared<Item>(Item{3});  // `this` not on the stack

static int weigh(const std::shared_ptr<Item> &item) {
    return item->weight;  // @bp:weigh
}

struct Counter {
    int n;
    int get() { return n + 100; }
    int get() const { return n; }
};

static double use(std::optional<double> &coupon, std::map<std::string, int> &stock, const std::string &key) {
    return *coupon + stock[key];
}

static std::optional<double> coupon = 2.5;  // not on the stack: its address is gdb's

int main() {
    std::map<std::string, int> stock{{"apple", 4}, {"pear", 2}};
    std::string key = "apple";
    Counter counter{5};
    const Counter fixed{7};
    double total = use(coupon, stock, key) + counter.get() + fixed.get() + weigh(held);
    return total > 0 ? 0 : 1;  // @bp:main
}
