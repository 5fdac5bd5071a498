// Gives memory the process has freed back to the system.
//
// A capture or streaming part copies the ring's window (hundreds of MB), writes it and frees the
// copy. glibc serves those 384 KiB chunks with mmap at first, but once such a block is freed it
// raises its mmap threshold above their size, so the next copy comes from the heap and stays
// resident after it is freed: on the H200 the traced process's RSS stepped up by one window
// (+205 MB) at the first capture and stayed there (bench/RESULTS.md, ring mode). Calling this
// after the copy is freed returns those pages.
#pragma once

namespace nodescope {

// malloc_trim(0) where the C library has it; otherwise nothing. Takes a few milliseconds per
// hundred MB of free heap; call it off the hot path (after a capture is written).
void ReturnFreedMemoryToSystem();

}  // namespace nodescope
