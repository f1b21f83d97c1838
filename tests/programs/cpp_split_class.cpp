// A unit that only declares Registry (its definition is cpp_split_class_key.cpp's).
#include "cpp_split_class.h"

int main() {
    Settings settings{4};
    int hits = 2;
    Session session{Registry(3), settings, hits};
    Registry *registry = &session.registry;
    int total = registry->count() + touch(5, "name");
    return total + session.hits;  // @bp:main
}
