// LoadPtiApi() in a process without PTI (this test links none): the error a user sees from
// `nodescope run --backend xpu` on a program that never loads PTI, naming PTI's first function.
#include "backends/xpu/pti_api.h"

#include <gtest/gtest.h>

namespace nodescope::pti {
namespace {

TEST(PtiApi, WithoutPtiInTheProcessSaysSoNamingTheFirstFunction) {
  EXPECT_EQ(LoadPtiApi().status().ToString(),
            "UNAVAILABLE: PTI (libpti_view.so.1) is not loaded in this process (ptiVersion not "
            "found): the pti backend traces programs that use oneAPI's PTI (nodescope run "
            "--backend xpu)");
}

}  // namespace
}  // namespace nodescope::pti
