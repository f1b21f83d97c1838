// C++ exceptions for catchpoints (test_catchpoints.py): thrown, caught, rethrown and
// caught again.
#include <cstdio>
#include <stdexcept>

__attribute__((noinline)) void thrower(int n) {
    if (n > 0)
        throw std::runtime_error("boom"); // @bp:throw
}

__attribute__((noinline)) void rethrower() {
    try {
        thrower(1);
    } catch (...) {
        throw; // @bp:rethrow
    }
}

int main() {
    try {
        rethrower();
    } catch (const std::exception &e) {
        std::printf("caught %s\n", e.what()); // @bp:caught
    }
    return 0;
}
