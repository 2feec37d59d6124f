; What each online shorthand quantizes, and where a method class refuses a GPU.

; 0.22 on: what each shorthand quantizes, e.g.
;   "nvfp4_per_token": QuantizationConfigArgs(moe=QuantSpec(weight=kNvfp4Static)),
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (dictionary
        (pair
          key: (string) @detail.shorthand
          value: (call
            arguments: (argument_list
              (keyword_argument
                name: (identifier) @detail.layer
                value: (call
                  arguments: (argument_list
                    (keyword_argument
                      name: (identifier) @_weight
                      value: (_) @detail.key))))))))))
  (#eq? @_name "_ONLINE_SHORTHANDS")
  (#eq? @_weight "weight"))

; 0.22 on: "online" itself, a literal of ONLINE_QUANT_SHORTHAND_NAMES = (*_ONLINE_SHORTHANDS.keys(), "online")
(module
  (expression_statement
    (assignment
      left: (identifier) @_name
      right: (tuple (string) @online)))
  (#eq? @_name "ONLINE_QUANT_SHORTHAND_NAMES"))

; 0.20 to 0.21: valid_quantization_values = online_quant_values | {"online"}
(assignment
  left: (identifier) @_name
  right: (binary_operator right: (set (string) @online))
  (#eq? @_name "valid_quantization_values"))

; online/base.py: the dispatch tables from a weight QuantKey to the method class of a layer kind, e.g.
;   _ONLINE_MOE_METHODS: dict[QuantKey, type] = {kNvfp4Static: Nvfp4OnlineMoEMethod, ...}
(module
  (expression_statement
    (assignment
      left: (identifier) @dispatch.table
      right: (dictionary
        (pair key: (identifier) @dispatch.key value: (identifier) @dispatch.class))))
  (#match? @dispatch.table "^_ONLINE_(LINEAR|MOE)_METHODS$"))

; A raise inside an `if` in a method class: the refusal and the condition guarding it.
(if_statement
  condition: (_) @refusal.condition
  consequence: (block
    (raise_statement
      (call arguments: (argument_list . [(string) (concatenated_string)] @refusal.message))) @refusal))
