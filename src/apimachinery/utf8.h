// apimachinery/utf8.h: UTF-8 helpers with Go's decoding rules (unicode/utf8.DecodeRune).
//
// Go treats overlong forms, surrogate code points (ED A0..BF xx) and values past U+10FFFF as invalid,
// one byte at a time; kube's JSON decoder and encoder replace each such byte with U+FFFD. Pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace capstan::apimachinery {

// Length (1-4) of the valid UTF-8 sequence at the start of s, or 0 when s is empty or starts with
// an invalid sequence.
size_t Utf8SequenceLength(std::string_view s);

// Decodes the sequence at the start of s; returns U+FFFD with len 1 when invalid (Go's RuneError).
uint32_t DecodeUtf8(std::string_view s, size_t& len);

void AppendUtf8(std::string& out, uint32_t cp);

bool IsValidUtf8(std::string_view s);

}  // namespace capstan::apimachinery
