// Fuzzes the selector and scalar-format parsers: any input gives a value or a Status, and canonical
// selector strings are fixed points of parse-then-print.
#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/fields.h"
#include "apimachinery/labels.h"
#include "apimachinery/quantity.h"
#include "apimachinery/time_util.h"

using namespace capstan::apimachinery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto l = ParseLabelSelector(in); l.ok()) {
    std::string s = l->String();
    auto again = ParseLabelSelector(s);
    if (!again.ok() || again->String() != s) __builtin_trap();
    (void)l->Matches(StringPairs{{"app", "web"}, {"rev", "3"}});
  }
  if (auto f = ParseFieldSelector(in); f.ok()) {
    // kube sorts the raw terms before normalizing them, so the first print may reorder once;
    // from then on the canonical string is a fixed point.
    auto once = ParseFieldSelector(f->String());
    if (!once.ok()) __builtin_trap();
    std::string s = once->String();
    auto again = ParseFieldSelector(s);
    if (!again.ok() || again->String() != s) __builtin_trap();
    (void)f->Matches(FieldSet{{"metadata.name", "x"}});
  }
  if (auto q = ParseQuantity(in); q.ok()) {
    // kube prints DecimalSI values from 1e21 on without a suffix (its suffix table ends at E), so
    // only smaller magnitudes must read back equal.
    static const Quantity kLimit = *ParseQuantity("1e21");
    static const Quantity kNegLimit = *ParseQuantity("-1e21");
    std::string s = q->CanonicalString();
    auto again = ParseQuantity(s);
    if (!again.ok()) __builtin_trap();
    if (q->Cmp(kLimit) < 0 && q->Cmp(kNegLimit) > 0 && again->Cmp(*q) != 0) __builtin_trap();
    (void)q->MilliValue();
  }
  if (auto t = ParseRfc3339(in); t.ok()) (void)FormatRfc3339(*t);
  if (auto t = ParseRfc3339Micro(in); t.ok()) (void)FormatRfc3339Micro(*t);
  return 0;
}
