// Tests of the checks every analysis applies to the events it reads (issue 24: `check` called
// traces clean that `nodes` refused).
#include "analysis/stats/event_checks.h"

#include <gtest/gtest.h>

#include <string>

namespace nodescope::analysis {
namespace {

TraceEvent Keyed(double ts, double dur) {
  TraceEvent e;
  e.source = "t.json";
  e.offset = 42;
  e.ph = "X";
  e.cat = "kernel";
  e.name = "k";
  e.pid = TraceId{TraceId::Kind::kNumber, 7, {}};
  e.ts_us = ts;
  e.dur_us = dur;
  e.graph_id = 1;
  e.graph_node_id = uint64_t{1} << 32;
  return e;
}

std::string ErrorOf(const TraceEvent& e) {
  Status s = CheckEvent(e);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  return s.message();
}

TEST(CheckEvent, RefusesKeyedGpuEventsWithoutATime) {
  EXPECT_TRUE(CheckEvent(Keyed(10, 2)).ok());
  EXPECT_TRUE(CheckEvent(Keyed(-1e17, 0)).ok());  // at the limits
  EXPECT_EQ(ErrorOf(Keyed(10, -5)), "t.json: byte 42: \"dur\" is negative (-5.000000)");
  EXPECT_EQ(ErrorOf(Keyed(1e29, 1)),
            "t.json: byte 42: \"ts\" is 1e+29 us, too large for a time (at most 1e17 us)");
  EXPECT_EQ(ErrorOf(Keyed(1, 2e17)),
            "t.json: byte 42: \"dur\" is 2e+17 us, too large for a time (at most 1e17 us)");
  TraceEvent no_ts = Keyed(1, 1);
  no_ts.ts_us.reset();
  no_ts.cat = "gpu_memset";
  EXPECT_EQ(ErrorOf(no_ts), "t.json: byte 42: a gpu_memset event with graph keys has no \"ts\"");
  TraceEvent no_dur = Keyed(1, 1);
  no_dur.dur_us.reset();
  EXPECT_EQ(ErrorOf(no_dur), "t.json: byte 42: a kernel event with graph keys has no \"dur\"");
}

// What per-node series do not take is not checked: the same events in both.
TEST(CheckEvent, OtherEventsNeedNoTime) {
  TraceEvent e = Keyed(10, -5);
  e.ph = "i";
  EXPECT_TRUE(CheckEvent(e).ok());
  e = Keyed(10, -5);
  e.cat = "cpu_op";
  EXPECT_TRUE(CheckEvent(e).ok());
  e = Keyed(10, -5);
  e.graph_node_id = 0;  // CUPTI's "not from a graph"
  EXPECT_TRUE(CheckEvent(e).ok());
  e = Keyed(10, -5);
  e.graph_id.reset();
  EXPECT_TRUE(CheckEvent(e).ok());
  EXPECT_FALSE(IsKeyedGpuEvent(e));
  EXPECT_TRUE(IsKeyedGpuEvent(Keyed(10, -5)));
}

TEST(CheckEvent, RefusesPidsOfNoMergedProcess) {
  TraceEvent e;
  e.source = "t.json";
  e.offset = 3;
  e.pid = TraceId{TraceId::Kind::kNumber, (int64_t{511} << 22) | 5, {}};
  EXPECT_TRUE(CheckEvent(e).ok());
  e.pid.number = int64_t{512} << 22;
  EXPECT_EQ(ErrorOf(e),
            "t.json: byte 3: \"pid\" 2147483648 names no process of a merged trace (pids of "
            "merged traces are below 512 << 22)");
  e.pid.number = -1;  // not a slot: 0
  EXPECT_TRUE(CheckEvent(e).ok());
}

}  // namespace
}  // namespace nodescope::analysis
