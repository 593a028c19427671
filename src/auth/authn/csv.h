// auth/authn/csv.h: the CSV dialect kube's credential files are read with (Go's encoding/csv with a
// variable number of fields): comma-separated fields, double-quoted fields that may hold commas,
// newlines and "" for a quote, blank lines skipped, CRLF accepted. Malformed quoting is an error in
// Go's words ("parse error on line 2, column 5: bare \" in non-quoted-field"). Pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::authn {

struct CsvRecord {
  int line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

StatusOr<std::vector<CsvRecord>> ParseCsv(std::string_view text);

}  // namespace capstan::authn
