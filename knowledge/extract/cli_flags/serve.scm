; Where the serve command hands its parser to the shared builder: make_arg_parser(serve_parser).
(call
  function: (identifier) @parser_call.function (#eq? @parser_call.function "make_arg_parser")
  arguments: (argument_list . (identifier) @parser_call.receiver)) @parser_call
