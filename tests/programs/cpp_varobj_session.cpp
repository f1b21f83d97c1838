// Containers that change between stops, for MI dynamic var objects (pretty printers'
// children) over a session: a vector that grows, a map that shrinks.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

int main() {
    std::vector<int> v;
    for (int i = 0; i < 10; ++i)
        v.push_back(i * 10);
    std::map<int, std::string> m = {{1, "one"}, {2, "two"}, {3, "three"}, {4, "four"}};
    int step = 1; /* @bp:first */
    v.push_back(100);
    step = 2; /* @bp:grown */
    v.push_back(110);
    v.push_back(120);
    m.erase(2);
    step = 3; /* @bp:changed */
    m.erase(1);
    m.erase(3);
    v[0] = -1;
    step = 4; /* @bp:last */
    std::printf("%zu %zu %d\n", v.size(), m.size(), step);
    return 0;
}
