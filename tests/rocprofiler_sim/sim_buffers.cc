// The simulated rocprofiler-sdk's buffers: records are copied in as they happen (any thread);
// when a buffer reaches its watermark its records are handed, as one batch, to the SDK's own
// delivery thread, which calls the tool's buffer callback with them, batch after batch in order.
// Full buffer: its records are handed over and the new one starts the next batch, as the SDK's
// double buffering does; but while an earlier batch of this buffer still awaits delivery, DISCARD
// drops the record and counts it (drop_count of the next batch) and LOSSLESS queues regardless.
// rocprofiler_flush_buffer hands over what is there and waits until the delivery thread has
// delivered it (inline when called from that thread).
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "sim_internal.h"

namespace sim {
namespace {

struct Batch {
  struct Meta {
    uint32_t kind;
    size_t offset;  // in words
  };
  uint64_t buffer_id = 0;
  std::vector<uint64_t> words;
  std::vector<Meta> records;
  uint64_t drops = 0;
};

struct Buffer {
  uint64_t id;
  rocprofiler_context_id_t context;
  size_t size;
  size_t watermark;
  rocprofiler_buffer_policy_t policy;
  rocprofiler_buffer_tracing_cb_t callback;
  void* data;
  std::mutex mutex;
  Batch pending;
  size_t pending_bytes = 0;
  int in_flight = 0;  // batches handed over, not yet delivered (under g_mutex)
};

// Never destroyed: threads of the program may still append while the process exits.
std::mutex& g_mutex = *new std::mutex;  // the buffer list and the delivery queue
std::condition_variable& g_wake = *new std::condition_variable;
std::condition_variable& g_delivered_cv = *new std::condition_variable;
std::vector<std::unique_ptr<Buffer>>& g_buffers = *new std::vector<std::unique_ptr<Buffer>>;
std::deque<Batch>& g_queue = *new std::deque<Batch>;
uint64_t g_handed = 0;
uint64_t g_delivered = 0;
bool g_stop = false;
std::thread& g_thread = *new std::thread;
std::thread::id g_thread_id;

Buffer* Find(uint64_t id) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return id >= 1 && id <= g_buffers.size() ? g_buffers[id - 1].get() : nullptr;
}

void Deliver(Batch& batch) {
  Buffer* buffer = g_buffers[batch.buffer_id - 1].get();
  std::vector<rocprofiler_record_header_t> headers(batch.records.size());
  std::vector<rocprofiler_record_header_t*> pointers(batch.records.size());
  for (size_t i = 0; i < batch.records.size(); ++i) {
    headers[i].category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
    headers[i].kind = batch.records[i].kind;
    headers[i].payload = batch.words.data() + batch.records[i].offset;
    pointers[i] = &headers[i];
  }
  buffer->callback(buffer->context, rocprofiler_buffer_id_t{buffer->id}, pointers.data(),
                   pointers.size(), buffer->data, batch.drops);
}

void Run() {
  std::unique_lock<std::mutex> lock(g_mutex);
  for (;;) {
    g_wake.wait(lock, [] { return g_stop || !g_queue.empty(); });
    if (g_queue.empty()) return;
    Batch batch = std::move(g_queue.front());
    g_queue.pop_front();
    lock.unlock();
    Deliver(batch);
    lock.lock();
    --g_buffers[batch.buffer_id - 1]->in_flight;
    ++g_delivered;
    g_delivered_cv.notify_all();
  }
}

// With buffer->mutex held: queue what is pending for delivery; returns its sequence number.
uint64_t HandOff(Buffer* buffer) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!buffer->pending.records.empty() || buffer->pending.drops != 0) {
    buffer->pending.buffer_id = buffer->id;
    g_queue.push_back(std::move(buffer->pending));
    ++buffer->in_flight;
    ++g_handed;
    g_wake.notify_one();
  }
  buffer->pending = Batch{};
  buffer->pending_bytes = 0;
  return g_handed;
}

bool Busy(Buffer* buffer) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return buffer->in_flight > 0;
}

}  // namespace

void AppendRecord(uint64_t buffer_id, rocprofiler_buffer_tracing_kind_t kind, const void* record,
                  size_t bytes) {
  Buffer* buffer = Find(buffer_id);
  if (buffer == nullptr) return;
  std::lock_guard<std::mutex> lock(buffer->mutex);
  if (buffer->pending_bytes + bytes > buffer->size) {
    if (buffer->policy != ROCPROFILER_BUFFER_POLICY_LOSSLESS && Busy(buffer)) {
      ++buffer->pending.drops;
      return;
    }
    HandOff(buffer);
  }
  Batch& batch = buffer->pending;
  const size_t offset = batch.words.size();
  batch.words.resize(offset + (bytes + 7) / 8);
  std::memcpy(batch.words.data() + offset, record, bytes);
  batch.records.push_back({static_cast<uint32_t>(kind), offset});
  buffer->pending_bytes += bytes;
  if (buffer->pending_bytes >= buffer->watermark) HandOff(buffer);
}

void StopBufferDelivery() {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_stop = true;
    g_wake.notify_one();
  }
  if (g_thread.joinable()) g_thread.join();
}

}  // namespace sim

extern "C" {

rocprofiler_status_t rocprofiler_create_buffer(rocprofiler_context_id_t context, size_t size,
                                               size_t watermark, rocprofiler_buffer_policy_t policy,
                                               rocprofiler_buffer_tracing_cb_t callback,
                                               void* callback_data,
                                               rocprofiler_buffer_id_t* buffer_id) {
  if (callback == nullptr || buffer_id == nullptr || size == 0)
    return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> lock(sim::g_mutex);
  auto buffer = std::make_unique<sim::Buffer>();
  buffer->id = sim::g_buffers.size() + 1;
  buffer->context = context;
  buffer->size = size;
  buffer->watermark = watermark == 0 || watermark > size ? size : watermark;
  buffer->policy = policy;
  buffer->callback = callback;
  buffer->data = callback_data;
  buffer_id->handle = buffer->id;
  sim::g_buffers.push_back(std::move(buffer));
  if (!sim::g_thread.joinable()) {
    sim::g_thread = std::thread(&sim::Run);
    sim::g_thread_id = sim::g_thread.get_id();
  }
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_flush_buffer(rocprofiler_buffer_id_t buffer_id) {
  sim::Buffer* buffer = sim::Find(buffer_id.handle);
  if (buffer == nullptr) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
  if (std::this_thread::get_id() == sim::g_thread_id) {
    sim::Batch batch;
    {
      std::lock_guard<std::mutex> lock(buffer->mutex);
      batch = std::move(buffer->pending);
      buffer->pending = sim::Batch{};
      buffer->pending_bytes = 0;
    }
    batch.buffer_id = buffer->id;
    if (!batch.records.empty()) sim::Deliver(batch);
    return ROCPROFILER_STATUS_SUCCESS;
  }
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(buffer->mutex);
    target = sim::HandOff(buffer);
  }
  std::unique_lock<std::mutex> lock(sim::g_mutex);
  sim::g_delivered_cv.wait(lock,
                           [&] { return sim::g_delivered >= target || !sim::g_thread.joinable(); });
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_destroy_buffer(rocprofiler_buffer_id_t buffer_id) {
  rocprofiler_status_t status = rocprofiler_flush_buffer(buffer_id);
  if (status != ROCPROFILER_STATUS_SUCCESS) return status;
  sim::Buffer* buffer = sim::Find(buffer_id.handle);
  std::lock_guard<std::mutex> lock(buffer->mutex);
  buffer->size = 0;  // later records are dropped
  return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
