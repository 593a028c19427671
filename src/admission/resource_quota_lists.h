// admission/resource_quota_lists.h: resource lists as quota handles them (kube's corev1.ResourceList
// with the helpers of apiserver's quota/v1 package): a map from resource name to Quantity, with
// Add (values found on one side only are copied, keeping their text), SubtractNonNegative, Mask,
// LessThanOrEqual (names where a exceeds b), Equals, RemoveZeros, IsNegative, and kube's printing
// ("cpu=2,memory=1Gi", keys sorted). Lists read from JSON skip values that are not quantities.
// Pure functions over values; thread-compatible.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <string>
#include <vector>

#include "apimachinery/quantity.h"

namespace capstan::admission::quota {

using Quantity = apimachinery::Quantity;
using ResourceList = std::map<std::string, Quantity>;

ResourceList ResourceListFromJson(const boost::json::value* v);
boost::json::object ResourceListToJson(const ResourceList& l);

ResourceList Add(const ResourceList& a, const ResourceList& b);
// a - b per key; results below zero become 0; keys only in b are 0.
ResourceList SubtractNonNegative(const ResourceList& a, const ResourceList& b);
ResourceList Mask(const ResourceList& l, const std::vector<std::string>& names);
// Whether every key of b found in a is <= b's value; `exceeded` gets the keys that are not.
bool LessThanOrEqual(const ResourceList& a, const ResourceList& b, std::vector<std::string>* exceeded);
bool Equals(const ResourceList& a, const ResourceList& b);
ResourceList RemoveZeros(const ResourceList& l);
std::vector<std::string> IsNegative(const ResourceList& l);
std::vector<std::string> Names(const ResourceList& l);
// Sorted, duplicates removed: the names in a that are also in b.
std::vector<std::string> Intersection(const std::vector<std::string>& a, const std::vector<std::string>& b);

// kube's prettyPrint ("cpu=2,memory=1Gi") and prettyPrintResourceNames ("cpu,memory").
std::string PrettyPrint(const ResourceList& l);
std::string PrettyPrintNames(std::vector<std::string> names);

}  // namespace capstan::admission::quota
