// The launch log of reconstructed attribution (reconstructing_attributor.h): one entry per graph
// launch of a thread, written by that thread (and by other launching threads: the streams of its
// peers), read by the decoder to verify the launch's dispatches. One log per launching thread.
//
// Bounded (issue 14): entries live in chunks of kChunk launches, and the decoder releases a chunk
// once every launch in it has ended and either every dispatch each launch made was decided, or the
// chunk lies kAgeChunks chunks behind the newest chunk of that thread whose dispatches were
// decoded (a dispatch so late is withheld, as launch_released). The launching thread reuses
// released chunks, so a log holds a few chunks per thread however long the program runs.
//
// Never a wrong entry: the decoder alone releases, and it keeps the set of chunks it holds, so a
// dispatch whose entry was released is found missing (Find returns null), never read from the
// launch now reusing its slot. The other launching threads look at a thread's open launch only
// (RecordPeers): a launch that ended meanwhile may have been released and its slot reused, so
// they read its stream under its sequence number (StreamOf, a seqlock: the owner writes `seq`
// first, and both sequentially consistent) and add peers with a compare-and-swap that never
// overwrites an entry (AddPeer); a write that lands in a reused slot only adds a peer, which can
// withhold, never key.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace nodescope {

struct LaunchSlot {
  static constexpr uint32_t kMaxPeers = 8;
  // A peer whose stream was not known (or could not be read): never proven.
  static constexpr uint64_t kUnknownStream = ~uint64_t{0};
  // The launch's sequence number on its thread (low 32 bits, as in its tags). On reuse the owner
  // writes it first, then the rest.
  std::atomic<uint32_t> seq{~0u};
  std::atomic<uint32_t> graph_id{0};
  std::atomic<uint32_t> version{0};
  std::atomic<uint32_t> dispatches{0};
  std::atomic<uint32_t> ended{0};
  // A plain (non-graph) dispatching call (hipLaunchKernel...): a peer of graph launches, never
  // keyed itself (issue 29).
  std::atomic<uint32_t> plain{0};
  // Dispatches processed by threads with no launch open (ROCr's async thread, a runtime worker,
  // a thread in another call) before this launch began: ReconstructingAttributor::orphans_.
  std::atomic<uint64_t> orphans_at_begin{0};
  // The streams of other threads' launches open at some moment during this one, each once.
  std::atomic<uint32_t> peer_count{0};
  // Decoder only (reset by the decoder when it releases the chunk).
  uint32_t resolved = 0;         // dispatches of this launch decided
  uint8_t verdict = 0;           // 0 not judged, 1 keyed, 2 withheld (hazard)
  uint8_t foreign = 0;           // 0 not judged, 1 no foreign writer, 2 one may hold its packets
  uint64_t foreign_scanned = 0;  // foreign dispatches up to this one found on other queues
  std::atomic<uint64_t> stream{0};
  std::atomic<uint64_t> peers[kMaxPeers] = {};
};

class LaunchLog {
 public:
  static constexpr uint32_t kChunk = 4096;
  // Chunk positions: a chunk is at (number % kRing); with kChunk * kRing dividing 2^32, the low 32
  // bits of a sequence number (what a tag carries) give the same position.
  static constexpr uint32_t kRing = 1u << 14;
  // A chunk this many chunks behind the newest one decoded is released once its launches ended.
  static constexpr uint64_t kAgeChunks = 4;

  struct Chunk {
    uint64_t number = 0;  // sequence numbers [number * kChunk, (number + 1) * kChunk)
    uint32_t done = 0;    // decoder: launches whose every dispatch was decided
    LaunchSlot slots[kChunk];
  };

  LaunchLog();
  ~LaunchLog();

  // ---- The owner (launching) thread. ----
  // A new entry (reset, `seq` written) and its sequence number; null when the chunk it needs still
  // holds launches kRing chunks older (never released): that launch is then not followed.
  LaunchSlot* NewSlot(uint32_t* seq);

  // ---- Any launching thread: the entry of another thread's launch it saw open (RecordPeers). ----
  // The slot at `seq`'s position (null if none): it may belong to a later launch by now.
  LaunchSlot* SlotAt(uint32_t seq) const;
  // That slot's stream if it still holds launch `seq`, else LaunchSlot::kUnknownStream.
  static uint64_t StreamOf(const LaunchSlot* slot, uint32_t seq);
  // Adds `stream` to `slot`'s peers unless there; never overwrites an entry.
  static void AddPeer(LaunchSlot* slot, uint64_t stream);

  // ---- The decoder. ----
  // The entry of launch `seq` while the decoder holds its chunk; null once released (or never
  // made). *chunk: its chunk.
  LaunchSlot* Find(uint32_t seq, Chunk** chunk) {
    if (last_ != nullptr && (last_->number & kNumberMask) == seq / kChunk) [[likely]] {
      *chunk = last_;
      return &last_->slots[seq % kChunk];
    }
    return FindSlow(seq, chunk);
  }
  // Counts one decided dispatch of `slot` (found in `chunk`).
  void Decided(LaunchSlot* slot, Chunk* chunk) {
    if (++slot->resolved == slot->dispatches.load(std::memory_order_relaxed) &&
        slot->ended.load(std::memory_order_acquire) != 0 && ++chunk->done == kChunk) {
      sweep_due_ = true;
    }
    if (chunk->number > newest_decoded_) newest_decoded_ = chunk->number;
  }
  // Releases the chunks that can go (see above). Cheap when nothing changed; call after a batch.
  void Sweep();

  // Chunks ever allocated (held, released for reuse), their bytes, and launches released.
  uint64_t chunks_allocated() const { return allocated_.load(std::memory_order_relaxed); }
  static constexpr size_t kChunkBytes = sizeof(Chunk);
  uint64_t launches_released() const { return released_launches_; }

 private:
  // A tag carries the low 32 bits of a sequence number: the low bits of its chunk number.
  static constexpr uint64_t kNumberMask = (uint64_t{1} << 32) / kChunk - 1;
  LaunchSlot* FindSlow(uint32_t seq, Chunk** chunk);
  void Discover();          // registers the chunks the owner published since the last look
  void Release(size_t at);  // held_[at]: reset, unpublished, given back to the owner

  std::unique_ptr<std::atomic<Chunk*>[]> ring_;
  // Owner.
  uint64_t next_seq_ = 0;
  LaunchSlot* chunk_slots_ = nullptr;     // the chunk being filled (null: not followed)
  std::atomic<uint64_t> owner_chunk_{0};  // the number of the chunk being filled
  std::mutex free_mu_;
  std::vector<Chunk*> free_;  // released by the decoder, reused by the owner
  std::atomic<uint64_t> allocated_{0};
  // Decoder.
  std::vector<Chunk*> held_;     // registered and not released, by number
  Chunk* last_ = nullptr;        // the one of them Find found last
  uint64_t discovered_to_ = 0;   // chunks below this number were registered (or never made)
  uint64_t swept_owner_ = 0;     // owner_chunk_ at the last full sweep
  uint64_t newest_decoded_ = 0;  // the newest chunk a decided dispatch was found in
  bool sweep_due_ = false;       // a chunk's launches were all decided
  uint64_t released_launches_ = 0;
};

}  // namespace nodescope
