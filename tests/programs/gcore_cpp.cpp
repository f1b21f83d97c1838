// gcore of a live C++ stop: a method of a class holding library types (std::string,
// std::vector, std::map) whose values gdb shows through libstdc++'s printers.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

class Inventory {
  public:
    explicit Inventory(std::string owner) : owner_(std::move(owner)) {}
    void add(const std::string &item, int count) {
        items_.push_back(item);
        counts_[item] += count;
    }
    __attribute__((noinline)) int total(int bonus) const {
        int sum = bonus;
        for (const auto &entry : counts_)
            sum += entry.second;
        return sum; /* @bp:total */
    }

  private:
    std::string owner_;
    std::vector<std::string> items_;
    std::map<std::string, int> counts_;
};

int main() {
    Inventory stock("warehouse");
    stock.add("bolts", 40);
    stock.add("nuts", 2);
    std::vector<double> prices{1.25, 0.5};
    std::printf("%d %zu\n", stock.total(7), prices.size());
    return 0;
}
