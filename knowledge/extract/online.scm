; Online quantization in vllm/config/quantization.py (0.20 on). Each match
; captures one name; the capture name says whether it is a --quantization
; shorthand or a key of --quantization-config.

; 0.22 on: _ONLINE_SHORTHANDS = {"fp8_per_tensor": QuantizationConfigArgs(...), ...}
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (dictionary
        (pair
          key: (string) @shorthand))))
  (#eq? @_name "_ONLINE_SHORTHANDS"))

; 0.20 to 0.21: class OnlineQuantScheme(Enum): FP8_PER_TENSOR = "fp8_per_tensor"
(module
  (class_definition
    name: (identifier) @_class
    body: (block
      (expression_statement
        (assignment
          left: (identifier)
          right: (string) @shorthand))))
  (#match? @_class "QuantScheme$"))

; The fields of the --quantization-config dataclass: OnlineQuantizationConfigArgs
; (0.20 to 0.21), QuantizationConfigArgs (0.22 on); decorated with @config.
(module
  [
    (class_definition
      name: (identifier) @_class
      body: (block
        (expression_statement
          (assignment
            left: (identifier) @config_key.field
            type: (type)))))
    (decorated_definition
      definition: (class_definition
        name: (identifier) @_class
        body: (block
          (expression_statement
            (assignment
              left: (identifier) @config_key.field
              type: (type))))))
  ]
  (#match? @_class "^(Online)?QuantizationConfigArgs$"))

; 0.22 on: QUANT_KEY_NAMES = {"fp8_per_token": kFp8DynamicTokenSym, ...}, the
; names a `weight` or `activation` value may take.
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (dictionary
        (pair
          key: (string) @config_key.value))))
  (#eq? @_name "QUANT_KEY_NAMES"))

