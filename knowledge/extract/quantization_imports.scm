; The names a file imports, with aliases, wherever the import sits: the 0.6.5
; to 0.8.4 resolver imports its config classes inside get_quantization_config.

; from .awq import AWQConfig / from vllm.models.x import (A as B)
(import_from_statement
  module_name: (_) @import.module
  name: [
    (dotted_name) @import.name
    (aliased_import
      name: (dotted_name) @import.name
      alias: (identifier) @import.alias)
  ])
