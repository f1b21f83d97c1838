// A class with a virtual method: g++ writes its definition into the debug info of the unit
// that defines its first virtual method alone (cpp_split_class_key.cpp); the other units
// only declare it.
#include <string>

class Registry {
public:
    explicit Registry(int size);
    virtual ~Registry();
    virtual int count() const;
    int size;
    std::string label;
    static constexpr double scale = 1.5;  // DW_AT_const_value: an 8-byte block
};

typedef long Stamp;

struct Settings {
    int level;
};

// References as members: gdb prints them `@0x...` inside a struct.
struct Session {
    Registry registry;  // by value: the struct holds what this unit only declares
    const Settings &settings;
    int &hits;
};

int touch(Stamp when, const std::string &name);
