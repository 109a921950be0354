#pragma once
// The trace sink a run hands its context for --traces (run/trace_sink.hpp): it names the
// experiments whose run gave no label after the phase running now and passes them to the CSV
// writer. Writing traces must never fail a measurement: the first write error is kept
// (write_error()) and recording stops.
//
// In the background (the run's way): each experiment is copied and written by a thread of its
// own while the run measures on, so that formatting and writing thousands of CSV files does
// not stretch a discovery (on an H200 --traces made l1/ro/tex.ways 0.3 -> 1.1-1.25 s each).
// The files are the same, in the same order; the queue holds at most kMaxQueuedBytes, beyond
// which recording waits for the writer. write_error() and the destructor wait until everything
// recorded so far is written, so an interrupted run keeps every trace it measured.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "run/owned_experiment.hpp"
#include "run/trace_sink.hpp"

namespace memtopo {

class TraceRecorder : public TraceSink {
 public:
  enum class Writing { in_line, in_background };
  // Copies waiting for the writer thread, at most (about: approximate_bytes).
  static constexpr std::size_t kMaxQueuedBytes = std::size_t{512} << 20;

  // `current_phase` names the probe or study running now; it labels unlabelled experiments.
  TraceRecorder(TraceSink& sink, std::function<std::string()> current_phase,
                Writing writing = Writing::in_line, std::size_t max_queued_bytes = kMaxQueuedBytes);
  ~TraceRecorder() override;
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  void record_experiment(const std::string& label, const Experiment& experiment) override;
  void record_table(const std::string& name, const std::string& header,
                    const std::vector<std::string>& rows) override;

  // Waits until everything recorded so far is written; the first write error, or "".
  std::string write_error();

 private:
  struct Queued {
    std::string label;
    OwnedExperiment experiment;  // when not a table
    bool is_table = false;
    std::string header;
    std::vector<std::string> rows;
    std::size_t bytes = 0;
  };
  // Runs `write` (one sink call); the first error stops all recording.
  template <typename Write>
  void guarded(Write write);
  void enqueue(Queued item);
  void write_queued();  // the writer thread
  void wait_until_written();
  bool failed();

  TraceSink& sink_;
  std::function<std::string()> current_phase_;
  const Writing writing_;
  const std::size_t max_queued_bytes_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Queued> queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_item_ = false;
  bool stopping_ = false;
  std::string write_error_;
  std::thread writer_;  // last: started once everything above exists
};

}  // namespace memtopo
