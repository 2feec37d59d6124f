; Kernel and attention backend names. Run over vllm/config/kernel.py for the
; --linear-backend / --moe-backend values and over the attention registry file
; for the --attention-backend names.

; Module-level type aliases: MoEBackend = Literal["auto", "triton", ...]
(module
  (expression_statement
    (assignment
      left: (identifier) @alias.name
      right: (subscript
        value: (identifier) @_literal) @alias.value))
  (#eq? @_literal "Literal"))

; KernelConfig fields naming them: moe_backend: MoEBackend = "auto" (0.17 on),
; linear_backend: LinearBackend = "auto" (0.22 on).
(class_definition
  name: (identifier) @_class
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @field.name
        type: (type) @field.type)))
  (#eq? @_class "KernelConfig")
  (#any-of? @field.name "linear_backend" "moe_backend"))

; Attention backends: members of AttentionBackendEnum (0.11.1 on) or of the
; older _Backend enum (0.4 to 0.11.0).
(class_definition
  name: (identifier) @attention.class
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @attention.member)))
  (#any-of? @attention.class "AttentionBackendEnum" "_Backend"))
