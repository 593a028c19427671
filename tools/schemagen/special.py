"""Go types whose JSON form is not the walk of their struct fields (they marshal themselves), and
types whose protobuf message differs from their JSON shape. The Go declarations say how these types
are laid out, not how they serialize, so their JSON schema and their protobuf mapping kind are
stated here; docs/schema-format.md describes each kind. The generator refuses to run when a loaded
API type has its own MarshalJSON/UnmarshalJSON or OpenAPI schema methods and no entry here, so a
new one cannot slip through unnoticed.
"""

META = "k8s.io/apimachinery/pkg/apis/meta/v1"
RUNTIME = "k8s.io/apimachinery/pkg/runtime"
RESOURCE = "k8s.io/apimachinery/pkg/api/resource"
INTSTR = "k8s.io/apimachinery/pkg/util/intstr"
APIEXT = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

PRESERVE = "x-kubernetes-preserve-unknown-fields"
INT_OR_STRING = "x-kubernetes-int-or-string"

# (import path, type name) -> {"schema": JSON schema of the definition (None: walk the struct
# fields as for any struct), "proto": the value of the definition's x-proto-message "kind"}.
SPECIAL = {
    (META, "Time"): {"schema": {"type": "string", "format": "date-time"},
                     "proto": "timestamp", "precision": "second"},
    (META, "MicroTime"): {"schema": {"type": "string", "format": "date-time"},
                          "proto": "timestamp", "precision": "microsecond"},
    (META, "Duration"): {"schema": {"type": "string"}, "proto": "duration"},
    (META, "FieldsV1"): {"schema": {"type": "object", PRESERVE: True}, "proto": "raw-json"},
    # Not used by any API field; its JSON form is the string "group/version".
    (META, "GroupVersion"): {"schema": {"type": "string"}, "proto": "group-version"},
    (RESOURCE, "Quantity"): {"schema": {INT_OR_STRING: True}, "proto": "quantity"},
    (INTSTR, "IntOrString"): {"schema": {INT_OR_STRING: True}, "proto": "int-or-string"},
    (RUNTIME, "RawExtension"): {"schema": {"type": "object", PRESERVE: True}, "proto": "raw-extension"},
    (RUNTIME, "Unknown"): {"schema": None, "proto": "unknown"},
    (APIEXT, "JSON"): {"schema": {PRESERVE: True}, "proto": "raw-json"},
    (APIEXT, "JSONSchemaPropsOrArray"): {"schema": {PRESERVE: True}, "proto": "schema-or-array"},
    (APIEXT, "JSONSchemaPropsOrBool"): {"schema": {PRESERVE: True}, "proto": "schema-or-bool"},
    (APIEXT, "JSONSchemaPropsOrStringArray"): {"schema": {PRESERVE: True},
                                               "proto": "schema-or-string-array"},
}

# Methods that mean "this type decides its own JSON or OpenAPI form".
CUSTOM_METHODS = {"MarshalJSON", "UnmarshalJSON", "OpenAPISchemaType", "OpenAPIDefinition",
                  "OpenAPIV3Definition"}

# Go types from packages that are not loaded, as protobuf scalar types.
EXTERNAL_PROTO = {("time", "Duration"): "int64"}
