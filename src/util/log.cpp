#include "util/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace capstan {
namespace {
std::atomic<int> verbosity{0};
std::mutex write_mu;

void AppendQuoted(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}
}  // namespace

void SetLogVerbosity(int v) { verbosity.store(v, std::memory_order_relaxed); }
int LogVerbosity() { return verbosity.load(std::memory_order_relaxed); }
bool LogV(int level) { return LogVerbosity() >= level; }

std::string FormatLogLine(LogLevel level, std::string_view msg, LogFields fields) {
  static const char kLetters[] = {'D', 'I', 'W', 'E'};
  char letter = kLetters[static_cast<int>(level)];
  if (letter == 'D') letter = 'I';  // klog has no debug letter; debug is verbose info
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  localtime_r(&tv.tv_sec, &tm);
  char head[64];
  std::snprintf(head, sizeof head, "%c%02d%02d %02d:%02d:%02d.%06ld %7d capstan] ", letter,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long>(tv.tv_usec), static_cast<int>(getpid()));
  std::string line = head;
  AppendQuoted(line, msg);
  for (const auto& f : fields) {
    line.push_back(' ');
    line += f.key;
    line.push_back('=');
    if (f.quoted) {
      AppendQuoted(line, f.value);
    } else {
      line += f.value;
    }
  }
  line.push_back('\n');
  return line;
}

void LogAt(LogLevel level, std::string_view msg, LogFields fields) {
  if (level == LogLevel::kDebug && !LogV(4)) return;
  std::string line = FormatLogLine(level, msg, fields);
  std::lock_guard lock(write_mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace capstan
