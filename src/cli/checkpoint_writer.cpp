#include "cli/checkpoint_writer.hpp"

#include <csignal>

#include <pthread.h>

#include "cli/outputs.hpp"
#include "report/output_error.hpp"

namespace memtopo {

CheckpointWriter::CheckpointWriter(OutputTarget target) : target_(std::move(target)) {
  // Signals stay with the main thread, as before the writer had a thread: block them all here
  // while the thread starts, so that it inherits the mask.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  thread_ = std::thread([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

CheckpointWriter::~CheckpointWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    pending_.reset();
  }
  changed_.notify_all();
  thread_.join();
}

void CheckpointWriter::submit(Topology snapshot) {
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(snapshot);
  }
  changed_.notify_all();
}

void CheckpointWriter::drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !pending_ && !writing_; });
}

std::string CheckpointWriter::last_error() {
  std::lock_guard lock(mutex_);
  return last_error_;
}

void CheckpointWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || pending_; });
    if (stopping_) return;
    Topology topology = std::move(*pending_);
    pending_.reset();
    writing_ = true;
    lock.unlock();
    std::string error;
    try {
      write_checkpoint(topology, target_);
    } catch (const OutputError& failure) {
      error = failure.what();
    }
    lock.lock();
    writing_ = false;
    last_error_ = error;
    changed_.notify_all();
  }
}

}  // namespace memtopo
