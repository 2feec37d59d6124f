; Where a config class comes from: the names a file imports (with aliases),
; the classes it defines, and a class's own get_min_capability.

; from .awq import AWQConfig / from vllm.models.x import (A as B)
(import_from_statement
  module_name: (_) @import.module
  name: [
    (dotted_name) @import.name
    (aliased_import
      name: (dotted_name) @import.name
      alias: (identifier) @import.alias)
  ])

(module
  (class_definition
    name: (identifier) @class.name) @class)

; get_min_capability as a plain method or under @classmethod
(class_definition
  body: (block
    [
      (function_definition
        name: (identifier) @_method
        body: (block) @min_capability.body)
      (decorated_definition
        definition: (function_definition
          name: (identifier) @_method
          body: (block) @min_capability.body))
    ])
  (#eq? @_method "get_min_capability")) @min_capability.class
