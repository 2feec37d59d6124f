; Module-level definitions and imports the `vllm serve` flag walker resolves names through.
; Every pattern is rooted at `module`, so the cursor runs with max start depth 0 and never
; walks function bodies. Capture names say what each node is; cli_flags_modules.py dispatches on them.

(module (class_definition name: (identifier) @class.name) @class.definition)
(module (decorated_definition definition: (class_definition name: (identifier) @class.name) @class.definition))

(module (function_definition name: (identifier) @function.name) @function.definition)
(module (decorated_definition definition: (function_definition name: (identifier) @function.name) @function.definition))

; `from x import a, b as c`, at module level or under `if TYPE_CHECKING:` / try.
(module (import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name))
(module (import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)))
(module (if_statement consequence: (block (import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name))))
(module (try_statement body: (block (import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name))))
