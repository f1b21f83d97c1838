// Library types whose values gdb shows through libstdc++'s pretty printers.
#include <array>
#include <atomic>
#include <bitset>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

struct Point {
    int x;
    int y;
};

struct Holder {
    std::vector<int> items;
    std::string label;
};

static int use(const void *p) { return p != nullptr; }

int show(const std::vector<int> &numbers, std::string name, int count) {
    int total = count + static_cast<int>(numbers.size() + name.size());
    return total; /* @bp:callee */
}

int main() {
    std::vector<int> vi{1, 2, 3};
    std::vector<std::string> vs{"alpha", "beta"};
    std::vector<Point> vp{{1, 2}, {3, 4}};
    std::vector<bool> vb{true, false, true};
    std::vector<int> empty;
    std::string str = "hello";
    std::string long_str(300, 'x');
    std::string_view sv = "view";
    std::array<int, 4> arr{4, 5, 6, 7};
    std::deque<int> dq{7, 8, 9};
    std::list<int> lst{10, 20};
    std::forward_list<int> fl{30, 40};
    std::map<std::string, int> m{{"a", 1}, {"b", 2}};
    std::multimap<int, int> mm{{1, 10}, {1, 11}};
    std::set<int> st{5, 3};
    std::unordered_map<int, int> um{{1, 100}};
    std::unordered_set<int> us{42};
    std::unique_ptr<int> up = std::make_unique<int>(7);
    std::unique_ptr<Point> upnull;
    std::shared_ptr<Point> sp = std::make_shared<Point>(Point{5, 6});
    std::weak_ptr<Point> wp = sp;
    std::optional<int> opt = 3;
    std::optional<int> none;
    std::variant<int, std::string> var = std::string("v");
    std::tuple<int, double, std::string> tup{1, 2.5, "t"};
    std::pair<int, std::string> pr{9, "nine"};
    std::span<int> spn(vi);
    std::bitset<8> bits(0x5a);
    std::atomic<int> at{11};
    std::vector<int> big(250, 1);
    Holder holder{{1, 2}, "h"};
    std::map<int, std::vector<int>> nested{{1, {1, 2}}};
    // Empty containers and nested ones (conformance/printers_diff.py).
    std::vector<std::vector<int>> vvi{{1, 2}, {3}};
    std::map<std::string, std::vector<int>> msv{{"k", {1, 2}}, {"l", {}}};
    std::string empty_str;
    std::deque<int> empty_dq;
    std::list<int> empty_lst;
    std::forward_list<int> empty_fl;
    std::map<int, int> empty_map;
    std::set<int> empty_set;
    std::unordered_map<int, int> empty_um;
    std::unordered_set<int> empty_us;
    std::shared_ptr<int> empty_sp;
    std::variant<int, std::string> var_int = 4;
    // A vector read from garbage: 10^12 elements at an unreadable address.
    unsigned long junk[3] = {0x1000, 0x1000 + 4000000000000UL, 0x1000 + 4000000000000UL};
    auto *garbage = reinterpret_cast<std::vector<int> *>(junk);
    int sum = use(&vi) + use(&vs) + use(&vp) + use(&vb) + use(&empty) + use(&str) + use(&long_str) +
              use(&sv) + use(&arr) + use(&dq) + use(&lst) + use(&fl) + use(&m) + use(&mm) +
              use(&st) + use(&um) + use(&us) + use(&up) + use(&upnull) + use(&sp) + use(&wp) +
              use(&opt) + use(&none) + use(&var) + use(&tup) + use(&pr) + use(&spn) +
              use(&bits) + use(&at) + use(&big) + use(&holder) + use(&nested) + use(garbage);
    sum += use(&vvi) + use(&msv) + use(&empty_str) + use(&empty_dq) + use(&empty_lst) +
           use(&empty_fl) + use(&empty_map) + use(&empty_set) + use(&empty_um) + use(&empty_us) +
           use(&empty_sp) + use(&var_int);
    sum += show(vi, str, sum); /* @bp:main */
    return sum > 0 ? 0 : 1;
}
