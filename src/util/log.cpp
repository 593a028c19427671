#include "util/log.h"

#include <fnmatch.h>

#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace capstan {
namespace {
std::atomic<int> verbosity{0};
std::atomic<LogFormat> format{LogFormat::kText};
std::mutex write_mu;

// A quoted string: klog's text form writes control characters as \xNN, the JSON form as \u00NN
// (encoding/json's).
void AppendQuoted(std::string& out, std::string_view s, bool json = false) {
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
          std::snprintf(buf, sizeof buf, json ? "\\u%04x" : "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void AppendJsonString(std::string& out, std::string_view s) { AppendQuoted(out, s, true); }

std::string FormatJsonLine(LogLevel level, std::string_view msg, LogFields fields) {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  char ts[48];
  std::snprintf(ts, sizeof ts, "%ld.%06ld", static_cast<long>(tv.tv_sec), static_cast<long>(tv.tv_usec));
  std::string line = "{\"ts\":";
  line += ts;
  line += ",\"caller\":\"capstan\",\"msg\":";
  AppendJsonString(line, msg);
  if (level != LogLevel::kError) line += level == LogLevel::kDebug ? ",\"v\":4" : ",\"v\":0";
  for (const auto& f : fields) {
    line.push_back(',');
    AppendJsonString(line, f.key);
    line.push_back(':');
    if (f.quoted) {
      AppendJsonString(line, f.value);
    } else {
      line += f.value;
    }
  }
  line += "}\n";
  return line;
}

}  // namespace

void SetLogFormat(LogFormat f) { format.store(f, std::memory_order_relaxed); }
void SetLogVerbosity(int v) { verbosity.store(v, std::memory_order_relaxed); }
int LogVerbosity() { return verbosity.load(std::memory_order_relaxed); }
namespace {
std::mutex vmodule_mu;
std::vector<std::pair<std::string, int>> vmodule;  // GUARDED_BY(vmodule_mu)
std::atomic<bool> vmodule_set{false};
}  // namespace

void SetLogVmodule(std::vector<std::pair<std::string, int>> patterns) {
  std::lock_guard lock(vmodule_mu);
  vmodule = std::move(patterns);
  vmodule_set.store(!vmodule.empty(), std::memory_order_release);
}

int VmoduleLevel(std::string_view file) {
  if (!vmodule_set.load(std::memory_order_acquire)) return -1;
  if (size_t slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  if (size_t dot = file.rfind('.'); dot != std::string_view::npos && dot > 0) file = file.substr(0, dot);
  const std::string base(file);
  std::lock_guard lock(vmodule_mu);
  for (const auto& [pattern, level] : vmodule) {
    // FNM_PATHNAME: '*' does not cross '/', as in Go's filepath.Match.
    if (::fnmatch(pattern.c_str(), base.c_str(), FNM_PATHNAME) == 0) return level;
  }
  return -1;
}

bool LogV(int level, const char* file) {
  if (LogVerbosity() >= level) return true;
  return file && VmoduleLevel(file) >= level;
}

std::string FormatLogLine(LogLevel level, std::string_view msg, LogFields fields) {
  if (format.load(std::memory_order_relaxed) == LogFormat::kJson) return FormatJsonLine(level, msg, fields);
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

void LogAt(LogLevel level, std::string_view msg, LogFields fields, const char* file) {
  if (level == LogLevel::kDebug && LogVerbosity() < 4 && (!file || VmoduleLevel(file) < 4)) return;
  std::string line = FormatLogLine(level, msg, fields);
  std::lock_guard lock(write_mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace capstan
