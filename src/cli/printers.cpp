#include "cli/printers.hpp"

#include <exception>
#include <utility>

#include "report/console.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
#include "report/memory_map.hpp"
#include "report/output_error.hpp"

namespace memtopo {
namespace {

// Each kind's render function for each format but markdown (files of its own); an empty string
// where the kind has none (supports() says so first).
struct Render {
  Format format;

  std::string operator()(const Topology& topology) const {
    switch (format) {
      case Format::console:
        return render_console(topology);
      case Format::json:
        return render_json(topology);
      case Format::html:
        return render_html(topology);
      case Format::svg:
        return memory_map_svg(topology);
      case Format::markdown:
        break;  // files of its own: write_markdown_report
    }
    return {};
  }
  std::string operator()(const MultiDeviceReport& report) const {
    switch (format) {
      case Format::console:
        return render_multi_device_console(report);
      case Format::json:
        return render_multi_device_json(report);
      case Format::html:
        return render_multi_device_html(report);
      case Format::svg:
        return render_memory_map_svg(memory_map(report));
      case Format::markdown:
        break;
    }
    return {};
  }
  std::string operator()(const study::StudyReport& report) const {
    switch (format) {
      case Format::console:
        return study::render_study_console(report);
      case Format::json:
        return study::render_study_json(report);
      case Format::html:
        return study::render_study_html(report);
      case Format::svg:
      case Format::markdown:
        break;
    }
    return {};
  }
};

bool has_format(const RunDocument& document, Format format) {
  struct Has {
    Format format;
    bool operator()(const Topology&) const { return true; }
    bool operator()(const MultiDeviceReport&) const { return true; }
    bool operator()(const study::StudyReport&) const { return format != Format::svg; }
  };
  return document.visit(Has{format});
}

class FilePrinter : public Printer {
 public:
  FilePrinter(Format format, OutputTarget target, std::string option_name)
      : format_(format), target_(std::move(target)), option_name_(std::move(option_name)) {}
  bool supports(const RunDocument& document) const override {
    return has_format(document, format_);
  }
  void print(const RunDocument& document) override {
    if (format_ == Format::markdown) {
      document.visit([this](const auto& result) { write_markdown(result); });
      return;
    }
    write_output(target_, document.visit(Render{format_}), /*flush_to_disk=*/true);
  }
  std::string name() const override { return option_name_; }

 private:
  void write_markdown(const Topology& topology) { write_markdown_report(topology, target_); }
  void write_markdown(const MultiDeviceReport& report) {
    write_markdown_report(
        [&report](const std::string& folder) {
          return render_multi_device_markdown(report, folder);
        },
        target_);
  }
  void write_markdown(const study::StudyReport& report) {
    write_markdown_report(
        [&report](const std::string& folder) {
          return study::render_study_markdown(report, folder);
        },
        target_);
  }

  Format format_;
  OutputTarget target_;
  std::string option_name_;
};

class StreamPrinter : public Printer {
 public:
  StreamPrinter(Format format, std::ostream& out, std::string failure_message)
      : format_(format), out_(out), failure_message_(std::move(failure_message)) {}
  void print(const RunDocument& document) override {
    out_ << document.visit(Render{format_});
    out_.flush();
    if (!out_) throw OutputError(failure_message_);
  }
  std::string name() const override {
    return format_ == Format::json ? "--json -" : "the console report";
  }

 private:
  Format format_;
  std::ostream& out_;
  std::string failure_message_;
};

}  // namespace

const char* RunDocument::kind_name() const {
  struct Name {
    const char* operator()(const Topology&) const { return "a discovery"; }
    const char* operator()(const MultiDeviceReport&) const { return "a multi-device run"; }
    const char* operator()(const study::StudyReport&) const { return "a study's result"; }
  };
  return visit(Name{});
}

std::unique_ptr<Printer> make_file_printer(Format format, OutputTarget target,
                                           std::string option_name) {
  return std::make_unique<FilePrinter>(format, std::move(target), std::move(option_name));
}

std::unique_ptr<Printer> make_stream_printer(Format format, std::ostream& out,
                                             std::string failure_message) {
  return std::make_unique<StreamPrinter>(format, out, std::move(failure_message));
}

void PrinterSet::add(std::unique_ptr<Printer> printer) {
  printers_.push_back(std::move(printer));
}

void PrinterSet::add(PrinterSet&& others) {
  for (auto& printer : others.printers_) printers_.push_back(std::move(printer));
  others.printers_.clear();
}

std::vector<std::string> PrinterSet::unsupported(const RunDocument& document) const {
  std::vector<std::string> names;
  for (const auto& printer : printers_) {
    if (!printer->supports(document)) names.push_back(printer->name());
  }
  return names;
}

void PrinterSet::print_each(const RunDocument& document,
                            const std::function<void(const OutputError&)>& on_failure) const {
  for (const auto& printer : printers_) {
    if (!printer->supports(document)) continue;
    try {
      printer->print(document);
    } catch (const OutputError& error) {
      on_failure(error);
    }
  }
}

void PrinterSet::print(const RunDocument& document) const {
  std::exception_ptr first_failure;
  print_each(document, [&first_failure](const OutputError&) {
    if (!first_failure) first_failure = std::current_exception();
  });
  if (first_failure) std::rethrow_exception(first_failure);
}

PrinterSet build_printers(const PrintTargets& targets, std::ostream& out,
                          const std::string& stream_failure_message) {
  PrinterSet printers;
  const bool json_first = targets.json && targets.json->replace_atomically;
  if (json_first) printers.add(make_file_printer(Format::json, *targets.json, "--json"));
  if (targets.html) printers.add(make_file_printer(Format::html, *targets.html, "--html"));
  if (targets.markdown)
    printers.add(make_file_printer(Format::markdown, *targets.markdown, "--markdown"));
  if (targets.svg) printers.add(make_file_printer(Format::svg, *targets.svg, "--svg"));
  if (targets.json_to_stream) {
    printers.add(make_stream_printer(Format::json, out, stream_failure_message));
  } else if (targets.console) {
    printers.add(make_stream_printer(Format::console, out, stream_failure_message));
  }
  if (targets.json && !json_first)
    printers.add(make_file_printer(Format::json, *targets.json, "--json"));
  return printers;
}

}  // namespace memtopo
