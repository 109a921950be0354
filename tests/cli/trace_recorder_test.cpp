#include "cli/trace_recorder.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "report/output_error.hpp"

namespace memtopo {
namespace {

struct CollectingSink : TraceSink {
  std::vector<std::string> labels;
  std::vector<std::uint32_t> first_cycles;  // of each chase, as the sink saw it
  bool fail = false;
  void record_experiment(const std::string& label, const Experiment& experiment) override {
    if (fail) throw OutputError("disk full");
    labels.push_back(label);
    if (const auto* chase = std::get_if<ChaseRecord>(&experiment)) {
      first_cycles.push_back(chase->result.cycles.empty() ? 0 : chase->result.cycles.front());
    }
  }
  void record_table(const std::string& name, const std::string&,
                    const std::vector<std::string>&) override {
    labels.push_back("table " + name);
  }
};

Trace trace_of(std::uint32_t cycles) {
  Trace trace;
  trace.cycles.assign(1000, cycles);
  return trace;
}

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

TEST(TraceRecorder, InTheBackgroundEveryTraceIsWrittenInOrderFromItsOwnCopy) {
  CollectingSink sink;
  TraceRecorder recorder(sink, [] { return std::string("l1.ways"); },
                         TraceRecorder::Writing::in_background);
  for (std::uint32_t k = 0; k < 200; ++k) {
    Trace trace = trace_of(k);  // gone before the writer gets to it
    recorder.record(k % 2 ? "l1.ways/scan" : "", ChaseSpec{}, trace);
  }
  recorder.record_table("sync_samples", "a,b", {"1,2"});
  EXPECT_EQ(recorder.write_error(), "");  // waits for the writer
  ASSERT_EQ(sink.labels.size(), 201u);
  EXPECT_EQ(sink.labels[0], "l1.ways");
  EXPECT_EQ(sink.labels[1], "l1.ways/scan");
  EXPECT_EQ(sink.labels.back(), "table sync_samples");
  for (std::uint32_t k = 0; k < 200; ++k) EXPECT_EQ(sink.first_cycles[k], k);
}

TEST(TraceRecorder, InTheBackgroundAWriteErrorStopsRecordingAndIsReported) {
  CollectingSink sink;
  sink.fail = true;
  TraceRecorder recorder(sink, [] { return std::string("x"); },
                         TraceRecorder::Writing::in_background);
  EXPECT_NO_THROW(recorder.record("a", ChaseSpec{}, trace_of(1)));
  EXPECT_EQ(recorder.write_error(), "disk full");
  sink.fail = false;
  recorder.record("b", ChaseSpec{}, trace_of(2));
  EXPECT_EQ(recorder.write_error(), "disk full");
  EXPECT_TRUE(sink.labels.empty());
}

TEST(TraceRecorder, ARecorderLeftEarlyStillWritesWhatItWasGiven) {
  // An interrupted run: the recorder goes out of scope with traces still queued.
  CollectingSink sink;
  {
    TraceRecorder recorder(sink, [] { return std::string("x"); },
                           TraceRecorder::Writing::in_background);
    for (int k = 0; k < 50; ++k) recorder.record("a", ChaseSpec{}, trace_of(k));
  }
  EXPECT_EQ(sink.labels.size(), 50u);
}

TEST(TraceRecorder, AQueueOverItsBoundWaitsForTheWriterInsteadOfGrowing) {
  // A bound of 16 KiB: every 4 KB trace after the fourth waits for one to be written, and one
  // larger than the bound goes alone.
  CollectingSink sink;
  TraceRecorder recorder(sink, [] { return std::string("x"); },
                         TraceRecorder::Writing::in_background, 16 << 10);
  for (std::uint32_t k = 0; k < 100; ++k) recorder.record("small", ChaseSpec{}, trace_of(k));
  Trace large;
  large.cycles.assign(8 << 10, 7);
  recorder.record("large", ChaseSpec{}, large);
  EXPECT_EQ(recorder.write_error(), "");
  ASSERT_EQ(sink.labels.size(), 101u);
  EXPECT_EQ(sink.labels.back(), "large");
}

}  // namespace
}  // namespace memtopo
