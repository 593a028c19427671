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

void LogAt(LogLevel level, std::string_view msg, LogFields fields);
inline void LogDebug(std::string_view msg, LogFields f = {}) { LogAt(LogLevel::kDebug, msg, f); }
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
bool LogV(int level);

// Formats one log line (exposed for tests).
std::string FormatLogLine(LogLevel level, std::string_view msg, LogFields fields);

}  // namespace capstan
