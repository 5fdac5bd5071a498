// Kernel names made short enough for a legend, a row label or a table cell.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nodescope::analysis {

// The most of a name shown whole (a picture's tooltip, a table with no width limit): a trace can
// hold a name of any length, and a 100 MB name must not make a 100 MB picture.
constexpr size_t kMaxNameBytes = 1024;

// `name` when it is at most `max_bytes` bytes, else its head and tail around "…", at most
// `max_bytes` bytes in all, cut at code point boundaries.
std::string CappedName(std::string_view name, size_t max_bytes = kMaxNameBytes);

// A kernel name for a legend or a row label, keeping longest what tells kernels apart. Without a
// leading "void " and the parameter list; then, while longer than `max_chars` code points:
// without the enclosing namespaces; each template argument reduced to what names it
// ("at::native::GeluCUDAKernelImpl(...)::{lambda()#2}" -> "GeluCUDAKernelImpl"), what is nested
// in it collapsed ("F<…>"), number and boolean arguments dropped, then the last ones
// ("k<GeluCUDAKernelImpl, …>"), then the kernel's own name cut ("vectorized…<Gelu…, …>"). A name
// of '_'-separated tokens (cuBLAS, and CUTLASS's in cutlass::Kernel<cutlass_80_...>) loses whole
// tokens, its family and tile shapes last ("sm80_xmma_gemm…tilesize64x64x8…"). When none of
// that fits: "k<…>", then the middle ("ab…yz"). Of a name above 64 KiB, only its first and last
// 32 KiB are looked at.
std::string ShortKernelName(std::string_view name, size_t max_chars);

// `name` as it is when it fits in `max_chars` code points (0: no limit), else ShortKernelName().
std::string FitKernelName(std::string_view name, size_t max_chars);

}  // namespace nodescope::analysis
