; The module-level classes of a file a config class is looked up in, and each
; one's own get_min_capability. Every pattern is rooted at `module`, so the
; cursor runs with max start depth 0 and never walks the method bodies.

(module
  (class_definition
    name: (identifier) @class.name) @class)

; get_min_capability as a plain method or under @classmethod
(module
  (class_definition
    body: (block
      [
        (function_definition
          name: (identifier) @_method
          body: (block) @min_capability.body)
        (decorated_definition
          definition: (function_definition
            name: (identifier) @_method
            body: (block) @min_capability.body))
      ])
    (#eq? @_method "get_min_capability")) @min_capability.class)
