#include "api/apiextensions/printer_columns.h"

#include <cmath>
#include <cstdio>

#include "apimachinery/json_write.h"
#include "registry/table.h"

namespace capstan::api::apiextensions {

namespace json = boost::json;

namespace {

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '/'; }

std::optional<json::value> ParseLiteral(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return json::value(json::string(s.substr(1, s.size() - 2)));
  }
  if (s == "true") return json::value(true);
  if (s == "false") return json::value(false);
  try {
    size_t pos = 0;
    std::string str(s);
    if (str.find('.') == std::string::npos) {
      long long n = std::stoll(str, &pos);
      if (pos == str.size()) return json::value(static_cast<int64_t>(n));
    } else {
      double d = std::stod(str, &pos);
      if (pos == str.size()) return json::value(d);
    }
  } catch (...) {
  }
  return std::nullopt;
}

bool LooseEqual(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) return a.to_number<double>() == b.to_number<double>();
  return a == b;
}

}  // namespace

std::optional<std::vector<JsonPathStep>> ParseSimpleJsonPath(std::string_view path) {
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') path = path.substr(1, path.size() - 2);
  std::vector<JsonPathStep> steps;
  size_t i = 0;
  if (path.empty() || path[0] != '.') return std::nullopt;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      size_t start = i;
      while (i < path.size()) {
        if (path[i] == '\\' && i + 1 < path.size()) {
          i += 2;
          continue;
        }
        if (!IsIdent(path[i])) break;
        ++i;
      }
      if (i == start) {
        if (i == path.size() && steps.empty()) return steps;  // "." alone: the object
        return std::nullopt;
      }
      std::string name;
      for (size_t k = start; k < i; ++k) {
        if (path[k] == '\\' && k + 1 < i) ++k;
        name.push_back(path[k]);
      }
      JsonPathStep s;
      s.field = std::move(name);
      steps.push_back(std::move(s));
    } else if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (path.compare(i, 3, "[?(") == 0) close = path.find(")]", i) == std::string_view::npos ? close : path.find(")]", i) + 1;
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inner = path.substr(i + 1, close - i - 1);
      i = close + 1;
      JsonPathStep s;
      if (inner == "*") {
        s.kind = JsonPathStep::Kind::kWildcard;
      } else if (inner.size() >= 2 && (inner.front() == '\'' || inner.front() == '"') && inner.back() == inner.front()) {
        s.field = std::string(inner.substr(1, inner.size() - 2));
      } else if (inner.size() > 3 && inner.substr(0, 2) == "?(" && inner.back() == ')') {
        std::string_view expr = inner.substr(2, inner.size() - 3);
        s.kind = JsonPathStep::Kind::kFilter;
        size_t op = expr.find("==");
        if (op == std::string_view::npos) op = expr.find("!=");
        std::string_view lhs = op == std::string_view::npos ? expr : expr.substr(0, op);
        while (!lhs.empty() && lhs.back() == ' ') lhs.remove_suffix(1);
        if (lhs.substr(0, 2) != "@.") return std::nullopt;
        lhs.remove_prefix(2);
        size_t a = 0;
        while (a <= lhs.size()) {
          size_t b = lhs.find('.', a);
          if (b == std::string_view::npos) b = lhs.size();
          s.filter_path.emplace_back(lhs.substr(a, b - a));
          a = b + 1;
        }
        if (op != std::string_view::npos) {
          s.op = std::string(expr.substr(op, 2));
          auto lit = ParseLiteral(expr.substr(op + 2));
          if (!lit) return std::nullopt;
          s.literal = std::move(*lit);
        }
      } else {
        try {
          size_t pos = 0;
          long long n = std::stoll(std::string(inner), &pos);
          if (pos != inner.size()) return std::nullopt;
          s.kind = JsonPathStep::Kind::kIndex;
          s.index = n;
        } catch (...) {
          return std::nullopt;
        }
      }
      steps.push_back(std::move(s));
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

std::vector<const json::value*> EvalJsonPath(const std::vector<JsonPathStep>& steps, const json::value& v) {
  std::vector<const json::value*> cur{&v};
  for (const auto& s : steps) {
    std::vector<const json::value*> next;
    for (const json::value* x : cur) {
      switch (s.kind) {
        case JsonPathStep::Kind::kField:
          if (x->is_object()) {
            if (const auto* f = x->get_object().if_contains(s.field)) next.push_back(f);
          }
          break;
        case JsonPathStep::Kind::kIndex:
          if (x->is_array()) {
            const auto& a = x->get_array();
            int64_t idx = s.index < 0 ? static_cast<int64_t>(a.size()) + s.index : s.index;
            if (idx >= 0 && idx < static_cast<int64_t>(a.size())) next.push_back(&a[idx]);
          }
          break;
        case JsonPathStep::Kind::kWildcard:
          if (x->is_array()) {
            for (const auto& e : x->get_array()) next.push_back(&e);
          } else if (x->is_object()) {
            for (const auto& [k, e] : x->get_object()) next.push_back(&e);
          }
          break;
        case JsonPathStep::Kind::kFilter:
          if (x->is_array()) {
            for (const auto& e : x->get_array()) {
              const json::value* f = &e;
              for (const auto& k : s.filter_path) {
                f = f && f->is_object() ? f->get_object().if_contains(k) : nullptr;
              }
              bool match = s.op.empty() ? f != nullptr
                           : s.op == "==" ? (f && LooseEqual(*f, s.literal))
                                          : (f && !LooseEqual(*f, s.literal));
              if (match) next.push_back(&e);
            }
          }
          break;
      }
    }
    cur = std::move(next);
  }
  return cur;
}

namespace {

// kube's default column of a version without additionalPrinterColumns.
PrinterColumn AgeColumn() {
  return {"Age", "date", "",
          "CreationTimestamp is a timestamp representing the server time when this object was created. It is "
          "not guaranteed to be set in happens-before order across separate operations. Clients may not set "
          "this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. "
          "Null for lists. More info: "
          "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
          ".metadata.creationTimestamp", 0};
}

}  // namespace

std::vector<PrinterColumn> ScalePrinterColumns() {
  return {{"Desired", "integer", "", "Number of desired replicas", ".spec.replicas", 0},
          {"Available", "integer", "", "Number of actual replicas", ".status.replicas", 0},
          AgeColumn()};
}

PrinterColumns::PrinterColumns(const std::vector<PrinterColumn>& columns) {
  headers_.push_back(registry::NameColumn());
  std::vector<PrinterColumn> cols = columns;
  if (cols.empty()) cols.push_back(AgeColumn());
  for (const auto& c : cols) {
    std::string desc = c.description.empty() ? "Custom resource definition column (in JSONPath format): " + c.json_path
                                             : c.description;
    headers_.push_back({c.name, c.type, c.format, desc, c.priority});
    paths_.push_back(ParseSimpleJsonPath(c.json_path));
  }
}

json::array PrinterColumns::Cells(const Object& obj) const {
  json::array cells;
  std::string name;
  if (const auto* md = obj.if_contains("metadata"); md && md->is_object()) {
    if (const auto* n = md->get_object().if_contains("name"); n && n->is_string()) name = std::string(n->get_string());
  }
  cells.emplace_back(name);
  json::value root(obj);
  for (size_t i = 0; i < paths_.size(); ++i) {
    const std::string& type = headers_[i + 1].type;
    if (!paths_[i]) {
      cells.emplace_back(nullptr);
      continue;
    }
    auto results = EvalJsonPath(*paths_[i], root);
    if (results.empty() || results[0]->is_null()) {
      cells.emplace_back(nullptr);
      continue;
    }
    const json::value& v = *results[0];
    if (type == "string") {
      if (v.is_string()) {
        cells.emplace_back(v.get_string());
      } else if (v.is_double()) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%g", v.get_double());
        cells.emplace_back(buf);
      } else {
        cells.emplace_back(apimachinery::ToJson(v));
      }
    } else if (type == "integer") {
      if (v.is_int64() || v.is_uint64()) {
        cells.emplace_back(v.to_number<int64_t>());
      } else if (v.is_double()) {
        cells.emplace_back(static_cast<int64_t>(v.get_double()));
      } else {
        cells.emplace_back(nullptr);
      }
    } else if (type == "number") {
      cells.emplace_back(v.is_number() ? json::value(v.to_number<double>()) : json::value(nullptr));
    } else if (type == "boolean") {
      cells.emplace_back(v.is_bool() ? v : json::value(nullptr));
    } else if (type == "date") {
      cells.emplace_back(v.is_string() ? json::value(registry::TranslateTimestampSince(v.get_string())) : json::value(nullptr));
    } else {
      cells.emplace_back(nullptr);
    }
  }
  return cells;
}

}  // namespace capstan::api::apiextensions
