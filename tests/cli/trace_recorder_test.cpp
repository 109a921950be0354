#include "cli/trace_recorder.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "report/output_error.hpp"

namespace memtopo {
namespace {

struct CollectingSink : TraceSink {
  std::vector<std::string> labels;
  bool fail = false;
  void record_experiment(const std::string& label, const Experiment&) override {
    if (fail) throw OutputError("disk full");
    labels.push_back(label);
  }
};

TEST(TraceRecorder, UnlabelledTracesAreNamedAfterTheRunningProbe) {
  CollectingSink sink;
  TraceRecorder recorder(sink, [] { return std::string("l1.size"); });
  recorder.record("l1.size/scan", ChaseSpec{}, Trace{});
  recorder.record("", ChaseSpec{}, Trace{});
  EXPECT_EQ(sink.labels, (std::vector<std::string>{"l1.size/scan", "l1.size"}));
}

TEST(TraceRecorder, AWriteErrorIsKeptAndStopsRecordingWithoutThrowing) {
  CollectingSink sink;
  sink.fail = true;
  TraceRecorder recorder(sink, [] { return std::string("x"); });
  EXPECT_NO_THROW(recorder.record("a", ChaseSpec{}, Trace{}));
  EXPECT_EQ(recorder.write_error(), "disk full");
  sink.fail = false;
  recorder.record("b", ChaseSpec{}, Trace{});
  EXPECT_TRUE(sink.labels.empty());
}

}  // namespace
}  // namespace memtopo
