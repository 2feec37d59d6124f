; 0.4.0 only: parser.add_argument('--quantization', '-q', choices=['awq', ...])
; in vllm/engine/arg_utils.py, the CLI's own list beside the config registry.
(call
  function: (attribute
    attribute: (identifier) @_method)
  arguments: (argument_list
    (string
      (string_content) @_flag)
    (keyword_argument
      name: (identifier) @_keyword
      value: [(list) (tuple)] @choices))
  (#eq? @_method "add_argument")
  (#eq? @_flag "--quantization")
  (#eq? @_keyword "choices"))
