#include "subprocess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace memtopo::testing {
namespace {

std::string make_capture_file(const char* stream) {
  std::string pattern = std::string("/tmp/memtopo_test_") + stream + "_XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  return pattern;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> merged_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> merged;
  for (char** entry = environ; *entry; ++entry) {
    std::string variable = *entry;
    std::string name = variable.substr(0, variable.find('='));
    bool overridden = false;
    for (const std::string& o : overrides) overridden |= o.substr(0, o.find('=')) == name;
    if (!overridden) merged.push_back(variable);
  }
  merged.insert(merged.end(), overrides.begin(), overrides.end());
  return merged;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv,
                       const std::vector<std::string>& environment)
    : out_path_(make_capture_file("out")), err_path_(make_capture_file("err")) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path_.c_str(), O_WRONLY | O_TRUNC,
                                   0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path_.c_str(), O_WRONLY | O_TRUNC,
                                   0);
  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(environment);
  std::vector<char*> arg_pointers = c_strings(args);
  std::vector<char*> env_pointers = c_strings(env);
  int failed = posix_spawn(&pid_, arg_pointers[0], &actions, nullptr, arg_pointers.data(),
                           env_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  if (failed) throw std::runtime_error("cannot start " + argv[0]);
  started_ = std::chrono::steady_clock::now();
}

Subprocess::~Subprocess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  unlink(out_path_.c_str());
  unlink(err_path_.c_str());
}

std::string Subprocess::err_so_far() const {
  return read_file(err_path_);
}

std::string Subprocess::out_so_far() const {
  return read_file(out_path_);
}

void Subprocess::send_signal(int signal) const {
  if (pid_ > 0) kill(pid_, signal);
}

ProcessResult Subprocess::wait() {
  int status = 0;
  rusage usage{};
  wait4(pid_, &status, 0, &usage);
  pid_ = -1;
  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  result.max_rss_kib = usage.ru_maxrss;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  result.out = read_file(out_path_);
  result.err = read_file(err_path_);
  return result;
}

}  // namespace memtopo::testing
