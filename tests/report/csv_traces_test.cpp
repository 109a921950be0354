#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/csv_traces.hpp"
#include "report/output_error.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

ChaseSpec two_chaser_spec() {
  ChaseSpec spec;
  spec.path = LoadPath::nc;
  spec.footprint_bytes = 4096;
  spec.stride_bytes = 128;
  spec.timed_loads = 3;
  spec.chasers = 2;
  spec.sm = 1;
  return spec;
}

Trace two_chaser_trace() {
  Trace trace;
  trace.cycles = {30, 31, 300, 29, 33, 32};
  trace.indices = {0, 32, 64, 0, 32, 64};
  trace.sm_id = 1;
  trace.overhead_cycles = 12;
  trace.clock_khz = 1500000;
  return trace;
}

std::string read(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(CsvTraces, WritesSpecCommentHeaderAndOneRowPerAccess) {
  std::ostringstream out;
  write_trace_csv(out, "l1.size/scan", two_chaser_spec(), two_chaser_trace());
  EXPECT_EQ(out.str(),
            "# l1.size/scan: path=nc footprint_bytes=4096 stride_bytes=128 order=sequential "
            "seed=0 start_index=0 warm_passes=1 timed_loads=3 chasers=2 schedule=sequential "
            "sm=1 flush_device_caches=false | ran_on_sm=1 overhead_cycles=12 clock_khz=1500000\n"
            "access,chaser,index,cycles\n"
            "0,0,0,30\n1,0,32,31\n2,0,64,300\n"
            "0,1,0,29\n1,1,32,33\n2,1,64,32\n");
}

TEST(CsvTraces, WriterNumbersFilesInRunOrderWithSafeNames) {
  fs::path dir = fs::temp_directory_path() / "memtopo_csv_traces_test";
  fs::remove_all(dir);
  CsvTraceWriter writer(dir / "nested");
  writer.record("l1.size/scan", two_chaser_spec(), two_chaser_trace());
  writer.record("", two_chaser_spec(), two_chaser_trace());
  EXPECT_EQ(writer.files_written(), 2u);
  EXPECT_TRUE(fs::exists(dir / "nested" / "00000_l1.size_scan.csv"));
  EXPECT_TRUE(fs::exists(dir / "nested" / "00001_experiment.csv"));
  EXPECT_EQ(read(dir / "nested" / "00000_l1.size_scan.csv").rfind("# l1.size/scan: path=nc", 0),
            0u);
}

TEST(CsvTraces, StreamsOfOneLabelShareAFileOneRowPerTimedLaunch) {
  const fs::path dir = fs::path(::testing::TempDir()) / "memtopo_stream_csv";
  fs::remove_all(dir);
  CsvTraceWriter writer(dir);
  StreamSpec spec;
  spec.path = LoadPath::cg;
  spec.footprint_bytes = 1 << 20;
  spec.blocks_per_sm = 2;
  StreamResult result;
  result.seconds = {0.001, 0.002};
  result.bytes_moved = 1000000;
  result.footprint_bytes = 1 << 20;
  result.sm_clock_khz = 1980000;
  writer.record_stream("l2.bandwidth/sweep", spec, result);
  writer.record(".", two_chaser_spec(), two_chaser_trace());
  writer.record_stream("l2.bandwidth/sweep", spec, result);
  EXPECT_EQ(writer.files_written(), 2u);
  const std::string text = read(dir / "00000_l2.bandwidth_sweep.csv");
  EXPECT_NE(text.find(std::string(kStreamCsvHeader) + "\n"), std::string::npos);
  EXPECT_NE(text.find("0,read,cg,shared_by_all,1048576,16,2,256,4,1000000,0.001,1000000000,"
                      "1980000,0\n1,read,cg,shared_by_all,1048576,16,2,256,4,1000000,0.002,"
                      "500000000,1980000,0\n0,read"),
            std::string::npos)
      << text;
  fs::remove_all(dir);
}

TEST(CsvTraces, ThePeerExperimentsAreWrittenOneFileEach) {
  const fs::path dir = fs::path(::testing::TempDir()) / "memtopo_peer_csv";
  fs::remove_all(dir);
  CsvTraceWriter writer(dir);
  const RemoteChaseSpec chase{0, kHostMemory, 1 << 26, 512, 256, 2, 7};
  RemoteChaseResult samples;
  samples.cycles_per_load = {1500, 1510};
  samples.ns_per_load = {1000, 1006.5};
  samples.sm_clock_khz = 1500000;
  writer.record_experiment("p2p.latency", RemoteChaseRecord{chase, samples});
  const TransferSpec copy{1, 0, TransferEngine::copy_engine, TransferDirection::write, 4096, 2, 2};
  TransferResult copied;
  copied.seconds = {0.001, 0.002};
  copied.bytes = 4096;
  copied.note = "staged through the host: no peer access";
  writer.record_experiment("p2p.copy_bandwidth", TransferRecord{copy, copied});
  EXPECT_EQ(writer.files_written(), 2u);
  EXPECT_EQ(read(dir / "00000_p2p.latency.csv"),
            "# p2p.latency: remote chase reader=0 memory=-1 footprint_bytes=67108864 "
            "stride_bytes=512 loads_per_sample=256 seed=7 clock_khz=1500000\n"
            "sample,cycles,ns\n0,1500,1000\n1,1510,1006.5\n");
  EXPECT_EQ(read(dir / "00001_p2p.copy_bandwidth.csv"),
            "# p2p.copy_bandwidth: transfer actor=1 memory=0 engine=copy_engine direction=write "
            "warmups=2 note=staged through the host: no peer access\n"
            "repetition,seconds,bytes\n0,0.001,4096\n1,0.002,4096\n");
  fs::remove_all(dir);
}

TEST(CsvTraces, AFileWhereTheDirectoryShouldBeIsAnOutputError) {
  fs::path file = fs::temp_directory_path() / "memtopo_csv_traces_test_file";
  std::ofstream(file) << "x";
  EXPECT_THROW(CsvTraceWriter writer(file), OutputError);
}

}  // namespace
}  // namespace memtopo
