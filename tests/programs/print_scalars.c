/* Scalars gdb.base/printcmds.exp prints: a flag enum with an alias of one bit, a non-flag
   enum, floats under /c and /a. */
enum flag_enum { FE_NONE = 0x00, FE_ONE = 0x01, FE_TWO = 0x02, FE_TWO_LEGACY = 0x02 };
enum flag_enum three = (enum flag_enum) (FE_ONE | FE_TWO);
enum not_flag_enum { NFE_ONE = 0x01, NFE_TWO = 0x02, NFE_F0 = 0xf0 };
enum not_flag_enum three_not_flag = (enum not_flag_enum) (NFE_ONE | NFE_TWO);
float f_var = 65.0;
double d_var = -1.0;

int main(void) {
    return three + three_not_flag + (int) f_var + (int) d_var; /* @bp:main */
}
