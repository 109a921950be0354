#include "study/study.hpp"

#include <exception>

namespace memtopo::study {

StudyResult run_study(const Study& study, StudyContext& context) {
  StudyResult result;
  result.id = study.id;
  result.title = study.title;
  try {
    study.run(context, result);
    result.status = "ok";
  } catch (const Skipped& skip) {
    result.status = "skipped";
    result.reason = skip.what();
  } catch (const Interrupted&) {
    result.status = "interrupted";
    result.reason = "a stop signal arrived; the tables hold what was measured before it";
  } catch (const std::exception& error) {
    result.status = "failed";
    result.reason = error.what();
  }
  return result;
}

}  // namespace memtopo::study
