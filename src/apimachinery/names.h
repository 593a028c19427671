// apimachinery/names.h: server-generated identifiers: object UIDs and generateName suffixes.
//
// NewUid is a random (version 4) UUID in its lowercase 8-4-4-4-12 form, as kube's uuid.NewUUID. Names
// for generateName are kube's SimpleNameGenerator: the prefix cut to 58 bytes plus 5 characters from
// kube's alphabet "bcdfghjklmnpqrstvwxz2456789" (no vowels, no confusable digits). Randomness comes
// from OpenSSL's RAND_bytes. Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace capstan::apimachinery {

inline constexpr size_t kMaxGeneratedNameLength = 58;  // 63 - 5
inline constexpr std::string_view kNameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string NewUid();
// n random characters from kNameSuffixAlphabet (kube's utilrand.String).
std::string RandomNameSuffix(size_t n = 5);
// kube's SimpleNameGenerator.GenerateName(base).
std::string GenerateName(std::string_view base);

}  // namespace capstan::apimachinery
