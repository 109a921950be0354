#include "support/scoring.hpp"

#include <cstdio>

namespace memtopo::validation {
namespace {

constexpr double kConfident = 0.5;

// Whether a bound on the fact's numeric truth holds: a lower bound says "at least", an upper
// bound "at most".
bool bound_holds(Bound bound, double value, double truth) {
  return bound == Bound::lower ? value <= truth : value >= truth;
}

Score unsure(Score s, std::string why) {
  s.verdict = Verdict::unsure;
  s.why = std::move(why);
  return s;
}

Score wrong(Score s, std::string why, bool fails) {
  s.verdict = Verdict::wrong;
  s.fails = fails;
  s.why = std::move(why);
  return s;
}

Score judge_bound(const Fact& fact, const Property& p, Score s) {
  const char* word = p.bound == Bound::lower ? "lower" : "upper";
  s.found = std::string(p.bound == Bound::lower ? ">= " : "<= ") + s.found;
  if (fact.reveal == Reveal::absent) {
    if (p.bound == Bound::lower) return unsure(s, "no such level; a lower bound only");
    return wrong(s, "an upper bound on a level the device does not have", true);
  }
  if (!fact.number || !p.value.is_number()) return unsure(s, std::string("a ") + word + " bound");
  if (bound_holds(p.bound, p.value.get<double>(), *fact.number)) {
    return unsure(s, std::string("a true ") + word + " bound");
  }
  return wrong(s, std::string(p.bound == Bound::lower ? "a lower" : "an upper") + " bound that excludes the truth", true);
}

}  // namespace

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::right: return "right";
    case Verdict::unsure: return "unsure";
    case Verdict::wrong: return "wrong";
  }
  return "?";
}

std::string cell(const nlohmann::json& value) {
  std::string s = value.is_string() ? value.get<std::string>() : value.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  for (char& ch : s) {
    if (ch == '|') ch = '/';
  }
  return s;
}

Score score(const Fact& fact, const Property* p, const std::string& not_reported_because) {
  Score s;
  s.confidence = "-";
  if (!p) {
    s.found = "(not reported)";
    if (fact.reveal == Reveal::absent) {
      s.verdict = Verdict::right;
      s.why = fact.why;
      return s;
    }
    return unsure(s, not_reported_because.empty() ? "not reported" : not_reported_because);
  }
  s.found = cell(p->value);
  if (p->confidence) {
    char text[16];
    std::snprintf(text, sizeof text, "%.2f", *p->confidence);
    s.confidence = text;
  }
  if (p->bound != Bound::none) return judge_bound(fact, *p, s);
  if (p->inconclusive || p->value.is_null()) {
    return unsure(s, p->note.empty() ? "inconclusive" : "inconclusive: " + p->note);
  }
  if (p->source == Source::api) return unsure(s, "the API's value, not measured");
  const double confidence = p->confidence.value_or(1.0);
  const bool confident = confidence >= kConfident;
  if (fact.reveal == Reveal::hidden) {
    if (!confident) return unsure(s, "not revealed by the device; confidence < 0.5");
    return wrong(s, "a confident value the device does not reveal (" + fact.why + ")", true);
  }
  if (fact.reveal == Reveal::absent) {
    if (!confident) return unsure(s, "no such element; confidence < 0.5");
    return wrong(s, "a confident value for what the device does not have (" + fact.why + ")", true);
  }
  const bool right = fact.matches(p->value);
  if (!confident) {
    return unsure(s, right ? "right, confidence < 0.5" : "wrong value, confidence < 0.5");
  }
  if (right) {
    s.verdict = Verdict::right;
    return s;
  }
  return wrong(s, "outside " + fact.tolerance + " of the truth", true);
}

}  // namespace memtopo::validation
