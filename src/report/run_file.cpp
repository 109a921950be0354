#include "report/run_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "model/json_text.hpp"
#include "model/printable_text.hpp"
#include "report/gzip_text.hpp"
#include "report/multi_device_report.hpp"

namespace memtopo {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 16;

std::string too_large(const std::string& shown, std::uintmax_t bytes) {
  return shown + ": " + (bytes > kMaxRunFileBytes ? std::to_string(bytes) + " bytes, l" : "l") +
         "arger than " + std::to_string(kMaxRunFileBytes >> 20) +
         " MiB; a memtopo result is far smaller";
}

TopologyJsonError not_text(const std::string& shown, std::size_t nul_at) {
  return TopologyJsonError(shown + ": a NUL byte at byte " + std::to_string(nul_at) +
                           ": not a JSON text (a binary file, or something appended to it)");
}

// Closes the file however the reading ends.
struct OpenFile {
  int fd;
  ~OpenFile() {
    if (fd >= 0) ::close(fd);
  }
};

// The file's text, every refusal a TopologyJsonError naming the path (run_file.hpp).
std::string read_run_text(const std::string& path) {
  const std::string shown = printable_text(path);
  OpenFile file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) {
    throw TopologyJsonError(
        shown + (errno == ENOENT ? std::string(": no such file")
                                 : ": cannot be read (" + std::string(std::strerror(errno)) + ")"));
  }
  struct stat status {};
  if (::fstat(file.fd, &status) != 0) {
    throw TopologyJsonError(shown + ": cannot be read (" + std::strerror(errno) + ")");
  }
  if (S_ISDIR(status.st_mode)) {
    throw TopologyJsonError(shown + ": is a directory, not a memtopo JSON file");
  }
  // A regular file says its size: a huge one is refused before a byte is read.
  if (S_ISREG(status.st_mode) && static_cast<std::uintmax_t>(status.st_size) > kMaxRunFileBytes) {
    throw TopologyJsonError(too_large(shown, static_cast<std::uintmax_t>(status.st_size)));
  }
  std::string text;
  if (S_ISREG(status.st_mode)) text.reserve(static_cast<std::size_t>(status.st_size));
  char buffer[kChunkBytes];
  bool gzip = false;  // decided by the first bytes: gzip data holds NUL bytes, text none
  for (;;) {
    const ssize_t got = ::read(file.fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw TopologyJsonError(shown + ": read failed (" + std::strerror(errno) + ")");
    if (got == 0) break;
    const std::string_view chunk(buffer, static_cast<std::size_t>(got));
    if (text.empty()) gzip = starts_like_gzip(chunk);
    // Text has no NUL byte: /dev/zero or a binary file ends here, not after 256 MiB.
    if (const std::size_t nul = gzip ? std::string_view::npos : first_nul_byte(chunk);
        nul != std::string_view::npos) {
      throw not_text(shown, text.size() + nul);
    }
    text.append(chunk);
    if (text.size() > kMaxRunFileBytes) throw TopologyJsonError(too_large(shown, 0));
  }
  if (!gzip) return text;
  std::string inflated = gunzip_text(text, kMaxRunFileBytes, shown);
  if (const std::size_t nul = first_nul_byte(inflated); nul != std::string_view::npos) {
    throw not_text(shown + " (gunzipped)", nul);
  }
  return inflated;
}

}  // namespace

nlohmann::ordered_json read_run_document(const std::string& path) {
  return parse_run_document(read_run_text(path), path);
}

Topology read_run_file(const std::string& path) {
  return topology_from_json_text(read_run_text(path), path);
}

std::vector<RunEntry> read_run_entries(const std::string& path) {
  const nlohmann::ordered_json document = read_run_document(path);
  const auto schema = document.is_object() ? document.find("schema") : document.end();
  const bool multi = schema != document.end() && schema->is_string() &&
                     schema->get<std::string>().rfind(kMultiDeviceSchema, 0) == 0;
  if (!multi) return {RunEntry{path, topology_from_json(document, path)}};
  const auto devices = document.find("devices");
  if (devices == document.end() || !devices->is_array()) {
    throw TopologyJsonError(printable_text(path) + ": devices: a multi-device run needs a list");
  }
  std::vector<RunEntry> entries;
  for (std::size_t i = 0; i < devices->size(); ++i) {
    const std::string origin = path + " devices[" + std::to_string(i) + "]";
    entries.push_back(RunEntry{origin, topology_from_json((*devices)[i], origin)});
  }
  return entries;
}

}  // namespace memtopo
