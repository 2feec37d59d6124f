; The --quantization choices and the deprecated ones, in
; vllm/model_executor/layers/quantization/__init__.py. Only module-level
; assignments count; the capture name says which layout matched.

; 0.8.5 on: QuantizationMethods = Literal["awq", ...]
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (subscript
        value: (identifier) @_literal) @methods.literal))
  (#eq? @_name "QuantizationMethods")
  (#eq? @_literal "Literal"))

; 0.6.5 to 0.8.4: QUANTIZATION_METHODS: List[str] = ["aqlm", ...]
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (list) @methods.list))
  (#eq? @_name "QUANTIZATION_METHODS"))

; 0.4.1 to 0.6.4: QUANTIZATION_METHODS = {"awq": AWQConfig, ...}; keys are the
; CLI choices and the values their config classes.
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (dictionary) @methods.dict))
  (#eq? @_name "QUANTIZATION_METHODS"))

; 0.4.0: _QUANTIZATION_CONFIG_REGISTRY = {"awq": AWQConfig, ...}; the CLI
; choices are a separate literal list in vllm/engine/arg_utils.py.
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (dictionary) @registry.dict))
  (#eq? @_name "_QUANTIZATION_CONFIG_REGISTRY"))

; 0.14 on: DEPRECATED_QUANTIZATION_METHODS = ["deepspeedfp", ...]
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: [(list) (tuple) (set)] @deprecated))
  (#eq? @_name "DEPRECATED_QUANTIZATION_METHODS"))

; 0.6.5 on: the resolver whose body holds the name -> config class table.
(module
  (function_definition
    name: (identifier) @_name
    body: (block) @resolver)
  (#eq? @_name "get_quantization_config"))
