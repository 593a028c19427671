// util/log.h: structured logging to stderr in klog's line format.
//
//   I1129 14:41:22.123456   12345 capstan] "watch closed" resource="configmaps" reason="timeout"
//
// Levels: error (an operator must act), warn (degraded), info (lifecycle), debug (per request, shown
// with -v 4 and above). Never log tokens, keys, Secret data or request bodies. Thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capstan {

struct LogField {
  LogField(std::string_view k, std::string_view v) : key(k), value(v) {}
  LogField(std::string_view k, const std::string& v) : key(k), value(v) {}
  LogField(std::string_view k, const char* v) : key(k), value(v ? v : "") {}
  LogField(std::string_view k, int64_t v) : key(k), value(std::to_string(v)), quoted(false) {}
  LogField(std::string_view k, int v) : key(k), value(std::to_string(v)), quoted(false) {}
  LogField(std::string_view k, uint64_t v) : key(k), value(std::to_string(v)), quoted(false) {}
  LogField(std::string_view k, double v) : key(k), value(std::to_string(v)), quoted(false) {}
  LogField(std::string_view k, bool v) : key(k), value(v ? "true" : "false"), quoted(false) {}
  std::string key;
  std::string value;
  bool quoted = true;
};

enum class LogLevel { kDebug, kInfo, kWarn, kError };

using LogFields = std::initializer_list<LogField>;

// `file`: the source file of the call (for --vmodule); null: none.
void LogAt(LogLevel level, std::string_view msg, LogFields fields, const char* file = nullptr);
// (__builtin_FILE: the calling file; the compilers Capstan builds with lack std::source_location.)
inline void LogDebug(std::string_view msg, LogFields f = {}, const char* file = __builtin_FILE()) {
  LogAt(LogLevel::kDebug, msg, f, file);
}
inline void LogInfo(std::string_view msg, LogFields f = {}) { LogAt(LogLevel::kInfo, msg, f); }
inline void LogWarn(std::string_view msg, LogFields f = {}) { LogAt(LogLevel::kWarn, msg, f); }
inline void LogError(std::string_view msg, LogFields f = {}) { LogAt(LogLevel::kError, msg, f); }

// --logging-format: klog's text lines (above) or component-base's JSON lines, one object per line:
//   {"ts":1733112000.123456,"caller":"capstan","msg":"watch closed","v":0,"resource":"configmaps"}
// ("v" is the line's verbosity: 0 for info and warnings, 4 for debug; error lines have none).
enum class LogFormat { kText, kJson };
void SetLogFormat(LogFormat f);

// -v: klog verbosity. Debug lines are written at verbosity >= 4.
void SetLogVerbosity(int v);
int LogVerbosity();
// Whether a line of `level` from the calling file is written: -v, else the first --vmodule pattern
// that matches the file (klog's rule).
bool LogV(int level, const char* file = __builtin_FILE());

// --vmodule: (pattern, level) pairs, in order. A pattern is matched as klog matches it (Go's
// filepath.Match: *, ? and [...]) against the calling source file's base name without its extension
// ("handlers_read" for src/endpoints/handlers_read.cpp); the first match gives the file's verbosity.
void SetLogVmodule(std::vector<std::pair<std::string, int>> patterns);
// The verbosity --vmodule gives `file` (a source path), -1 when no pattern matches.
int VmoduleLevel(std::string_view file);

// Formats one log line (exposed for tests).
std::string FormatLogLine(LogLevel level, std::string_view msg, LogFields fields);

}  // namespace capstan
