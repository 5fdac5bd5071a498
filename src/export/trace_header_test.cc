// Tests of the trace header: every counter under "nodescope", the attribution block, versions
// and device properties, byte for byte.
#include "export/trace_header.h"

#include <gtest/gtest.h>

#include <string>

namespace nodescope {
namespace {

std::string Header(const Trace& t, uint64_t base_ns = 0) {
  StringJsonOutput out;
  WriteTraceHeader(t, base_ns, out);
  return out.str();
}

TEST(TraceHeader, EmptyTrace) {
  const std::string h = Header(Trace{}, 42);
  EXPECT_EQ(
      h.rfind("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n  \"nodescope\": ", 0), 0u)
      << h;
  EXPECT_NE(h.find(R"("dropped_records":{"vendor_dropped":0,"buffers_refused":0,"store_full":0,)"
                   R"("unknown_records":0,"total":0},"ranges":{"recorded":0,"unbalanced_pops":0,)"
                   R"("open_at_end":0,"ended_on_other_thread":0,"ended_at_thread_exit":0,)"
                   R"("unknown_ends":0,"dropped":0,"device_spans":0}},)"
                   "\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 42,\n"),
            std::string::npos)
      << h;
  EXPECT_EQ(h.find("attribution"), std::string::npos);  // no attribution engine, no block
}

TEST(TraceHeader, CountersAttributionVersionsAndDevices) {
  Trace t;
  t.range_counters = {.unbalanced_pops = 1,
                      .open_at_end = 2,
                      .ended_on_other_thread = 3,
                      .ended_at_thread_exit = 6,
                      .unknown_ends = 4,
                      .dropped = 5};
  t.counters = {{"graph_execs", 7}};
  t.attribution.mode = "native";
  t.attribution.new_node_ids = 2;
  t.attribution.graph_ids_past_limit = 4;
  t.attribution.withheld = {{"exec_changed", 3}, {"identity \"mismatch\"", 1}};
  t.versions = {{"cupti_version", 130001}};
  DeviceProperties d;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.total_global_mem = 150;
  d.num_sms = 132;
  t.devices.push_back(d);
  const std::string h = Header(t);
  EXPECT_NE(h.find(R"("ranges":{"recorded":0,"unbalanced_pops":1,"open_at_end":2,)"
                   R"("ended_on_other_thread":3,"ended_at_thread_exit":6,"unknown_ends":4,)"
                   R"("dropped":5,"device_spans":0},)"
                   R"("graph_execs":7,"attribution":{"mode":"native","new_node_ids":2,)"
                   R"("graph_ids_past_limit":4,)"
                   R"("withheld":{"exec_changed":3,"identity \"mismatch\"":1}}},)"),
            std::string::npos)
      << h;
  EXPECT_EQ(h.find("fresh_graph_ids"), std::string::npos) << "graph ids are not re-issued";
  EXPECT_NE(h.find("\n  \"cupti_version\": 130001,\n"), std::string::npos);
  EXPECT_NE(h.find("\n    {\"id\":0,\"name\":\"NVIDIA H200\",\"totalGlobalMem\":150,"
                   "\"computeMajor\":0,"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("\"numSms\":132,\"sharedMemPerBlockOptin\":0}\n  ],\n"), std::string::npos);
}

TEST(TraceHeader, SamplingWrittenOnlyWhenSampled) {
  Trace t;
  EXPECT_EQ(Header(t).find("sampling"), std::string::npos);
  t.sampling.every = 20;
  t.sampling.graph_launches = 5000;
  t.sampling.graph_launches_traced = 262;
  t.sampling.plain_launches = 10;
  t.sampling.plain_launches_traced = 1;
  t.sampling.graph_launches_discarded = 3;
  const std::string h = Header(t);
  EXPECT_NE(h.find(R"(,"sampling":{"unit":"launch","every":20,"graph_launches":5000,)"
                   R"("graph_launches_traced":262,"plain_launches":10,"plain_launches_traced":1,)"
                   R"("graph_launches_discarded":3,"plain_launches_discarded":0}})"),
            std::string::npos)
      << h;
  t.sampling.burst = 4;  // NODESCOPE_SAMPLE_BURST: said only when not 1
  EXPECT_NE(Header(t).find(R"("sampling":{"unit":"launch","every":20,"burst":4,"graph_launches")"),
            std::string::npos);
}

// Ring mode bounds the range logs too (issue 14): what left them is counted beside the others.
TEST(TraceHeader, RangeRingCountersWrittenOnlyInRingAndStreamingModes) {
  Trace t;
  t.range_counters.ring_released = 9000;
  t.range_counters.ring_unnamed = 2;
  t.range_counters.unwritten = 5;
  EXPECT_EQ(Header(t).find("ring_unnamed"), std::string::npos);  // a full trace: as before
  t.window.policy = "ring:events=20000";
  const std::string h = Header(t);
  EXPECT_NE(h.find(R"("dropped":0,"device_spans":0,"ring_released":9000,"ring_unnamed":2},)"),
            std::string::npos)
      << h;
  // Streaming records ranges into rings too: what left them unwritten is counted beside.
  t.window.policy = "stream:events=5000";
  const std::string s = Header(t);
  EXPECT_NE(s.find(R"("ring_released":9000,"ring_unnamed":2,"unwritten":5},)"), std::string::npos)
      << s;
}

TEST(TraceHeader, JobRankHostAndClockAnchor) {
  Trace t;
  t.job.rank = 1;
  t.job.rank_variable = "RANK";
  t.job.local_rank = 1;
  t.job.world_size = 2;
  t.job.host = "h200-a";
  t.job.realtime_ns = 1700000000000000000;
  t.job.monotonic_ns = 5000;
  t.job.boottime_ns = 6000;
  const std::string h = Header(t);
  EXPECT_NE(h.find(R"(,"job":{"rank":1,"rank_variable":"RANK","local_rank":1,"world_size":2,)"
                   R"("host":"h200-a","clock":{"realtime_ns":1700000000000000000,)"
                   R"("monotonic_ns":5000,"boottime_ns":6000}}},)"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("\n  \"distributedInfo\": {\"rank\": 1, \"world_size\": 2},\n"),
            std::string::npos)
      << h;
  t.job.rank = -1;  // a host and a clock, no rank: no distributedInfo
  const std::string h2 = Header(t);
  EXPECT_NE(h2.find(R"(,"job":{"local_rank":1,"world_size":2,"host":"h200-a",)"), std::string::npos)
      << h2;
  EXPECT_EQ(h2.find("distributedInfo"), std::string::npos);
  EXPECT_EQ(Header(Trace{}).find("\"job\""), std::string::npos);
}

}  // namespace
}  // namespace nodescope
