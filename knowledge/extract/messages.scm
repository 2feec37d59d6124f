; A raise whose exception is built from a message: `raise ValueError("...")`, `raise ValueError(f"...")`,
; `raise ValueError("... %s" % x)`, `raise ValueError("...".format(x))`, `raise ValueError("... %s", x)`.
(raise_statement
  (call
    function: (_) @raise.type
    arguments: (argument_list . (_) @raise.message))) @raise

; A log call on a module's logger: `logger.warning("... %s", x)`, `logger.info_once(f"...")`.
(call
  function: (attribute
    object: (identifier) @_logger
    attribute: (identifier) @log.level)
  arguments: (argument_list . (_) @log.message)
  (#match? @_logger "^_?(logger|log|LOGGER)$")
  (#match? @log.level "^(info|info_once|warning|warning_once|warn|error|exception|critical)$")) @log
