#include "study/study.hpp"

#include <chrono>
#include <exception>

namespace memtopo::study {
namespace {

std::optional<double> clock_khz(Backend& backend) {
  const double khz = backend.current_sm_clock_khz();
  return khz > 0 ? std::optional<double>(khz) : std::nullopt;
}

}  // namespace

void PhaseTimer::run(const std::string& name, const std::function<void()>& work) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::optional<double> before = clock_khz(backend_);
  auto record = [&] {
    phases_.emplace_back(name, std::chrono::duration<double>(Clock::now() - start).count(), before,
                         clock_khz(backend_));
  };
  try {
    work();
  } catch (...) {
    record();
    throw;
  }
  record();
}

StudyResult run_study(const Study& study, StudyContext& context) {
  StudyResult result;
  result.id = study.id;
  result.title = study.title;
  try {
    study.run(context, result);
    result.status = "ok";
  } catch (const StudySkipped& skip) {
    result.status = "skipped";
    result.reason = skip.what();
  } catch (const StudyInterrupted&) {
    result.status = "interrupted";
    result.reason = "a stop signal arrived; the tables hold what was measured before it";
  } catch (const std::exception& error) {
    result.status = "failed";
    result.reason = error.what();
  }
  return result;
}

}  // namespace memtopo::study
