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

int main() {
    Counter<int> c{5};
    Counter<double> d{1.5};
    std::vector<int> v{1};
    int digits = std::numeric_limits<int>::digits;
    return twice(2) + static_cast<int>(twice(1.0) + d.value) + c.value + Counter<int>::count + digits +
           static_cast<int>(v.size());  // @bp:main
}
