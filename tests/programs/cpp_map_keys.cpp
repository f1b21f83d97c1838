// A std::map<std::string, int> whose operator[](key_type&&) the program calls (so gdb
// finds its code): a string literal key then fails at gdb's cast to std::string.
#include <map>
#include <string>
int main() {
    std::map<std::string, int> stock;
    stock["apple"] = 10;
    std::string key = "apple";
    return stock.count(key) == 1 ? 0 : 1; /* @bp:here */
}
