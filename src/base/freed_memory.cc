#include "base/freed_memory.h"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace nodescope {

void ReturnFreedMemoryToSystem() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace nodescope
