// The bounded launch log: entries released once decided, or aged, or never used by a dispatch;
// a released entry never found again; the slots other threads touch checked against reuse.
#include "attribution/launch_log.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace nodescope {
namespace {

constexpr uint32_t kChunk = LaunchLog::kChunk;

// One launch of `dispatches` dispatches on the owner's side; returns its sequence number.
uint32_t Launch(LaunchLog& log, uint32_t dispatches, uint64_t stream = 0x50) {
  uint32_t seq = 0;
  LaunchSlot* s = log.NewSlot(&seq);
  EXPECT_NE(s, nullptr);
  s->stream.store(stream);
  s->dispatches.store(dispatches);
  s->ended.store(1);
  return seq;
}

// The decoder deciding `n` dispatches of launch `seq`; false if its entry is gone.
bool Decide(LaunchLog& log, uint32_t seq, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    LaunchLog::Chunk* chunk = nullptr;
    LaunchSlot* s = log.Find(seq, &chunk);
    if (s == nullptr) return false;
    EXPECT_EQ(s->seq.load(), seq);
    log.Decided(s, chunk);
  }
  return true;
}

TEST(LaunchLog, DecidedLaunchesAreReleasedAndMemoryStaysFlat) {
  LaunchLog log;
  // 40 chunks of launches of 4 dispatches, decided a batch of 1000 launches at a time.
  std::vector<uint32_t> batch;
  for (uint32_t i = 0; i < 40 * kChunk; ++i) {
    batch.push_back(Launch(log, 4));
    if (batch.size() == 1000) {
      for (uint32_t seq : batch) ASSERT_TRUE(Decide(log, seq, 4)) << seq;
      log.Sweep();
      batch.clear();
    }
  }
  for (uint32_t seq : batch) ASSERT_TRUE(Decide(log, seq, 4));
  log.Sweep();
  EXPECT_LE(log.chunks_allocated(), 2u);  // before: one chunk per 4096 launches, 40 here
  EXPECT_EQ(log.launches_released(), 40u * kChunk);
  // A released launch is not found again, even where its slot was reused.
  LaunchLog::Chunk* chunk = nullptr;
  EXPECT_EQ(log.Find(0, &chunk), nullptr);
  EXPECT_EQ(log.Find(5 * kChunk + 7, &chunk), nullptr);
}

TEST(LaunchLog, AChunkWaitsForItsLastDispatch) {
  LaunchLog log;
  std::vector<uint32_t> seqs;
  for (uint32_t i = 0; i < kChunk + 1; ++i) seqs.push_back(Launch(log, 2));
  for (uint32_t i = 0; i < kChunk; ++i) ASSERT_TRUE(Decide(log, seqs[i], i == 17 ? 1 : 2));
  log.Sweep();
  EXPECT_EQ(log.launches_released(), 0u);  // launch 17 still has a dispatch to come
  EXPECT_TRUE(Decide(log, seqs[17], 1));   // and finds its entry
  log.Sweep();
  EXPECT_EQ(log.launches_released(), kChunk);
}

TEST(LaunchLog, LaunchesWithoutDispatchesAreReleased) {
  LaunchLog log;
  for (uint32_t i = 0; i < 10 * kChunk; ++i) {
    Launch(log, 0);
    if (i % 1000 == 0) log.Sweep();
  }
  log.Sweep();
  EXPECT_GE(log.launches_released(), 9u * kChunk);
  EXPECT_LE(log.chunks_allocated(), 2u);
}

TEST(LaunchLog, AnUndecidedChunkGoesOnceAgedAndItsLateDispatchIsNotFound) {
  LaunchLog log;
  const uint32_t lost = Launch(log, 3);  // one of its dispatches never comes (a vendor drop)
  ASSERT_TRUE(Decide(log, lost, 2));
  for (uint32_t i = 1; i < kChunk; ++i) ASSERT_TRUE(Decide(log, Launch(log, 1), 1));
  log.Sweep();
  EXPECT_EQ(log.launches_released(), 0u);
  // kAgeChunks chunks of later launches decoded: the first chunk goes.
  for (uint32_t i = 0; i < LaunchLog::kAgeChunks * kChunk + 1; ++i) {
    ASSERT_TRUE(Decide(log, Launch(log, 1), 1));
    if (i % 1000 == 0) log.Sweep();
  }
  log.Sweep();
  EXPECT_GE(log.launches_released(), kChunk * (LaunchLog::kAgeChunks + 1));
  EXPECT_FALSE(Decide(log, lost, 1));  // the late dispatch: no entry, never another launch's
}

TEST(LaunchLog, AnOpenLaunchKeepsItsChunk) {
  LaunchLog log;
  uint32_t open_seq = 0;
  LaunchSlot* open = log.NewSlot(&open_seq);  // never ends (a thread cut off mid-launch)
  ASSERT_NE(open, nullptr);
  for (uint32_t i = 1; i < (LaunchLog::kAgeChunks + 3) * kChunk; ++i) {
    ASSERT_TRUE(Decide(log, Launch(log, 1), 1));
    if (i % 1000 == 0) log.Sweep();
  }
  log.Sweep();
  LaunchLog::Chunk* chunk = nullptr;
  EXPECT_EQ(log.Find(open_seq, &chunk), open);
  EXPECT_GT(log.launches_released(), 0u);  // the chunks after it went
}

TEST(LaunchLog, StreamOfAReusedSlotIsUnknown) {
  LaunchLog log;
  uint32_t first = 0;
  for (uint32_t i = 0; i < 3 * kChunk; ++i) {
    first = Launch(log, 1, 0x77);
    ASSERT_TRUE(Decide(log, first, 1));
  }
  LaunchSlot* slot = log.SlotAt(first);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(LaunchLog::StreamOf(slot, first), 0x77u);
  log.Sweep();
  ASSERT_EQ(log.launches_released(), 3 * kChunk);
  EXPECT_EQ(LaunchLog::StreamOf(slot, first), 0x77u);  // released, not reused yet
  // Released chunks are reused: the slot of `first` comes to hold a later launch.
  for (uint32_t i = 0; i < 3 * kChunk && slot->seq.load() == first; ++i) {
    ASSERT_TRUE(Decide(log, Launch(log, 1, 0x99), 1));
    if (i % 1000 == 0) log.Sweep();
  }
  ASSERT_NE(slot->seq.load(), first);
  EXPECT_EQ(LaunchLog::StreamOf(slot, first), LaunchSlot::kUnknownStream);
  EXPECT_EQ(LaunchLog::StreamOf(slot, slot->seq.load()), 0x99u);
}

TEST(LaunchLog, AddPeerNeverOverwritesAnEntry) {
  LaunchLog log;
  uint32_t seq = 0;
  LaunchSlot* slot = log.NewSlot(&seq);
  // A write meant for the launch the slot held before took index 0 after the reset.
  slot->peers[0].store(0x11);
  LaunchLog::AddPeer(slot, 0x22);
  LaunchLog::AddPeer(slot, 0x22);
  std::vector<uint64_t> seen;
  for (uint32_t i = 0; i < slot->peer_count.load() && i < LaunchSlot::kMaxPeers; ++i) {
    seen.push_back(slot->peers[i].load());
  }
  EXPECT_EQ(seen, (std::vector<uint64_t>{0x11, 0x22}));
}

// The owner launching while the decoder decides and sweeps: every decided launch is found while
// held, none twice released, memory flat (run under TSan by scripts/test.sh).
TEST(LaunchLog, OwnerAndDecoderConcurrently) {
  LaunchLog log;
  constexpr uint32_t kLaunches = 30 * kChunk;
  std::atomic<uint32_t> made{0}, decided{0};
  std::thread owner([&] {
    for (uint32_t i = 0; i < kLaunches; ++i) {
      // The decoder lags by at most two chunks (a vendor buffer's worth of launches).
      while (i - decided.load(std::memory_order_acquire) > 2 * kChunk) std::this_thread::yield();
      Launch(log, 2);
      made.store(i + 1, std::memory_order_release);
    }
  });
  uint32_t next = 0;
  while (next < kLaunches) {
    const uint32_t upto = made.load(std::memory_order_acquire);
    for (; next < upto; ++next) ASSERT_TRUE(Decide(log, next, 2)) << next;
    log.Sweep();
    decided.store(next, std::memory_order_release);
  }
  owner.join();
  log.Sweep();
  EXPECT_EQ(log.launches_released(), kLaunches);
  EXPECT_LE(log.chunks_allocated(), 5u);  // before: 30
}

}  // namespace
}  // namespace nodescope
