// Tests of kernel-name shortening.
#include "analysis/kernel_name.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/svg_text.h"

namespace nodescope::analysis {
namespace {

TEST(ShortKernelName, DropsReturnTypeAndParametersFirst) {
  EXPECT_EQ(ShortKernelName("void step0<float>(float*, int)", 60), "step0<float>");
  EXPECT_EQ(ShortKernelName("ampere_sgemm_128x64_tn", 60), "ampere_sgemm_128x64_tn");
  EXPECT_EQ(ShortKernelName("Memcpy DtoD (Device -> Device)", 60),
            "Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(ShortKernelName("  weird \"quoted\" \\path\n", 60), "weird \"quoted\" \\path");
  EXPECT_EQ(ShortKernelName("void ns::(anonymous namespace)::k<int>(int)", 60),
            "ns::(anonymous namespace)::k<int>");
}

TEST(ShortKernelName, ThenTemplatesThenNamespacesThenTheMiddle) {
  const char* gelu =
      "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
      "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
      "{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::detail::Array<char*, 2>)";
  EXPECT_EQ(ShortKernelName(gelu, 50), "at::native::vectorized_elementwise_kernel<…>");
  // Before the arguments go, what is nested in them does.
  const char* add =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
  EXPECT_EQ(ShortKernelName(add, 100),
            "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<…>, "
            "std::array<…> >");
  EXPECT_EQ(ShortKernelName("void k<G(int, float)::L, 2>(int)", 13), "k<G(…)::L, 2>");
  EXPECT_EQ(ShortKernelName(gelu, 40), "vectorized_elementwise_kernel<…>");
  // A lone identifier as template argument is the kernel's real name: it stays.
  const char* cutlass =
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>("
      "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)";
  EXPECT_EQ(ShortKernelName(cutlass, 80),
            "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>");
  std::string cut = ShortKernelName(cutlass, 30);
  EXPECT_EQ(CodePoints(cut), 30u);
  EXPECT_EQ(cut, "Kernel<cutlass_80_t…nn_align4>");
  EXPECT_EQ(ShortKernelName("abcdefgh", 2), "ab");
  EXPECT_EQ(ShortKernelName("ééééééééé", 5), "éé…éé");
}

TEST(CappedName, HeadAndTailAroundAnEllipsisWithinTheBound) {
  EXPECT_EQ(CappedName("short", 1024), "short");
  EXPECT_EQ(CappedName("abcdefghij", 10), "abcdefghij");
  EXPECT_EQ(CappedName("abcdefghijk", 9), "abc\xE2\x80\xA6ijk");  // 3 + 3 bytes of ellipsis + 3
  // Cut at code point boundaries: never half of "é" (2 bytes).
  const std::string accents = "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9";
  const std::string capped = CappedName(accents, 8);
  EXPECT_LE(capped.size(), 8u);
  EXPECT_EQ(capped, "\xC3\xA9\xE2\x80\xA6\xC3\xA9");
  const std::string huge(100 << 20, 'x');  // 100 MiB
  EXPECT_EQ(CappedName(huge).size(), kMaxNameBytes);
}

TEST(FitKernelName, WholeWhenItFits) {
  const std::string k = "void node_kernel<3>(float*, int)";  // 32 code points
  EXPECT_EQ(FitKernelName(k, 0), k);
  EXPECT_EQ(FitKernelName(k, 32), k);
  EXPECT_EQ(FitKernelName(k, 31), "node_kernel<3>");
  EXPECT_EQ(FitKernelName("Memcpy HtoD (Pinned -> Device)", 40), "Memcpy HtoD (Pinned -> Device)");
}

}  // namespace
}  // namespace nodescope::analysis
