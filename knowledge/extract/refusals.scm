; A raise with its message: the refusals of checkpoint properties vLLM no longer supports.
(raise_statement
  (call
    arguments: (argument_list . [(string) (concatenated_string)] @raise.message))) @raise

; get_quant_config: `if model_config.quantization == "fp8":` ... `resolve_quantization_config("fp8_per_tensor", ...)`
(if_statement
  condition: (comparison_operator
    (attribute attribute: (identifier) @_field)
    (string) @redirect.method)
  consequence: (block
    (expression_statement
      (call
        function: (attribute attribute: (identifier) @_log)
        arguments: (argument_list . (_) @redirect.warning)))?
    (expression_statement
      (assignment
        right: (call
          function: (identifier) @_resolve
          arguments: (argument_list . (string) @redirect.target)))))
  (#eq? @_field "quantization")
  (#match? @_log "^warning")
  (#eq? @_resolve "resolve_quantization_config")) @redirect
