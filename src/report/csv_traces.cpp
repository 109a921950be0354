#include "report/csv_traces.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <variant>
#include <system_error>

#include "model/printable_text.hpp"
#include "report/output_error.hpp"
#include "report/output_file.hpp"

namespace memtopo {
namespace {

// Labels are probe ids ("l1.size"); anything unusual becomes '_' so the name is portable.
std::string file_safe(const std::string& label) {
  std::string out = label.empty() ? "experiment" : label;
  for (char& c : out) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '-' || c == '_';
    if (!safe) c = '_';
  }
  return out;
}

// Whole numbers (clocks in kHz, overheads) without an exponent; others with enough digits to
// re-analyse them.
std::string trace_number_text(double value) {
  char text[64];
  if (value == static_cast<double>(static_cast<long long>(value)) && std::fabs(value) < 1e15) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(text, sizeof text, "%.9g", value);
  }
  return text;
}

}  // namespace

std::string describe_experiment(const ChaseSpec& spec, const Trace& trace) {
  std::ostringstream out;
  out << "path=" << to_string(spec.path) << " footprint_bytes=" << spec.footprint_bytes
      << " stride_bytes=" << spec.stride_bytes << " order=" << to_string(spec.order)
      << " seed=" << spec.seed;
  if (spec.order == ChaseOrder::explicit_indices) out << " indices=" << chain_length(spec);
  if (is_wide(spec)) out << " wide=true";
  out << " start_index=" << spec.start_index << " warm_passes=" << spec.warm_passes
      << " timed_loads=" << spec.timed_loads << " chasers=" << spec.chasers
      << " schedule=" << (spec.schedule == ChaserSchedule::sequential ? "sequential" : "concurrent")
      << " sm=" << (spec.sm ? std::to_string(*spec.sm) : std::string("any"))
      << " flush_device_caches=" << (spec.flush_device_caches ? "true" : "false");
  out << " | ran_on_sm=" << trace.sm_id
      << " overhead_cycles=" << trace_number_text(trace.overhead_cycles)
      << " clock_khz=" << trace_number_text(trace.clock_khz);
  return out.str();
}

void write_trace_csv(std::ostream& out, const std::string& label, const ChaseSpec& spec,
                     const Trace& trace) {
  out << "# " << label << ": " << describe_experiment(spec, trace) << "\n";
  out << "access,chaser,index,cycles\n";
  const std::size_t per_chaser = spec.timed_loads ? spec.timed_loads : trace.cycles.size();
  for (std::size_t i = 0; i < trace.cycles.size(); ++i) {
    std::size_t chaser = per_chaser ? i / per_chaser : 0;
    std::size_t access = per_chaser ? i % per_chaser : i;
    out << access << "," << chaser << ",";
    if (i < trace.indices.size()) out << trace.indices[i];  // empty when the backend gave none
    if (i < trace.wide_indices.size()) out << trace.wide_indices[i];  // wide chains
    out << "," << trace.cycles[i] << "\n";
  }
}

CsvTraceWriter::CsvTraceWriter(std::filesystem::path directory) : directory_(std::move(directory)) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error || !std::filesystem::is_directory(directory_)) {
    throw OutputError("cannot create trace directory " + printable_text(directory_.string()) +
                      ": " + (error ? error.message() : "a file of that name exists"));
  }
  // Now rather than at the first trace, which may come after minutes of measuring.
  check_directory_writable(directory_, "traces to " + printable_text(directory_.string()));
}

const char* const kStreamCsvHeader =
    "launch,op,path,placement,footprint_bytes,vector_bytes,blocks_per_sm,threads_per_block,unroll,"
    "bytes_moved,seconds,bytes_per_second,sm_clock_khz,memory_clock_khz";

void write_stream_rows(std::ostream& out, const StreamSpec& spec, const StreamResult& result) {
  for (std::size_t i = 0; i < result.seconds.size(); ++i) {
    const double seconds = result.seconds[i];
    out << i << "," << to_string(spec.op) << "," << to_string(spec.path) << ","
        << to_string(spec.placement) << "," << result.footprint_bytes << "," << spec.vector_bytes
        << "," << spec.blocks_per_sm << "," << spec.threads_per_block << "," << spec.unroll << ","
        << result.bytes_moved << "," << trace_number_text(seconds) << ","
        << trace_number_text(seconds > 0 ? static_cast<double>(result.bytes_moved) / seconds : 0)
        << "," << trace_number_text(result.sm_clock_khz) << ","
        << trace_number_text(result.memory_clock_khz) << "\n";
  }
}

void CsvTraceWriter::append_stream(const std::string& label, const StreamSpec& spec,
                                   const StreamResult& result) {
  auto [entry, first] = stream_files_.try_emplace(label);
  StreamTraceFile& trace = entry->second;
  if (first) {
    char number[32];
    std::snprintf(number, sizeof number, "%05zu_", files_written_);
    trace.path = directory_ / (number + file_safe(label) + ".csv");
    trace.text = "# " + label + ": streams, one row per timed launch\n" +
                 std::string(kStreamCsvHeader) + "\n";
    ++files_written_;
  }
  std::ostringstream rows;
  write_stream_rows(rows, spec, result);
  trace.text += rows.str();
  // One file per label grows with every stream; it is rewritten whole through a temporary file
  // and a rename, like the chase traces, so that a full disk never leaves it truncated.
  OutputTarget target;
  target.given = "trace " + printable_text(trace.path.string());
  target.path = trace.path;
  write_output(target, trace.text, /*flush_to_disk=*/false);
}

void CsvTraceWriter::write_numbered(const std::string& label, const std::string& text) {
  char number[32];
  std::snprintf(number, sizeof number, "%05zu_", files_written_);
  write_file(number + file_safe(label) + ".csv", text);
}

void CsvTraceWriter::write_file(const std::string& name, const std::string& text) {
  const std::filesystem::path path = directory_ / name;
  // Through a temporary file and a rename, so that a full disk leaves no truncated trace; not
  // flushed to disk one by one, which would cost seconds over thousands of files.
  // The directory was checked once; each file is new, so no per-file check is needed.
  OutputTarget target;
  target.given = "trace " + printable_text(path.string());
  target.path = path;
  write_output(target, text, /*flush_to_disk=*/false);
  ++files_written_;
}

namespace {

// A visitor of one lambda per kind.
template <typename... Kinds>
struct PerKind : Kinds... {
  using Kinds::operator()...;
};

}  // namespace

void CsvTraceWriter::record_experiment(const std::string& label, const Experiment& experiment) {
  if (const auto* stream = std::get_if<StreamRecord>(&experiment)) {
    append_stream(label, stream->spec, stream->result);  // one file per label, a row per launch
    return;
  }
  std::ostringstream text;
  std::visit(PerKind{
                 [&](const ChaseRecord& r) { write_trace_csv(text, label, r.spec, r.result); },
                 [&](const WarpAccessRecord& r) {
                   write_warp_access_csv(text, label, r.spec, r.result);
                 },
                 [&](const FirstTouchRecord& r) {
                   write_first_touch_csv(text, label, r.spec, r.result);
                 },
                 [&](const StridedRecord& r) { write_strided_csv(text, label, r.spec, r.result); },
                 [&](const BarrierRecord& r) { write_barrier_csv(text, label, r.spec, r.result); },
                 [&](const SpillRecord& r) { write_spill_csv(text, label, r.spec, r.result); },
                 [&](const RemoteChaseRecord& r) {
                   write_remote_chase_csv(text, label, r.spec, r.result);
                 },
                 [&](const TransferRecord& r) { write_transfer_csv(text, label, r.spec, r.result); },
                 [](const StreamRecord&) {},
             },
             experiment);
  write_numbered(label, text.str());
}

void CsvTraceWriter::record_table(const std::string& name, const std::string& header,
                                  const std::vector<std::string>& rows) {
  std::string text = header + "\n";
  for (const std::string& row : rows) text += row + "\n";
  write_file(file_safe(name) + ".csv", text);
}

}  // namespace memtopo
