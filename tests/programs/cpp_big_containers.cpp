// Containers too big to read whole: a client shows their first page of children.
#include <map>
#include <vector>

int main() {
    std::vector<int> big(10000000);
    for (int i = 0; i < 10000000; ++i)
        big[i] = i;
    std::map<int, int> tree;
    for (int i = 0; i < 1000000; ++i)
        tree.emplace_hint(tree.end(), i, i * 2);
    int last = big[9999999] + tree.rbegin()->second; /* @bp:ready */
    return last > 0 ? 0 : 1;
}
