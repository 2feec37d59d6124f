; Inside get_quantization_config: the table from method name to config class,
; and loops that register further names under one class (online shorthands).

; method_to_config: dict[str, type[QuantizationConfig]] = {"awq": AWQConfig, ...}
(assignment
  left: (identifier) @_table
  right: (dictionary) @table
  (#eq? @_table "method_to_config"))

; for scheme in OnlineQuantScheme: method_to_config[scheme.value] = OnlineQuantizationConfig
(for_statement
  body: (block
    (expression_statement
      (assignment
        left: (subscript
          value: (identifier) @_table)
        right: (identifier) @loop.class)))
  (#eq? @_table "method_to_config"))

; for shorthand in _ONLINE_SHORTHANDS: method_to_config.setdefault(shorthand, OnlineQuantizationConfig)
(for_statement
  body: (block
    (expression_statement
      (call
        function: (attribute
          object: (identifier) @_table
          attribute: (identifier) @_method)
        arguments: (argument_list
          (_)
          .
          (identifier) @loop.class))))
  (#eq? @_table "method_to_config")
  (#eq? @_method "setdefault"))

; deepseek_config = DeepseekV4FP8Config: a local name the table refers to.
(assignment
  left: (identifier) @local.name
  right: (identifier) @local.value)
