#include "apimachinery/merge_patch.h"

#include <string>
#include <vector>

#include "apimachinery/errors.h"
#include "apimachinery/patch_common.h"

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

// Array elements that are null stay; objects inside lose their null members.
void PruneNulls(json::value& v) {
  if (v.is_object()) {
    json::object& o = v.get_object();
    std::vector<std::string> remove;
    for (auto& kv : o) {
      if (kv.value().is_null()) {
        remove.emplace_back(kv.key());
      } else {
        PruneNulls(kv.value());
      }
    }
    for (const auto& k : remove) o.erase(k);
  } else if (v.is_array()) {
    for (auto& e : v.get_array()) {
      if (!e.is_null()) PruneNulls(e);
    }
  }
}

void MergeObjects(json::object& doc, json::object& patch);

// evanphx's merge(cur, patch): cur is present and not null.
void Merge(json::value& cur, json::value& patch) {
  if (!cur.is_object()) {
    PruneNulls(patch);
    cur = std::move(patch);
  } else if (!patch.is_object()) {
    cur = std::move(patch);
  } else {
    MergeObjects(cur.get_object(), patch.get_object());
  }
}

void MergeObjects(json::object& doc, json::object& patch) {
  for (auto& kv : patch) {
    if (kv.value().is_null()) {
      doc.erase(kv.key());
      continue;
    }
    json::value* cur = doc.if_contains(kv.key());
    if (cur == nullptr || cur->is_null()) {
      PruneNulls(kv.value());
      doc[kv.key()] = std::move(kv.value());
    } else {
      Merge(*cur, kv.value());
    }
  }
}

}  // namespace

StatusOr<json::value> MergePatchValues(json::value doc, json::value patch) {
  if (!patch.is_array() && !patch.is_object()) return NewBadRequest("Invalid JSON Patch");
  if (JsonDepth(patch) > kMaxPatchNesting) return PatchUnprocessable();
  if (patch.is_array() || !doc.is_object()) {
    PruneNulls(patch);
    return patch;
  }
  MergeObjects(doc.get_object(), patch.get_object());
  return doc;
}

StatusOr<json::value> ApplyMergePatch(const json::value& doc, std::string_view patch_body) {
  ASSIGN_OR_RETURN(json::value patch, ParsePatchBody(patch_body));
  return MergePatchValues(doc, std::move(patch));
}

}  // namespace capstan::apimachinery
