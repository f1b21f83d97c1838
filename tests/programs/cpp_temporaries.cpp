// Methods called on temporaries (an iterator a call returns: `*items.begin()`), and calls
// whose declared return type is a typedef (the value's type is what it names).
#include <map>
#include <string>
#include <vector>

struct Item {
    std::string name;
    int weight;
};

typedef Item *ItemPtr;
static Item spare{"spare", 9};
ItemPtr spare_item() { return &spare; }

// Uses each method the test calls, so that the compiler emits it.
static int weigh(std::vector<Item> &items, std::map<std::string, int> &index) {
    int sum = (*items.begin()).weight + (*(items.end() - 1)).weight + items.front().weight + items.at(1).weight;
    return sum + static_cast<int>(index.size());
}

int main() {
    std::vector<Item> items{{"a", 3}, {"b", 5}};
    std::map<std::string, int> index{{"a", 3}, {"b", 5}};
    ItemPtr p = spare_item();
    int sum = weigh(items, index);
    return static_cast<int>(items.size() + index.size()) + p->weight + sum - 30;  // @bp:main
}
