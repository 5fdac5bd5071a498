// Tests of kernel-name shortening.
#include "analysis/stats/kernel_name.h"

#include <gtest/gtest.h>

#include <string>

#include "base/utf8_text.h"

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

// What tells instances apart stays longest: the functor of an elementwise kernel, the tile shape
// of a GEMM (issue 9: "vectorized_…nel<…>" and "sm80_xmma_g…cublas" said nothing).
TEST(ShortKernelName, ThenNamespacesThenWhatTellsInstancesApart) {
  const char* gelu =
      "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
      "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
      "{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::detail::Array<char*, 2>)";
  // Namespaces first, then each template argument reduced to what names it.
  EXPECT_EQ(ShortKernelName(gelu, 70),
            "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl, Array<char*, 2>>");
  // Then numbers, then the last arguments; the functor stays.
  EXPECT_EQ(ShortKernelName(gelu, 60), "vectorized_elementwise_kernel<GeluCUDAKernelImpl, …>");
  // Then the kernel's own name gives way.
  EXPECT_EQ(ShortKernelName(gelu, 40), "vectorized…<GeluCUDAKernelImpl, …>");
  EXPECT_EQ(DisplayWidth(ShortKernelName(gelu, 40)), 34u);
  const char* add =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
  EXPECT_EQ(ShortKernelName(add, 100),
            "vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
            "std::array<char*, 3ul> >");
  EXPECT_EQ(ShortKernelName(add, 60), "vectorized_elementwise_kernel<CUDAFunctor_add<float>, …>");
  EXPECT_EQ(ShortKernelName("void k<G(int, float)::L, 2>(int)", 13), "k<G, 2>");
  // cuBLAS: whole tokens go, the family and the tile shape stay.
  const char* gemm =
      "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_"
      "alignc4_execute_kernel__5x_cublas";
  EXPECT_EQ(ShortKernelName(gemm, 74),
            "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8…warpsize1x4x1…cublas");
  EXPECT_EQ(ShortKernelName(gemm, 40), "sm80_xmma_gemm_f32f32…tilesize64x64x8…");
  EXPECT_EQ(ShortKernelName(gemm, 32), "sm80_xmma_gemm…tilesize64x64x8…");
  EXPECT_EQ(ShortKernelName(gemm, 24), "sm80…tilesize64x64x8…");
  // A lone identifier as template argument is the kernel's real name: its tokens go as above.
  const char* cutlass =
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>("
      "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)";
  EXPECT_EQ(ShortKernelName(cutlass, 80),
            "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>");
  EXPECT_EQ(ShortKernelName(cutlass, 50), "Kernel<cutlass_80_tensorop_s1688gemm_128x128…>");
  EXPECT_EQ(ShortKernelName(cutlass, 30), "Kernel<cutlass_80…128x128…>");
  // When nothing that tells instances apart fits: "k<…>", then the middle.
  EXPECT_EQ(ShortKernelName(gelu, 16), "vectorized…el<…>");
  EXPECT_EQ(ShortKernelName("abcdefgh", 2), "ab");
  EXPECT_EQ(ShortKernelName("ééééééééé", 5), "éé…éé");
}

// Names made of very many parts are cut in the middle at once, not part by part.
TEST(ShortKernelName, ManyPartsStayFast) {
  std::string tokens, args = "k<";
  for (int i = 0; i < 20000; ++i) {
    tokens += "ab_";
    args += i ? ", 1" : "1";
  }
  args += ">";
  for (const std::string& name : {tokens, args}) {
    const std::string cut = ShortKernelName(name, 40);
    EXPECT_LE(DisplayWidth(cut), 40u);
    EXPECT_GE(DisplayWidth(cut), 4u);  // "k<…>" at least
  }
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
