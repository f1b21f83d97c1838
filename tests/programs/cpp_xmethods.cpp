// Library types whose methods and operators gdb evaluates through libstdc++'s xmethods.
#include <array>
#include <bitset>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

struct Rect {
    int w;
    int h;
    int area() const { return w * h; }
};

struct Node {
    int value;
    std::string name;
};

static int use(const void *p) { return p != nullptr; }

int main() {
    std::vector<int> v{10, 20, 30};
    std::vector<bool> vb{true, false, true};
    std::vector<Rect> rects{{1, 2}, {3, 4}};
    std::vector<int> none;
    std::map<std::string, int> m{{"a", 1}, {"b", 2}};
    std::set<int> s{5, 3, 9};
    std::unordered_map<int, int> um{{1, 100}, {2, 200}};
    std::unique_ptr<Node> up = std::make_unique<Node>(Node{7, "seven"});
    std::unique_ptr<int[]> ua(new int[3]{4, 5, 6});
    std::shared_ptr<Rect> sp = std::make_shared<Rect>(Rect{5, 6});
    std::optional<int> opt = 3;
    std::string str = "hello";
    std::deque<int> dq{7, 8, 9, 10};
    std::list<int> l{11, 12};
    std::forward_list<int> fl{13, 14};
    std::array<int, 4> arr{4, 5, 6, 7};
    std::bitset<8> bs(0x5a);
    Rect plain{2, 3};
    std::vector<int> grow;
    for (int i = 0; i < 4; ++i) {
        grow.push_back(i); /* @bp:grow */
    }
    int sum = use(&v) + use(&vb) + use(&rects) + use(&none) + use(&m) + use(&s) + use(&um) +
              use(&up) + use(&ua) + use(&sp) + use(&opt) + use(&str) + use(&dq) + use(&l) +
              use(&fl) + use(&arr) + use(&bs) + use(&plain) + use(&grow);
    int code = sum > 0 ? 0 : 1; /* @bp:main */
    return code;
}
