/* Brace lists assigned to structs and arrays, and values too big for bitfields
   (gdb.base/setvar.exp's). */
enum senum { sm1 = -1, s1 = 1 };
enum uenum { u1 = 1, u2 = 2 };
struct senum_field { enum senum field : 2; } sef;
struct uenum_field { enum uenum field : 2; } uef;
struct inner { char c; short s; int i; long l; float f; double d; };
struct outer { long l; struct inner t; char c; unsigned u : 3; int arr[3]; } o;
union either { int i; char c; } un;
int a3[3];

int main(void)
{
  sef.field = s1;
  uef.field = u1;
  o.l = 1;
  return 0;
}
