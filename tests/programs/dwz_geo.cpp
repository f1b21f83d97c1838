// A C++ program of two units sharing library and own types, for dwz (test_dwz.py).
#include <cstdio>
#include "dwz_geo.h"

int main()
{
    std::vector<geo::Shape> all;
    all.emplace_back("box", 2, 3);
    all.back().corners.push_back({1, 2});
    geo::Point p{4, 5};
    int t = geo::total(all);  // @bp:dwz_geo_main
    std::printf("%d %d\n", t, p.x);
    return 0;
}
