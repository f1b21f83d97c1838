// A base class's member named through the object: `n.Shape::id`, `p->Shape::id`.
#include <string>
struct Shape {
    virtual ~Shape() {}
    int id = 1;
};
struct Square : Shape {
    double side = 2;
    int id = 7;  // hides Shape::id
};
struct Named : Square {
    std::string name = "sq";
};
int main() {
    Named n;
    Shape *p = &n;
    return n.id + p->id == 8 ? 0 : 1; /* @bp:here */
}
