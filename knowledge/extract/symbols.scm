; Definitions find_symbol can name: classes, functions and methods, assigned names.
; Scope (module level or not, enclosing classes) is read from the parents in symbols.py.
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(assignment left: (identifier) @name) @definition.variable
