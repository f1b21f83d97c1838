/* Wide strings for L"..", u"..", U"..' literals and printf's %ls and %lc. */
#include <uchar.h>
#include <wchar.h>

wchar_t wide[] = L"wide";
char16_t c16[] = u"sixteen";
char32_t c32[] = U"thirtytwo";
const wchar_t *wptr = L"pointer";

int main(void) {
    return wide[0] + c16[0] + c32[0] + wptr[0]; /* @bp:main */
}
