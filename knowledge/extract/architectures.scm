; vLLM's model registry (vllm/model_executor/models/registry.py, 0.6 on): which
; architecture names it maps to a class, which it refuses, and where it decides.

; The registry's dicts: _TEXT_GENERATION_MODELS = {"LlamaForCausalLM": ("llama",
; "LlamaForCausalLM"), ...}, _VLLM_MODELS = {**_TEXT_GENERATION_MODELS, ...},
; _PREVIOUSLY_SUPPORTED_MODELS = {"QWenLMHeadModel": "0.23.0", ...} (0.11 on) and
; _OOT_SUPPORTED_MODELS = {"BartModel": "https://...", ...} (0.19 on).
(module
  (expression_statement
    (assignment
      left: (identifier) @table.name
      right: (dictionary) @table.body))
  (#match? @table.name "^_[A-Z0-9_]*MODELS$"))

; The methods of _ModelRegistry that decide a name the dicts do not list:
; inspect_model_cls (the Transformers-backend fallback under model_impl auto),
; _try_resolve_transformers (whether that backend takes the class) and
; _normalize_arch (a *ForSequenceClassification read as its base model) and
; _raise_for_unsupported (the messages: removed, moved to a plugin, unknown).
(class_definition
  name: (identifier) @_class
  body: (block
    [
      (function_definition
        name: (identifier) @method.name) @method.body
      (decorated_definition
        definition: (function_definition
          name: (identifier) @method.name) @method.body)
    ])
  (#eq? @_class "_ModelRegistry")
  (#any-of? @method.name "inspect_model_cls" "_try_resolve_transformers" "_normalize_arch" "_raise_for_unsupported"))
