// C++ types both units of dwz_geo share (std::string, std::vector, a namespace): dwz
// moves their DIEs to partial units without DW_AT_language, with -m to the alt file.
#include <string>
#include <utility>
#include <vector>

namespace geo {
struct Point {
    int x, y;
};

class Shape {
public:
    Shape(std::string n, int w, int h) : name_(std::move(n)), w_(w), h_(h) {}
    int area() const { return w_ * h_; }  // @bp:dwz_geo_area
    std::string name_;
    int w_, h_;
    std::vector<Point> corners;
};

int total(const std::vector<Shape> &all);
}  // namespace geo
