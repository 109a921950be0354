#pragma once
// One printer interface over every result memtopo writes (a discovery, a multi-device run, a
// study), as google-benchmark's reporters and nvbench's printers: each output format is a
// Printer, and a command builds a PrinterSet from its output options and hands it the result.
// Discovery, study, multi-device and `memtopo report` all print through it.
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "model/topology.hpp"
#include "report/multi_device_report.hpp"
#include "report/output_error.hpp"
#include "report/output_file.hpp"
#include "study/report.hpp"

namespace memtopo {

// A run's result, whatever its kind; it refers to the result, which must outlive it.
class RunDocument {
 public:
  RunDocument(const Topology& discovery) : result_(&discovery) {}                 // NOLINT
  RunDocument(const MultiDeviceReport& multi_device) : result_(&multi_device) {}  // NOLINT
  RunDocument(const study::StudyReport& study) : result_(&study) {}               // NOLINT

  // Calls the overload of `visitor` for the result's kind with a const reference to it.
  template <typename Visitor>
  decltype(auto) visit(Visitor&& visitor) const {
    return std::visit([&](const auto* result) -> decltype(auto) { return visitor(*result); },
                      result_);
  }
  // "a discovery", "a multi-device run", "a study's result": for messages.
  const char* kind_name() const;

 private:
  std::variant<const Topology*, const MultiDeviceReport*, const study::StudyReport*> result_;
};

// One output format to one place. print throws OutputError when it cannot write.
class Printer {
 public:
  virtual ~Printer() = default;
  // Whether this format exists for the document's kind (a study has no memory map).
  virtual bool supports(const RunDocument& /*document*/) const { return true; }
  virtual void print(const RunDocument& document) = 0;
  // What this printer writes, for messages: "--html", "the console report".
  virtual std::string name() const = 0;
};

// The formats. Each renders the document with its kind's render function.
enum class Format { console, json, html, markdown, svg };

// A file printer: writes the format to `target` (replaced atomically when it can, flushed to
// disk). Markdown also writes its plots' folder beside the file.
std::unique_ptr<Printer> make_file_printer(Format format, OutputTarget target,
                                           std::string option_name);

// A stream printer: the console report or the JSON (--json -) on `out`, flushed; a stream that
// fails is an OutputError with `failure_message`.
std::unique_ptr<Printer> make_stream_printer(Format format, std::ostream& out,
                                             std::string failure_message);

// The multiplexer: hands a document to every printer in the order they were added.
class PrinterSet {
 public:
  void add(std::unique_ptr<Printer> printer);
  void add(PrinterSet&& others);  // appends their printers, in their order
  bool empty() const { return printers_.empty(); }
  // The names of the printers that do not support `document`'s kind; empty when all do.
  std::vector<std::string> unsupported(const RunDocument& document) const;
  // Every printer is tried, whatever failed before it (a full disk still shows the results, a
  // closed stdout keeps the files); each failure goes to `on_failure`.
  void print_each(const RunDocument& document,
                  const std::function<void(const OutputError&)>& on_failure) const;
  // As print_each, then throws the first failure.
  void print(const RunDocument& document) const;

 private:
  std::vector<std::unique_ptr<Printer>> printers_;
};

// Where a command's results go, from its output options: the JSON file (--json FILE), the
// --html, --markdown and --svg files and the console report on `out` (or the JSON there, for
// --json -). A JSON file that is replaced goes first, so that a closed stdout cannot cost the
// results; one written in place (--json /dev/stdout) goes last, after the console report it
// may share a file with. `console` false leaves the console report out (`memtopo report` with
// an output file).
struct PrintTargets {
  std::optional<OutputTarget> json;
  std::optional<OutputTarget> html;
  std::optional<OutputTarget> markdown;
  std::optional<OutputTarget> svg;
  bool console = true;
  bool json_to_stream = false;  // --json -
};
PrinterSet build_printers(const PrintTargets& targets, std::ostream& out,
                          const std::string& stream_failure_message);

}  // namespace memtopo
