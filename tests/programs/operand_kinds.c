/* Operands of every kind for gdb's operator errors: numbers, pointers, arrays, a struct,
   an anonymous struct, a union, a function. */
struct pair { int first; long second; } a_pair = { 1, 2 };
struct { int x; } anonymous;
union either { int i; char c; } an_either = { 65 }, other_either = { 65 };
int numbers[3] = { 10, 20, 30 };
int *pointer = numbers;
int **pointer_pointer = &pointer;
struct pair *pair_pointer = &a_pair;
struct pair **pair_pointer_pointer = &pair_pointer;
int number = 5;
float real = 1.5f;

int main(void)
{
  return number - 5;
}
