#include "cli/run_info.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>

#include "model/printable_text.hpp"
#include "version.hpp"

namespace memtopo {

std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

namespace {

std::optional<std::int64_t> whole_number_from_environment(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<SlurmTask> slurm_task_from_environment() {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (!job || !*job) return std::nullopt;
  return SlurmTask{printable_text(job), whole_number_from_environment("SLURM_PROCID"),
                   whole_number_from_environment("SLURM_LOCALID")};
}

RunInfo start_run_info(const std::vector<std::string>& arguments) {
  RunInfo run;
  run.tool_version = kToolVersion;
  run.git_describe = kGitDescribe;
  run.timestamp_utc = utc_timestamp(std::chrono::system_clock::now());
  run.host = host_name();
  run.slurm = slurm_task_from_environment();
  // Arguments are bytes (a path in Latin-1, a control character): stored printable, so that
  // the report is valid UTF-8 and shows them safely.
  for (const std::string& argument : arguments) run.arguments.push_back(printable_text(argument));
  return run;
}

}  // namespace memtopo
