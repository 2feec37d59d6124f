; Environment variables in vllm/envs.py (0.4.2 on).

; environment_variables: dict[str, Callable[[], Any]] = {"VLLM_X": lambda: ..., ...}
(module
  (expression_statement
    (assignment
      left: (identifier) @_dict
      right: (dictionary
        (pair
          key: (string) @var.name
          value: (_) @var.value))))
  (#eq? @_dict "environment_variables"))

; if TYPE_CHECKING:  VLLM_X: int = 0  -- the typed default, used when the
; getter's own default is not literal.
(module
  (if_statement
    condition: (identifier) @_condition
    consequence: (block
      (expression_statement
        (assignment
          left: (identifier) @hint.name
          type: (type)
          right: (_) @hint.value))))
  (#eq? @_condition "TYPE_CHECKING"))

; A getter call whose first argument is a string and whose second, if any, is
; the default: os.getenv("VLLM_X", "0"), os.environ.get("VLLM_X"),
; env_with_choices("VLLM_X", None, [...]).
(call
  arguments: (argument_list
    .
    (string) @getter.name
    .
    (_)? @getter.default))
