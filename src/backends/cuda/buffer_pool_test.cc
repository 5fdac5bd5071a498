// Tests of the activity-buffer pool: bound, reuse, the refusal policy by CUPTI version, and
// requests and completions on different threads at once (run under ThreadSanitizer too).
#include "backends/cuda/buffer_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace nodescope::cupti {
namespace {

constexpr uint32_t kCuda129 = 27;  // the first CUPTI API version that survives a refusal
constexpr uint32_t kCuda128 = 26;

TEST(BufferPoolTest, RoundsSizeUpAndAlignsBuffers) {
  BufferPool pool(100, 1, kCuda129);
  BufferPool::Buffer b = pool.Request();
  ASSERT_NE(b.data, nullptr);
  EXPECT_EQ(b.size, 104u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data) % 8, 0u);
  pool.Complete(b.data);
}

TEST(BufferPoolTest, RefusesWhenFullFromVersion27AndCountsIt) {
  BufferPool pool(64, 2, kCuda129);
  EXPECT_TRUE(pool.refusal_allowed());
  BufferPool::Buffer a = pool.Request();
  BufferPool::Buffer b = pool.Request();
  ASSERT_NE(a.data, nullptr);
  ASSERT_NE(b.data, nullptr);
  EXPECT_NE(a.data, b.data);
  BufferPool::Buffer refused = pool.Request();
  EXPECT_EQ(refused.data, nullptr);
  EXPECT_EQ(refused.size, 0u);
  EXPECT_EQ(pool.refused(), 1u);
  EXPECT_EQ(pool.overflowed(), 0u);
  pool.Complete(a.data);
  BufferPool::Buffer again = pool.Request();  // a completed buffer is handed out again
  EXPECT_EQ(again.data, a.data);
  EXPECT_EQ(pool.allocated(), 2u);
  pool.Complete(again.data);
  pool.Complete(b.data);
}

TEST(BufferPoolTest, NeverRefusesBeforeVersion27) {
  for (uint32_t version : {kCuda128, 0u}) {  // 0: the version could not be read
    BufferPool pool(64, 1, version);
    EXPECT_FALSE(pool.refusal_allowed()) << version;
    BufferPool::Buffer a = pool.Request();
    BufferPool::Buffer over = pool.Request();
    ASSERT_NE(a.data, nullptr);
    ASSERT_NE(over.data, nullptr) << "refused on CUPTI version " << version;
    EXPECT_EQ(over.size, a.size);
    EXPECT_EQ(pool.refused(), 0u);
    EXPECT_EQ(pool.overflowed(), 1u);
    EXPECT_EQ(pool.allocated(), 1u);  // the overflow buffer is not kept in the pool
    pool.Complete(over.data);         // freed (LeakSanitizer would see it otherwise)
    pool.Complete(a.data);
    BufferPool::Buffer reused = pool.Request();
    EXPECT_EQ(reused.data, a.data);
    pool.Complete(reused.data);
  }
}

// Several threads request (as CUPTI's threads do) and others complete what they were handed:
// no buffer is ever held twice, every request is either served or counted, and the bound holds.
void Hammer(uint32_t version, size_t max_buffers) {
  constexpr int kRequesters = 4;
  constexpr int kCompleters = 3;
  constexpr int kRequestsEach = 2000;
  BufferPool pool(256, max_buffers, version);
  std::mutex mu;
  std::deque<std::pair<uint8_t*, uint8_t>> in_flight;
  std::atomic<int> requesters_left{kRequesters};
  std::atomic<uint64_t> served{0};
  std::atomic<uint64_t> corrupted{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < kRequesters; ++r) {
    threads.emplace_back([&, r] {
      for (int i = 0; i < kRequestsEach; ++i) {
        BufferPool::Buffer b = pool.Request();
        if (b.data == nullptr) continue;
        served.fetch_add(1, std::memory_order_relaxed);
        const auto mark = static_cast<uint8_t>(r * 31 + i);
        std::memset(b.data, mark, b.size);  // a buffer handed out twice is a race TSan sees
        std::lock_guard<std::mutex> lock(mu);
        in_flight.emplace_back(b.data, mark);
      }
      requesters_left.fetch_sub(1, std::memory_order_release);
    });
  }
  for (int c = 0; c < kCompleters; ++c) {
    threads.emplace_back([&] {
      for (;;) {
        std::pair<uint8_t*, uint8_t> item{nullptr, 0};
        bool done = requesters_left.load(std::memory_order_acquire) == 0;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!in_flight.empty()) {
            item = in_flight.front();
            in_flight.pop_front();
          }
        }
        if (item.first == nullptr) {
          if (done) return;
          std::this_thread::yield();
          continue;
        }
        for (size_t k = 0; k < pool.buffer_bytes(); ++k) {
          if (item.first[k] != item.second) {
            corrupted.fetch_add(1, std::memory_order_relaxed);
            break;
          }
        }
        pool.Complete(item.first);
      }
    });
  }
  for (auto& t : threads) t.join();

  constexpr uint64_t kTotal = uint64_t{kRequesters} * kRequestsEach;
  EXPECT_EQ(corrupted.load(), 0u);
  EXPECT_EQ(served.load() + pool.refused(), kTotal);
  EXPECT_LE(pool.allocated(), max_buffers);
  if (pool.refusal_allowed()) {
    EXPECT_EQ(pool.overflowed(), 0u);
  } else {
    EXPECT_EQ(pool.refused(), 0u);
    EXPECT_EQ(served.load(), kTotal);
  }
  // Everything came back: the whole pool can be handed out at once again, then it refuses.
  std::set<uint8_t*> distinct;
  std::vector<uint8_t*> held;
  for (size_t i = 0; i < pool.allocated(); ++i) {
    BufferPool::Buffer b = pool.Request();
    ASSERT_NE(b.data, nullptr);
    distinct.insert(b.data);
    held.push_back(b.data);
  }
  EXPECT_EQ(distinct.size(), held.size());
  for (uint8_t* b : held) pool.Complete(b);
}

TEST(BufferPoolTest, ConcurrentRequestsAndCompletionsRefuseWhenFull) { Hammer(kCuda129, 3); }

TEST(BufferPoolTest, ConcurrentRequestsAndCompletionsOverflowBeforeVersion27) {
  Hammer(kCuda128, 3);
}

}  // namespace
}  // namespace nodescope::cupti
