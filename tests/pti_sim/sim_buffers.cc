// The simulated PTI's buffers, as PTI 1.0 handles them (docs/pti-notes.md, "Buffers"): one buffer
// per thread id of the record, asked for through the tool's request callback when that thread has
// none; a buffer with less than the largest record left goes to PTI's own delivery thread, which
// calls the completion callback; the delivery queue is bounded and a full queue blocks the thread
// inserting a record (no record is dropped for it); a record that does not fit (the tool gave a
// null or tiny buffer) is dropped, which PTI only logs. ptiFlushAllViews hands every buffer to the
// delivery thread and waits.
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "tests/pti_sim/sim_buffers.h"
#include "tests/pti_sim/sim_internal.h"

namespace ptisim {
namespace {

void DefaultRequested(unsigned char** buffer, size_t* size) {
  *size = 1 << 20;
  *buffer = static_cast<unsigned char*>(std::malloc(*size));
}
void DefaultCompleted(unsigned char* buffer, size_t, size_t) { std::free(buffer); }

struct Buffer {
  unsigned char* data = nullptr;
  size_t size = 0;
  size_t used = 0;
};

// Never destroyed: tools flush from their own exit handlers, after static destructors may run.
struct State {
  std::mutex callbacks_mu;
  pti_fptr_buffer_requested requested = DefaultRequested;
  pti_fptr_buffer_completed completed = DefaultCompleted;
  std::atomic<bool> callbacks_set{false};

  std::mutex insert_mu;  // the per-thread buffers
  std::map<uint32_t, Buffer> buffers;

  std::mutex queue_mu;
  std::condition_variable queue_cv;
  std::deque<std::function<void()>> queue;
  size_t depth =
      2 * (std::thread::hardware_concurrency() ? std::thread::hardware_concurrency() : 1);
  std::thread consumer;

  State() {
    consumer = std::thread([this] {
      for (;;) {
        std::function<void()> task;
        {
          std::unique_lock<std::mutex> lock(queue_mu);
          queue_cv.wait(lock, [this] { return !queue.empty(); });
          task = std::move(queue.front());
          queue.pop_front();
        }
        queue_cv.notify_all();
        task();
      }
    });
    consumer.detach();
  }

  void Push(std::function<void()> task) {
    std::unique_lock<std::mutex> lock(queue_mu);
    queue_cv.wait(lock, [this] { return queue.size() < depth; });
    queue.push_back(std::move(task));
    queue_cv.notify_all();
  }

  void Deliver(const Buffer& buffer) {
    if (buffer.data == nullptr) return;
    std::lock_guard<std::mutex> lock(callbacks_mu);
    completed(buffer.data, buffer.size, buffer.used);
  }

  Buffer Request() {
    Buffer buffer;
    std::lock_guard<std::mutex> lock(callbacks_mu);
    requested(&buffer.data, &buffer.size);
    if (buffer.data == nullptr) buffer.size = 0;
    return buffer;
  }
};

State& S() {
  static State* state = new State;
  return *state;
}

size_t Largest() { return RecordSize(PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P); }

}  // namespace

void Insert(const void* record, size_t bytes, uint32_t tid) {
  State& s = S();
  Buffer full;
  {
    std::lock_guard<std::mutex> lock(s.insert_mu);
    Buffer& buffer = s.buffers[tid];
    if (buffer.data == nullptr) buffer = s.Request();
    if (buffer.data != nullptr && buffer.size - buffer.used >= bytes) {
      std::memcpy(buffer.data + buffer.used, record, bytes);
      buffer.used += bytes;
    } else {
      CountDropped();
    }
    if (buffer.data != nullptr && buffer.size - buffer.used >= Largest()) return;
    full = buffer;
    buffer = Buffer{};
  }
  s.Push([full] { S().Deliver(full); });
}

pti_result SetBufferCallbacks(pti_fptr_buffer_requested requested,
                              pti_fptr_buffer_completed completed) {
  if (requested == nullptr || completed == nullptr) return PTI_ERROR_BAD_ARGUMENT;
  State& s = S();
  Buffer first;
  requested(&first.data, &first.size);
  pti_result result = PTI_SUCCESS;
  if (first.data == nullptr || first.size < Largest()) {
    completed(first.data, first.size, 0);  // refused: handed back unused, defaults kept
    result = PTI_ERROR_BAD_ARGUMENT;
    first = s.Request();
  } else {
    std::lock_guard<std::mutex> lock(s.callbacks_mu);
    s.requested = requested;
    s.completed = completed;
  }
  // The calling thread's buffer is replaced; its old one is delivered here, on this thread.
  Buffer old;
  {
    std::lock_guard<std::mutex> lock(s.insert_mu);
    old = s.buffers[Tid()];
    s.buffers[Tid()] = first;
  }
  s.Deliver(old);
  s.callbacks_set = true;
  return result;
}

bool CallbacksSet() { return S().callbacks_set; }

pti_result FlushBuffers() {
  State& s = S();
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  s.Push([done] {
    State& state = S();
    std::map<uint32_t, Buffer> all;
    {
      std::lock_guard<std::mutex> lock(state.insert_mu);
      all.swap(state.buffers);
    }
    for (const auto& [tid, buffer] : all) state.Deliver(buffer);
    done->set_value();
  });
  finished.wait();
  return PTI_SUCCESS;
}

}  // namespace ptisim
