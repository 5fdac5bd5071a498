// Tests of ROCTx ranges into the range recorder (rocprofiler_roctx.h): marker callbacks with the
// SDK's payload become nested push/pop ranges and start/stop ranges in domain "roctx", and the
// start/stop table pairs ids without locks, refusing a slot held by a range still open.
#include "backends/rocm/rocprofiler_roctx.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "base/clock.h"
#include "ranges/range_recorder.h"

namespace nodescope::rocprofiler {
namespace {

void Deliver(rocprofiler_marker_core_api_id_t op, rocprofiler_callback_phase_t phase,
             rocprofiler_callback_tracing_marker_api_data_t* d, RoctxStartStopTable* table) {
  rocprofiler_callback_tracing_record_t record{};
  record.kind = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
  record.operation = op;
  record.phase = phase;
  record.payload = d;
  rocprofiler_user_data_t user{};
  OnRoctx(record, &user, table);
}

// One call as the SDK delivers it: ENTER, the result set, EXIT.
void Call(rocprofiler_marker_core_api_id_t op, const char* message, uint64_t id,
          RoctxStartStopTable* table) {
  rocprofiler_callback_tracing_marker_api_data_t d{};
  d.size = sizeof(d);
  if (op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop) {
    d.args.roctxRangeStop.id = id;
  } else {
    d.args.roctxRangePushA.message = message;  // the same field for PushA, StartA, MarkA
  }
  Deliver(op, ROCPROFILER_CALLBACK_PHASE_ENTER, &d, table);
  if (op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA) d.retval.roctx_range_id_t_retval = id;
  Deliver(op, ROCPROFILER_CALLBACK_PHASE_EXIT, &d, table);
}

TEST(RoctxTest, MarkerCallbacksBecomeNestedAndStartStopRanges) {
  RangeRecorder& rec = RangeRecorder::Get();
  rec.Arm();
  const uint64_t since = NowNs();
  auto table = std::make_unique<RoctxStartStopTable>();
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, "outer", 0, table.get());
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, "inner", 0, table.get());
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, nullptr, 0, table.get());
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, "started", 77, table.get());
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, nullptr, 0, table.get());
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, "mark", 0, table.get());
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, nullptr, 78, table.get());  // unknown id
  EXPECT_EQ(rec.CurrentRange(), 0u);
  const uint64_t before_stop = NowNs();
  Call(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, nullptr, 77, table.get());
  Trace t;
  rec.Collect(t, since, NowNs());
  std::map<std::string, UserRange> m;
  t.ranges.ForEach([&](const UserRange& r) { m[std::string(t.strings.Get(r.name))] = r; });
  ASSERT_EQ(m.size(), 3u);  // the mark is not a range
  EXPECT_EQ(m["outer"].parent_id, 0u);
  EXPECT_EQ(m["inner"].parent_id, m["outer"].id);
  EXPECT_EQ(m["started"].parent_id, 0u);        // start/stop ranges do not nest
  EXPECT_GE(m["started"].end_ns, before_stop);  // ended by its own Stop, not the unknown id's
  EXPECT_LE(m["inner"].end_ns, m["outer"].end_ns);
  for (const auto& [name, r] : m) EXPECT_EQ(t.strings.Get(r.domain), "roctx") << name;
  EXPECT_EQ(table->Take(77), 0u);  // forgotten once stopped
}

TEST(RoctxTest, StartStopTablePairsIdsAndRefusesATakenSlot) {
  auto table = std::make_unique<RoctxStartStopTable>();
  EXPECT_TRUE(table->Insert(5, 100));
  EXPECT_FALSE(table->Insert(5 + RoctxStartStopTable::kSlots, 200));  // same slot, still open
  EXPECT_EQ(table->dropped(), 1u);
  EXPECT_EQ(table->Take(5 + RoctxStartStopTable::kSlots), 0u);
  EXPECT_EQ(table->Take(5), 100u);
  EXPECT_EQ(table->Take(5), 0u);
  EXPECT_TRUE(table->Insert(5 + RoctxStartStopTable::kSlots, 200));  // free again
  EXPECT_EQ(table->Take(5 + RoctxStartStopTable::kSlots), 200u);
}

}  // namespace
}  // namespace nodescope::rocprofiler
