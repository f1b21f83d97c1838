// A C++ program whose stack passes through libstdc++ (no debug info there): gdb names those
// frames and the program's PLT stubs by their demangled symbols
// (`std::basic_ostream<char, std::char_traits<char> >::flush() ()`, `operator new(unsigned
// long)@plt`).
#include <iostream>
#include <string>

int main() {
  std::string *text = new std::string("hello");
  std::cout << *text << std::flush;
  delete text;
  return 0;
}
