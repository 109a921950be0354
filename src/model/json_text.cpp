// A SAX handler that builds the document itself (json_text.hpp says why not nlohmann's parse).
#include "model/json_text.hpp"

#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/printable_text.hpp"

namespace memtopo {
namespace {

// The longest parser message kept (nlohmann quotes the token it read: a 400-digit number, a
// whole line).
constexpr std::size_t kMaxParserMessage = 300;
// The longest key quoted in a message.
constexpr std::size_t kMaxQuotedKey = 40;
// An ordered_json object looks its keys up by scanning them; beyond this many keys a hash set
// remembers them instead.
constexpr std::size_t kKeysScanned = 16;

std::string cut(std::string text, std::size_t limit) {
  if (text.size() > limit) text = text.substr(0, limit - 3) + "...";
  return text;
}

template <typename Json>
class DocumentBuilder {
 public:
  using string_t = typename Json::string_t;
  using object_t = typename Json::object_t;
  using array_t = typename Json::array_t;
  static constexpr bool kOrdered = !std::is_same_v<object_t, typename nlohmann::json::object_t>;

  explicit DocumentBuilder(int max_depth) : max_depth_(max_depth) {}

  Json take() { return std::move(root_); }

  bool null() { return place(nullptr); }
  bool boolean(bool value) { return place(value); }
  bool number_integer(typename Json::number_integer_t value) { return place(value); }
  bool number_unsigned(typename Json::number_unsigned_t value) { return place(value); }
  bool number_float(typename Json::number_float_t value, const string_t&) { return place(value); }
  bool string(string_t& value) { return place(std::move(value)); }
  bool binary(typename Json::binary_t&) { return true; }  // JSON text has none

  bool start_object(std::size_t) { return open(nlohmann::json::value_t::object); }
  bool start_array(std::size_t) { return open(nlohmann::json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& key) {
    Frame& frame = open_.back();
    object_t& object = frame.container->template get_ref<object_t&>();
    if (seen_before(frame, object, key)) {
      throw JsonTextError(JsonTextError::Kind::duplicate_key,
                          "duplicate key \"" + printable_text(cut(key, kMaxQuotedKey)) + "\"");
    }
    if constexpr (kOrdered) {
      // Appended without ordered_map's search for the key (seen_before did it).
      auto& entries = static_cast<typename object_t::Container&>(object);
      entries.emplace_back(std::move(key), nullptr);
      pending_ = &entries.back().second;
    } else {
      pending_ = &object.emplace(std::move(key), nullptr).first->second;
    }
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    throw JsonTextError(JsonTextError::Kind::syntax, cut(error.what(), kMaxParserMessage));
  }

 private:
  struct Frame {
    Json* container;
    std::unordered_set<std::string> keys;  // filled once the object has kKeysScanned keys
  };

  bool seen_before(Frame& frame, const object_t& object, const string_t& key) {
    if constexpr (!kOrdered) {
      return object.find(key) != object.end();
    } else {
      if (object.size() < kKeysScanned) {
        for (const auto& entry : object) {
          if (entry.first == key) return true;
        }
        return false;
      }
      if (frame.keys.empty()) {
        for (const auto& entry : object) frame.keys.insert(entry.first);
      }
      return !frame.keys.insert(key).second;
    }
  }

  template <typename Value>
  Json* put(Value&& value) {
    if (open_.empty()) {
      root_ = Json(std::forward<Value>(value));
      return &root_;
    }
    Json& parent = *open_.back().container;
    if (parent.is_array()) {
      array_t& items = parent.template get_ref<array_t&>();
      items.emplace_back(std::forward<Value>(value));
      return &items.back();
    }
    *pending_ = Json(std::forward<Value>(value));
    return pending_;
  }

  template <typename Value>
  bool place(Value&& value) {
    put(std::forward<Value>(value));
    return true;
  }

  bool open(nlohmann::json::value_t type) {
    if (open_.size() >= static_cast<std::size_t>(max_depth_)) {
      throw JsonTextError(JsonTextError::Kind::too_deep, "lists and objects are nested more than " +
                                                             std::to_string(max_depth_) + " deep");
    }
    // A child is the last item of its parent, which does not grow while the child is open:
    // the pointer stays valid.
    open_.push_back(Frame{put(type), {}});
    return true;
  }

  bool close() {
    open_.pop_back();
    return true;
  }

  int max_depth_;
  Json root_;
  std::vector<Frame> open_;
  Json* pending_ = nullptr;
};

}  // namespace

template <typename Json>
Json parse_json_text(std::string_view text, int max_depth) {
  if (const std::size_t nul = first_nul_byte(text); nul != std::string_view::npos) {
    throw JsonTextError(JsonTextError::Kind::nul_byte,
                        "a NUL byte at byte " + std::to_string(nul) +
                            ": JSON text has none (something was appended to the file, or it "
                            "is not text)");
  }
  DocumentBuilder<Json> builder(max_depth);
  // strict: only whitespace may follow the value.
  Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json,
                  /*strict=*/true);
  return builder.take();
}

template nlohmann::json parse_json_text<nlohmann::json>(std::string_view, int);
template nlohmann::ordered_json parse_json_text<nlohmann::ordered_json>(std::string_view, int);

}  // namespace memtopo
