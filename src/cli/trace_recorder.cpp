#include "cli/trace_recorder.hpp"

#include <exception>
#include <utility>

namespace memtopo {

TraceRecorder::TraceRecorder(TraceSink& sink, std::function<std::string()> current_phase,
                             Writing writing, std::size_t max_queued_bytes)
    : sink_(sink),
      current_phase_(std::move(current_phase)),
      writing_(writing),
      max_queued_bytes_(max_queued_bytes) {
  if (writing_ == Writing::in_background) writer_ = std::thread([this] { write_queued(); });
}

TraceRecorder::~TraceRecorder() {
  if (!writer_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  writer_.join();  // the writer empties the queue before it leaves
}

bool TraceRecorder::failed() {
  const std::lock_guard lock(mutex_);
  return !write_error_.empty();
}

template <typename Write>
void TraceRecorder::guarded(Write write) {
  if (failed()) return;
  try {
    write();
  } catch (const std::exception& error) {
    const std::lock_guard lock(mutex_);
    if (write_error_.empty()) write_error_ = error.what();
  }
}

void TraceRecorder::record_experiment(const std::string& label, const Experiment& experiment) {
  if (failed()) return;
  const std::string named = label.empty() ? current_phase_() : label;
  if (writing_ == Writing::in_line) {
    guarded([&] { sink_.record_experiment(named, experiment); });
    return;
  }
  Queued item;
  item.label = named;
  item.experiment = own(experiment);
  item.bytes = approximate_bytes(item.experiment);
  enqueue(std::move(item));
}

void TraceRecorder::record_table(const std::string& name, const std::string& header,
                                 const std::vector<std::string>& rows) {
  if (failed()) return;
  const std::string named = name.empty() ? current_phase_() : name;
  if (writing_ == Writing::in_line) {
    guarded([&] { sink_.record_table(named, header, rows); });
    return;
  }
  Queued item;
  item.label = named;
  item.is_table = true;
  item.header = header;
  item.rows = rows;
  for (const std::string& row : rows) item.bytes += row.size();
  enqueue(std::move(item));
}

void TraceRecorder::enqueue(Queued item) {
  std::unique_lock lock(mutex_);
  // Room for it, or an empty queue (an item larger than the bound still goes, alone).
  changed_.wait(lock, [&] {
    return queue_.empty() || queued_bytes_ + item.bytes <= max_queued_bytes_;
  });
  queued_bytes_ += item.bytes;
  queue_.push_back(std::move(item));
  changed_.notify_all();
}

void TraceRecorder::write_queued() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything is written
    Queued item = std::move(queue_.front());
    queue_.pop_front();
    writing_item_ = true;
    lock.unlock();
    guarded([&] {
      if (item.is_table) {
        sink_.record_table(item.label, item.header, item.rows);
      } else {
        sink_.record_experiment(item.label, view(item.experiment));
      }
    });
    lock.lock();
    writing_item_ = false;
    queued_bytes_ -= item.bytes;
    changed_.notify_all();
  }
}

void TraceRecorder::wait_until_written() {
  if (!writer_.joinable()) return;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.empty() && !writing_item_; });
}

std::string TraceRecorder::write_error() {
  wait_until_written();
  const std::lock_guard lock(mutex_);
  return write_error_;
}

}  // namespace memtopo
