; The --kv-cache-dtype choices. Only one file is queried per tag (see
; kv_cache.py for the order); the capture name says which layout matched.

; 0.8.5 on: CacheDType = Literal["auto", "fp8", ...] in vllm/config.py,
; then vllm/config/cache.py from 0.10.1.
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (subscript
        value: (identifier) @_literal) @dtypes.literal))
  (#eq? @_name "CacheDType")
  (#eq? @_literal "Literal"))

; 0.4.x to 0.8.4: parser.add_argument('--kv-cache-dtype', choices=[...]) in
; vllm/engine/arg_utils.py.
(call
  function: (attribute
    attribute: (identifier) @_method)
  arguments: (argument_list
    (string
      (string_content) @_flag)
    (keyword_argument
      name: (identifier) @_keyword
      value: [(list) (tuple)] @dtypes.choices))
  (#eq? @_method "add_argument")
  (#eq? @_flag "--kv-cache-dtype")
  (#eq? @_keyword "choices"))

; 0.33 on: def register_kv_cache_dtype(name) lets platform plugins add dtypes
; at run time, so the literal list is a floor, not the whole set.
(module
  [
    (function_definition
      name: (identifier) @register)
    (decorated_definition
      definition: (function_definition
        name: (identifier) @register))
  ]
  (#eq? @register "register_kv_cache_dtype"))
