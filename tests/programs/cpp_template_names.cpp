// Names with template arguments in expressions: a function template's instance
// (`twice<int>`) and a class template's static member (`Counter<int>::count`).
#include <limits>
#include <vector>

template <typename T> struct Counter {
    static int count;
    static const int limit = 7;
    T value;
};
template <typename T> int Counter<T>::count = 3;

template <typename T> T twice(T v) { return v + v; }

// A class template over a pointer type: ptype names T only where a type is T itself.
struct Node { int id; };
template <typename T, int N> class Pool {
public:
    T *slots() { return items; }
    T &at(int i) { return items[i]; }
    const T &peek() const { return items[0]; }
    void push(T item) { items[size++] = item; }
    T items[N];
    int size = 0;
};
int x = 1;
int *const pinned = &x;
int *const &pinned_ref = pinned;

int main() {
    Counter<int> c{5};
    Counter<double> d{1.5};
    std::vector<int> v{1};
    int digits = std::numeric_limits<int>::digits;
    Node node{9};
    Pool<Node *, 4> pool;
    pool.push(&node);
    return twice(2) + static_cast<int>(twice(1.0) + d.value) + c.value + Counter<int>::count + digits +
           static_cast<int>(v.size()) + pool.at(0)->id + *pinned_ref;  // @bp:main
}
