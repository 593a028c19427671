// apimachinery/go_base64.h: where Go's base64.StdEncoding.Decode fails on a string, so that a bad
// []byte field (Secret data, ConfigMap binaryData, caBundle, certificates) is refused with the text
// kube's JSON decoder gives: "illegal base64 data at input byte N".
//
// Go's rules, not RFC 4648's: '\r' and '\n' are skipped anywhere, padding is required, bits after the
// last character need not be zero (StdEncoding is not Strict), and N is the offset Go's decoder
// reports (the bad byte, or the end of the input for a short last group). Pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace capstan::apimachinery {

// -1 when `in` decodes; else the offset Go's CorruptInputError carries.
int64_t GoBase64CorruptOffset(std::string_view in);

// "illegal base64 data at input byte N" (Go's CorruptInputError text).
std::string GoBase64ErrorText(int64_t offset);

}  // namespace capstan::apimachinery
