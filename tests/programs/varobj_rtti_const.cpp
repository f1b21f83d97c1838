// A const pointer to a polymorphic class shown with print object on: gdb keeps the
// pointer's own qualifier on the dynamic type (`Circle * const`, as `this` is).
struct Shape {
    virtual ~Shape() {}
    int id = 1;
};

struct Circle : Shape {
    int radius = 2;
};

int measure(Shape *shape)
{
    Shape *const fixed = shape;
    const Shape *const viewed = shape;
    return fixed->id + viewed->id; // @bp:measure
}

int main()
{
    Circle circle;
    return measure(&circle) > 100;
}
