// Compiled, not run, by the tests build_flag_known / build_flag_misspelt (src/CMakeLists.txt)
// with FLAG a real build flag and a misspelt one: the first compiles, the second must not.
#include "base/build_config.h"

#if NODESCOPE_BUILDFLAG(FLAG)
int main() { return 0; }
#else
int main() { return 1; }
#endif
