// api/apiextensions/printer_columns.h: a custom resource's Table columns (kube's CRD table
// convertor): Name, then the version's additionalPrinterColumns (or kube's default Age column when it
// has none), each cell the first result of the column's JSONPath over the object, typed as the
// column says (integer, number, boolean, string, date shown as an age), null when the path finds
// nothing.
//
// The JSONPath subset is what CRDs use in practice: fields (.a.b, ['a.b']), indexes ([0], [-1]), [*]
// and filters comparing a field with a literal ([?(@.type=="Ready")]). Immutable after construction;
// thread-safe.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/apiextensions/crd_types.h"
#include "registry/rest.h"

namespace capstan::api::apiextensions {

struct JsonPathStep {
  enum class Kind { kField, kIndex, kWildcard, kFilter } kind = Kind::kField;
  std::string field;
  int64_t index = 0;
  // Filter: @.<filter_path> <op> <literal> (op "==" or "!="; empty op: the field exists).
  std::vector<std::string> filter_path;
  std::string op;
  boost::json::value literal;
};

// Parses a simple JSONPath (".spec.x", optionally wrapped in {}); nullopt when it is not one.
std::optional<std::vector<JsonPathStep>> ParseSimpleJsonPath(std::string_view path);
// Every value the path reaches in `v`.
std::vector<const boost::json::value*> EvalJsonPath(const std::vector<JsonPathStep>& steps, const boost::json::value& v);

// The columns of a custom resource's Scale (kube's getScaleColumnsForVersion: the scale subresource
// always has both replicas paths), read off the Scale object.
std::vector<PrinterColumn> ScalePrinterColumns();

class PrinterColumns {
 public:
  explicit PrinterColumns(const std::vector<PrinterColumn>& columns);
  std::vector<registry::TableColumn> Columns() const { return headers_; }
  boost::json::array Cells(const Object& obj) const;

 private:
  std::vector<registry::TableColumn> headers_;
  std::vector<std::optional<std::vector<JsonPathStep>>> paths_;
};

}  // namespace capstan::api::apiextensions
