#pragma once
// Writes the JSON checkpoints of a running discovery on a thread of its own (issue 35 item 1).
// Rendering and writing the whole document after every probe took 0.30-0.36 s of an H200
// discovery's 13 s (about 70 checkpoints of 1 MB; run.checkpoint_seconds at c8663a0), all of it
// between the probes; copying the topology for the writer takes about 0.6 ms each (the
// snapshots the phase monitor takes cost 0.034-0.043 s for all of them). So the run copies and
// goes on, and the thread renders, writes and syncs. One write at a time: a checkpoint that
// comes while one is being written waits, and a newer one replaces it (the newest holds every
// probe the older did). A crash thus loses at most the running probe and the one before it
// (one checkpoint of a few ms); the last write of the run waits for the thread first.
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "model/topology.hpp"
#include "report/output_file.hpp"

namespace memtopo {

class CheckpointWriter {
 public:
  explicit CheckpointWriter(OutputTarget target);
  ~CheckpointWriter();  // waits for the write under way; a pending one is dropped
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Hands a copy of the run so far to the thread; replaces one it has not started on.
  void submit(Topology snapshot);
  // Waits until every submitted checkpoint is written (or failed).
  void drain();
  // Whether the last write failed, and why ("" while none did): read with every submit.
  std::string last_error();

 private:
  void run();

  OutputTarget target_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Topology> pending_;
  bool writing_ = false;
  bool stopping_ = false;
  std::string last_error_;
  std::thread thread_;
};

}  // namespace memtopo
