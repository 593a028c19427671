// apimachinery/status.h: Status and StatusOr<T>, the error values every layer returns.
//
// A failed Status carries what a metav1.Status says to a client: the HTTP code, the reason
// (NotFound, AlreadyExists, Conflict, Invalid, ...), the message and the details (name, group, kind,
// per-field causes, retry-after). Storage sets a StorageCode instead and leaves the client-facing parts
// to the registry, which translates it once (adding group, resource and name). Values, not exceptions:
// they cross co_await and thread hops without surprises. Thread-compatible (plain values).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace capstan {

// Storage-level failure kinds (kube's storage.Error codes plus backend conditions).
enum class StorageCode {
  kNone,
  kKeyNotFound,
  kKeyExists,
  kConflict,         // a compare failed (resourceVersion precondition)
  kCompacted,        // the requested revision was compacted
  kFutureRevision,   // the requested revision is newer than the store's
  kUnavailable,      // the backend cannot be reached or is shutting down
  kQuotaExceeded,    // database space exceeded
  kInvalidArgument,  // a malformed request to the store
  kInternal,         // corruption, I/O errors
  kTooLarge,         // value over the store's size limit
};

struct StatusCause {
  std::string type;     // metav1.CauseType: FieldValueRequired, FieldValueInvalid, ...
  std::string message;
  std::string field;
  bool operator==(const StatusCause&) const = default;
};

struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
  bool empty() const {
    return name.empty() && group.empty() && kind.empty() && uid.empty() && causes.empty() &&
           retry_after_seconds == 0;
  }
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(int code, std::string reason, std::string message)
      : code_(code), reason_(std::move(reason)), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status Storage(StorageCode sc, std::string message, int64_t revision = 0) {
    Status s(500, "InternalError", std::move(message));
    s.storage_code_ = sc;
    s.revision_ = revision;
    return s;
  }

  bool ok() const { return code_ == 0; }
  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const std::string& message() const { return message_; }
  const StatusDetails& details() const { return details_; }
  StatusDetails& mutable_details() {
    details_present_ = true;
    return details_;
  }
  // Whether a metav1.Status would carry a details object (kube sets an empty one for some errors,
  // e.g. NewTooManyRequests with no retry-after, and none for others, e.g. NewBadRequest).
  bool has_details() const { return details_present_ || !details_.empty(); }
  StorageCode storage_code() const { return storage_code_; }
  // For kCompacted: the compact revision; for kConflict: the current mod revision, when known.
  int64_t revision() const { return revision_; }

  Status& WithDetails(StatusDetails d) {
    details_ = std::move(d);
    details_present_ = true;
    return *this;
  }
  Status& WithMessage(std::string m) {
    message_ = std::move(m);
    return *this;
  }
  Status& WithStorageCode(StorageCode c) {
    storage_code_ = c;
    return *this;
  }
  // The Status's ListMeta continue (kube's 410 for an expired continue token carries a fresh one).
  const std::string& list_continue() const { return list_continue_; }
  Status& WithListContinue(std::string token) {
    list_continue_ = std::move(token);
    return *this;
  }

  bool IsStorage(StorageCode c) const { return storage_code_ == c; }
  std::string ToString() const;

 private:
  int code_ = 0;
  std::string reason_;
  std::string message_;
  StatusDetails details_;
  bool details_present_ = false;
  StorageCode storage_code_ = StorageCode::kNone;
  int64_t revision_ = 0;
  std::string list_continue_;
};

template <class T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status s) : v_(std::move(s)) {}  // NOLINT: implicit by design
  StatusOr(T v) : v_(std::move(v)) {}       // NOLINT: implicit by design
  template <class U>
    requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, Status> &&
             !std::is_same_v<std::decay_t<U>, StatusOr>)
  StatusOr(U&& u) : v_(T(std::forward<U>(u))) {}  // NOLINT

  bool ok() const { return v_.index() == 1; }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<0>(v_);
  }
  Status TakeStatus() { return ok() ? Status() : std::move(std::get<0>(v_)); }
  T& value() & { return std::get<1>(v_); }
  const T& value() const& { return std::get<1>(v_); }
  T&& value() && { return std::get<1>(std::move(v_)); }
  T* operator->() { return &std::get<1>(v_); }
  const T* operator->() const { return &std::get<1>(v_); }
  T& operator*() & { return std::get<1>(v_); }
  const T& operator*() const& { return std::get<1>(v_); }
  T&& operator*() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<Status, T> v_;
};

// Early-return helpers.
#define CAPSTAN_CONCAT_INNER(a, b) a##b
#define CAPSTAN_CONCAT(a, b) CAPSTAN_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)              \
  do {                                     \
    ::capstan::Status _st = (expr);        \
    if (!_st.ok()) return _st;             \
  } while (0)

#define CO_RETURN_IF_ERROR(expr)           \
  do {                                     \
    ::capstan::Status _st = (expr);        \
    if (!_st.ok()) co_return _st;          \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.TakeStatus();     \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(CAPSTAN_CONCAT(_so_, __LINE__), lhs, expr)

#define CO_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) co_return tmp.TakeStatus();     \
  lhs = std::move(tmp).value()

#define CO_ASSIGN_OR_RETURN(lhs, expr) CO_ASSIGN_OR_RETURN_IMPL(CAPSTAN_CONCAT(_so_, __LINE__), lhs, expr)

}  // namespace capstan
