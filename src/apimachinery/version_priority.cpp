#include "apimachinery/version_priority.h"

#include <cstdint>

namespace capstan::apimachinery {

namespace {

struct KubeVersion {
  bool ok = false;
  int64_t major = 0;
  int type = 0;  // 2 GA, 1 beta, 0 alpha: the bigger, the higher the priority
  int64_t minor = 0;
};

// Reads the digits at v[i...] as Go's strconv.Atoi would (leading zeros allowed, no overflow).
bool Digits(std::string_view v, size_t& i, int64_t& out) {
  size_t start = i;
  out = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
    int d = v[i] - '0';
    if (out > (INT64_MAX - d) / 10) return false;
    out = out * 10 + d;
    ++i;
  }
  return i > start;
}

// kube's ^v(\d+)(?:(alpha|beta)(\d+))?$
KubeVersion Parse(std::string_view v) {
  KubeVersion out;
  if (v.empty() || v[0] != 'v') return out;
  size_t i = 1;
  if (!Digits(v, i, out.major)) return out;
  if (i == v.size()) {
    out.type = 2;
    out.ok = true;
    return out;
  }
  std::string_view rest = v.substr(i);
  if (rest.starts_with("alpha")) {
    out.type = 0;
    i += 5;
  } else if (rest.starts_with("beta")) {
    out.type = 1;
    i += 4;
  } else {
    return out;
  }
  if (!Digits(v, i, out.minor) || i != v.size()) return out;
  out.ok = true;
  return out;
}

int Sign(int d) { return d > 0 ? 1 : (d < 0 ? -1 : 0); }

}  // namespace

int CompareKubeAwareVersionStrings(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  KubeVersion va = Parse(a), vb = Parse(b);
  if (!va.ok && !vb.ok) return Sign(b.compare(a));
  if (!va.ok) return -1;
  if (!vb.ok) return 1;
  if (va.type != vb.type) return va.type - vb.type;
  if (va.major != vb.major) return va.major > vb.major ? 1 : -1;
  if (va.minor != vb.minor) return va.minor > vb.minor ? 1 : -1;
  return 0;
}

}  // namespace capstan::apimachinery
