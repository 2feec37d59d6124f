; `supported_quantization` set directly in a platform class body (vllm/platforms/*.py):
;   class RocmPlatform(Platform):
;       supported_quantization: list[str] = ["awq", "gptq", ...]
(class_definition
  name: (identifier) @platform
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @_attribute
        right: (_) @methods) @assignment))
  (#eq? @_attribute "supported_quantization"))

; Additions under a condition in the class body, e.g. ROCm 0.12 to 0.16:
;   if not on_gfx9():
;       supported_quantization += ["bitsandbytes"]
(class_definition
  name: (identifier) @platform
  body: (block
    (if_statement
      consequence: (block
        (expression_statement
          (augmented_assignment
            left: (identifier) @_attribute
            right: (_) @conditional) @addition))))
  (#eq? @_attribute "supported_quantization"))
