// The second unit of dwz_geo (see dwz_geo.h).
#include "dwz_geo.h"

namespace geo {
int total(const std::vector<Shape> &all)
{
    int sum = 0;
    for (const Shape &s : all)
        sum += s.area();  // @bp:dwz_geo_sum
    return sum;
}
}  // namespace geo
