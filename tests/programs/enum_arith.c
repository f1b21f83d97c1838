/* Enums of every width in expressions (tests/integration/test_enum_arith.py). */
enum small { S0, S1 = 5 };
enum neg { N0 = -3, N1 = 4 };
enum big { B0 = 1099511627776, B1 = 3 };
enum flags { F1 = 1, F2 = 2, F4 = 4 };
enum small s = S1;
enum neg n = N0;
enum big b = B1;
enum flags f = F2;

int main(void) {
  enum big zero = (enum big)0;
  return s + n + (int)b + f + (int)zero; /* @bp:enums */
}
