// Fixture of skip_status_test (not registered itself): a plain program (like the `gpu` tests)
// that prints the lines given as arguments, one per line, and exits 0.
#include <cstdio>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) std::printf("%s\n", argv[i]);
  return 0;
}
