; The attention backend registry: each member of AttentionBackendEnum and the class path it names.
(class_definition
  name: (identifier) @enum.name (#eq? @enum.name "AttentionBackendEnum")
  body: (block
    (expression_statement
      (assignment left: (identifier) @member.name right: (_) @member.path))))

; Every backend a platform file names, e.g. AttentionBackendEnum.FLASHINFER in vllm/platforms/cuda.py.
(attribute
  object: (identifier) @ref.enum (#eq? @ref.enum "AttentionBackendEnum")
  attribute: (identifier) @ref.member)
