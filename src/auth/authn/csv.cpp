#include "auth/authn/csv.h"

namespace capstan::authn {

namespace {

Status CsvError(int start_line, int line, int column, const char* what) {
  std::string msg;
  if (start_line != line) msg = "record on line " + std::to_string(start_line) + "; ";
  msg += "parse error on line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
  return Status(400, "BadRequest", msg);
}

}  // namespace

StatusOr<std::vector<CsvRecord>> ParseCsv(std::string_view text) {
  std::vector<CsvRecord> out;
  size_t i = 0;
  int line = 1;
  const size_t n = text.size();
  auto at_eol = [&](size_t k) { return k >= n || text[k] == '\n' || (text[k] == '\r' && k + 1 < n && text[k + 1] == '\n'); };
  auto skip_eol = [&](size_t& k) {
    if (k < n && text[k] == '\r') ++k;
    if (k < n && text[k] == '\n') ++k;
  };
  while (i < n) {
    // Blank lines are skipped.
    if (at_eol(i)) {
      skip_eol(i);
      ++line;
      continue;
    }
    CsvRecord rec;
    rec.line = line;
    size_t line_start = i;
    for (;;) {
      std::string field;
      if (i < n && text[i] == '"') {
        ++i;
        for (;;) {
          if (i >= n) return CsvError(rec.line, line, static_cast<int>(i - line_start) + 1, "extraneous or missing \" in quoted-field");
          char c = text[i];
          if (c == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              field.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            if (i < n && text[i] != ',' && !at_eol(i)) {
              return CsvError(rec.line, line, static_cast<int>(i - line_start) + 1, "extraneous or missing \" in quoted-field");
            }
            break;
          }
          if (c == '\r' && i + 1 < n && text[i + 1] == '\n') {
            field.push_back('\n');
            i += 2;
            ++line;
            line_start = i;
            continue;
          }
          if (c == '\n') {
            ++line;
            line_start = i + 1;
          }
          field.push_back(c);
          ++i;
        }
      } else {
        while (i < n && text[i] != ',' && !at_eol(i)) {
          if (text[i] == '"') return CsvError(rec.line, line, static_cast<int>(i - line_start) + 1, "bare \" in non-quoted-field");
          field.push_back(text[i]);
          ++i;
        }
      }
      rec.fields.push_back(std::move(field));
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    skip_eol(i);
    ++line;
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace capstan::authn
